// RUN: not xhip-opt %s -p onnx-merge-sibling-matmuls,hip-add-context-arg,convert-onnx-to-hip 2>&1 | filecheck %s

// A MatMul whose declared result disagrees with its weight is reported at its own line
// (by the onnx verifier, before any pass: its shape rule is the converter's).
func.func @declared_wrong(%x: tensor<4x8xf32>) -> (tensor<4x5xf32>, tensor<4x2xf32>) {
  %w0 = "onnx.Constant"() {value = dense<1.0> : tensor<8x3xf32>} : () -> tensor<8x3xf32>
  %w1 = "onnx.Constant"() {value = dense<2.0> : tensor<8x2xf32>} : () -> tensor<8x2xf32>
  %y0 = "onnx.MatMul"(%x, %w0) {onnx_node_name = "q"} : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x5xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: onnx.MatMul: result #0 has shape [4, 5] but the operands give [4, 3]
  // CHECK-NOT: Traceback
  %y1 = "onnx.MatMul"(%x, %w1) {onnx_node_name = "k"} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %r0 = "onnx.Relu"(%y0) : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %r1 = "onnx.Relu"(%y1) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  func.return %r0, %r1 : tensor<4x5xf32>, tensor<4x2xf32>
}
