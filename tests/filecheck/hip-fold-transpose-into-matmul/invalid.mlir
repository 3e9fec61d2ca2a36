// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The verifier of what the pass writes: a hip.matmul reading B transposed.

func.func @transposed_vector(%ctx: !hip.context, %a: tensor<4x8xf32>, %b: tensor<8xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  %y = hip.matmul(%ctx) ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4xf32>) {trans_b = true} -> tensor<4xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op a transposed B must have rank >= 2, got tensor<8xf32>
  func.return %y : tensor<4xf32>
}

// -----

// With trans_b, B [n, k] = [6, 8] makes a [.., 5, 6] result, not the [.., 5, 8] that B
// read as it is would give.

func.func @transposed_shape(%ctx: !hip.context, %a: tensor<2x5x8xf32>, %b: tensor<6x8xf32>, %e: tensor<2x5x8xf32>) -> tensor<2x5x8xf32> {
  %y = hip.matmul(%ctx) ins(%a, %b : tensor<2x5x8xf32>, tensor<6x8xf32>) outs(%e : tensor<2x5x8xf32>) {trans_b = true} -> tensor<2x5x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op out #0 has shape [2, 5, 8] but the operands multiply to [2, 5, 6]
  func.return %y : tensor<2x5x8xf32>
}
