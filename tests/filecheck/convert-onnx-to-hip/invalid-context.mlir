// RUN: xhip-opt %s -p convert-onnx-to-hip --split-input-file --verify-diagnostics | filecheck %s
// RUN: not xhip-opt %s -p convert-onnx-to-hip 2>&1 | filecheck %s --check-prefix=EXIT

// hip ops take the context first: a function that hip-add-context-arg has not
// seen cannot be converted (the shared context contract, xhip/passes/contracts.py).
func.func @no_context(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = "onnx.Relu"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK: {{.*}}invalid-context.mlir:[[# @LINE - 4]]:1: error: convert-onnx-to-hip: '@no_context' has no !hip.context as argument #0; converting ONNX ops to hip ops needs one (run hip-add-context-arg first)
// EXIT: {{.*}}invalid-context.mlir:[[# @LINE - 5]]:1: error: convert-onnx-to-hip: '@no_context' has no !hip.context as argument #0
// EXIT-NOT: Traceback
