// RUN: xhip-opt %s -p hip-optimize-memrefs --allow-unregistered-dialect --verify-diagnostics | filecheck %s

// Liveness is positions in one block: a function with several blocks is refused,
// not silently left alone.
func.func @two_blocks(%ctx: !hip.context, %x: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  hip.relu(%ctx) ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
  "test.br"() [^bb1] : () -> ()
^bb1:
  func.return
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 7]]:1: error: hip-optimize-memrefs: '@two_blocks' has 2 blocks; only single-block functions are supported
