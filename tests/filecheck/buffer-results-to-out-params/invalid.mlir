// RUN: xhip-opt %s -p buffer-results-to-out-params --split-input-file --verify-diagnostics | filecheck %s

func.func @tensors(%ctx: !hip.context, %x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 2]]:3: error: buffer-results-to-out-params: result #0 of '@tensors' is a tensor; run one-shot-bufferize first
