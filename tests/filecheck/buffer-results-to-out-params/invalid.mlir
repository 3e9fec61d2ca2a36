// RUN: xhip-opt %s -p buffer-results-to-out-params --split-input-file --verify-diagnostics | filecheck %s

func.func @tensors(%ctx: !hip.context, %x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 3]]:1: error: '@tensors' returns non-memref values: run one-shot-bufferize first
