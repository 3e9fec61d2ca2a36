// RUN: xhip-opt %s --allow-unregistered-dialect -p one-shot-bufferize --verify-diagnostics | filecheck %s

// Control flow between blocks is not bufferized (the converter emits single-block
// functions); the function is named.
func.func @blocks(%ctx: !hip.context, %x: tensor<4xf32>) -> tensor<4xf32> {
  "test.br"()[^bb1] : () -> ()
^bb1:
  func.return %x : tensor<4xf32>
}
// CHECK: invalid-blocks.mlir:[[# @LINE - 5]]:1: error: one-shot-bufferize: '@blocks' has 2 blocks; only single-block functions are supported
