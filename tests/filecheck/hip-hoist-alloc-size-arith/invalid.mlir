// RUN: xhip-opt %s -p hip-hoist-alloc-size-arith --allow-unregistered-dialect --verify-diagnostics | filecheck %s

// "Above the first allocation" needs one block of straight-line code.
func.func @two_blocks(%ctx: !hip.context, %x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  "test.br"() [^bb1] : () -> ()
^bb1:
  func.return
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 9]]:1: error: hip-hoist-alloc-size-arith: '@two_blocks' has 2 blocks; only single-block functions are supported
