// RUN: xhip-opt %s -p hip-materialize-host-scalars --split-input-file --verify-diagnostics | filecheck %s
// RUN: xhip-opt %s -p 'hip-materialize-host-scalars{max-elements=0}' --split-input-file --verify-diagnostics | filecheck %s --check-prefix=LIMIT

// Host scratch is acquired through the context: a function without one cannot have it.
func.func @no_context(%i: i64) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<1xi64>
  memref.store %i, %a[%c0] : memref<1xi64>
  func.return
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 6]]:1: error: hip-materialize-host-scalars: '@no_context' has no !hip.context as argument #0; moving host scalar buffers to host scratch needs one (run hip-add-context-arg first)
// LIMIT: error: hip-materialize-host-scalars: option max-elements must be >= 1, got 0

// -----

// A scratch made elsewhere with a runtime size cannot be grown by a constant.
func.func @runtime_scratch(%ctx: !hip.context, %n: index, %i: i64) {
  %c0 = arith.constant 0 : index
  %scratch = hip.get_host_scratch(%ctx, %n) : memref<?xi8>
  %a = memref.alloc() : memref<1xi64>
  memref.store %i, %a[%c0] : memref<1xi64>
  func.return
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 5]]:3: error: cannot add host scalars to a host scratch whose size is not a constant
