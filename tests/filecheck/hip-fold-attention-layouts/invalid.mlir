// RUN: xhip-opt %s --split-input-file --verify-diagnostics -p hip-fold-attention-layouts | filecheck %s

// The positive cases run with hip-fuse-attention, which makes the ops this pass folds
// into: tests/filecheck/hip-fuse-attention/layouts.mlir.

func.func @two_blocks(%ctx: !hip.context, %q: tensor<2x3x5x8xf32>, %k: tensor<2x3x6x8xf32>, %v: tensor<2x3x6x8xf32>, %y: tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v : tensor<2x3x5x8xf32>, tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>) outs(%y : tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32>
  func.return %r : tensor<2x3x5x8xf32>
^bb1:
  func.return %y : tensor<2x3x5x8xf32>
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 6]]:1: error: hip-fold-attention-layouts: '@two_blocks' has 2 blocks; only single-block functions are supported
