// RUN: xhip-opt %s -p hip-lower-allocs --split-input-file --verify-diagnostics | filecheck %s

// hip.alloc needs the context: a function without one cannot be lowered.
func.func @no_context(%x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  func.return
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 4]]:1: error: hip-lower-allocs: '@no_context' has no !hip.context as argument #0; lowering memref.alloc to hip.alloc needs one (run hip-add-context-arg first)

// -----

func.func @two_blocks(%ctx: !hip.context) {
  %a = memref.alloc() : memref<4xf32>
  func.return
^bb1:
  func.return
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 6]]:1: error: hip-lower-allocs: '@two_blocks' has 2 blocks; only single-block functions are supported
