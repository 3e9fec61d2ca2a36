// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The verifier of what the pass writes: half operands may write a float32 result
// (patterns.mlir), and nothing else may differ in element type.

func.func @mixed_operands(%ctx: !hip.context, %a: tensor<4x8xf16>, %b: tensor<8x16xbf16>, %e: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %y = hip.matmul(%ctx) ins(%a, %b : tensor<4x8xf16>, tensor<8x16xbf16>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op A and B must share one element type, got bf16, f16
  func.return %y : tensor<4x16xf32>
}

// -----

func.func @narrowed(%ctx: !hip.context, %a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %e: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %y = hip.matmul(%ctx) ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%e : tensor<4x16xf16>) -> tensor<4x16xf16>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op A, B and output must share one element type, got f16, f32
  func.return %y : tensor<4x16xf16>
}
