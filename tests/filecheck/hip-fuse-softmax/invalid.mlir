// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The verifier of hip.softmax's bias: it broadcasts to the input and has its element type.

func.func @bias_does_not_broadcast(%ctx: !hip.context, %s: tensor<4x8xf32>, %b: tensor<3xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %p = hip.softmax(%ctx) ins(%s, %b : tensor<4x8xf32>, tensor<3xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.softmax' op bias must broadcast to the input, got tensor<3xf32> for tensor<4x8xf32>
  func.return %p : tensor<4x8xf32>
}

// -----

func.func @bias_of_another_type(%ctx: !hip.context, %s: tensor<4x8xf32>, %b: tensor<8xf16>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %p = hip.softmax(%ctx) ins(%s, %b : tensor<4x8xf32>, tensor<8xf16>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.softmax' op input and bias
  func.return %p : tensor<4x8xf32>
}
