// RUN: xhip-opt %s -p hip-pool-allocs --split-input-file --verify-diagnostics | filecheck %s
// Option mistakes are reported before any input is read, at the option (-p here,
// FILE:LINE in a pipeline YAML), and the exit code is 1:
// RUN: not xhip-opt %s -p 'hip-pool-allocs{alignment=3}' --verify-diagnostics 2>&1 | filecheck %s --check-prefix=ALIGN3
// RUN: not xhip-opt %s -p 'hip-pool-allocs{alignment=0}' --verify-diagnostics 2>&1 | filecheck %s --check-prefix=ALIGN0
// RUN: not xhip-opt %s -p 'hip-pool-allocs{planner=lifetime}' --verify-diagnostics 2>&1 | filecheck %s --check-prefix=PLANNER

// The pool is reached through the context: a function without one cannot be pooled.
func.func @no_context(%x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  "memref.copy"(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 5]]:1: error: hip-pool-allocs: '@no_context' has no !hip.context as argument #0; pooling memref.alloc needs one (run hip-add-context-arg first)

// -----

// Live intervals are positions in one block.
func.func @two_blocks(%ctx: !hip.context, %x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  func.return
^bb1:
  func.return
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 7]]:1: error: hip-pool-allocs: '@two_blocks' has 2 blocks; only single-block functions are supported

// ALIGN3:  -p: error: pass 'hip-pool-allocs': alignment must be a positive power of 2, got 3
// ALIGN0:  -p: error: pass 'hip-pool-allocs': alignment must be a positive power of 2, got 0
// PLANNER: -p: error: option 'planner' of 'hip-pool-allocs' expects '' | 'run-time' | 'stacked' | 'grouped' | 'lifetime-only' | 'tree', got 'lifetime' (str); did you mean 'lifetime-only'?

// -----

// Offsets in the pool are multiples of its alignment; more cannot be promised.
func.func @over_aligned(%ctx: !hip.context, %x: memref<4xf32>) {
  %a = memref.alloc() {alignment = 512 : i64} : memref<4xf32>
  "memref.copy"(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 4]]:3: error: hip-pool-allocs: the allocation asks for 512-byte alignment, more than the pool's 256 (raise hip-pool-allocs' alignment option)
