// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --verify-diagnostics | filecheck %s
// RUN: not xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip 2>&1 | filecheck %s --check-prefix=EXIT

// The shared symbols are read from onnx.dim_params: a malformed entry (hand-written
// IR; the importer writes AXIS:NAME) is the function's located error.
func.func @bad_dim_params(%x: tensor<?xf32> {onnx.dim_params = "batch"}) -> tensor<?xf32> {
  %r = "onnx.Relu"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK: {{.*}}invalid-dim-params.mlir:[[# @LINE - 4]]:1: error: convert-onnx-to-hip: '@bad_dim_params': onnx.dim_params entry 'batch' is not AXIS:NAME
// EXIT: {{.*}}invalid-dim-params.mlir:[[# @LINE - 5]]:1: error: convert-onnx-to-hip: '@bad_dim_params': onnx.dim_params entry 'batch' is not AXIS:NAME
// EXIT-NOT: Traceback
