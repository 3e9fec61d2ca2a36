// RUN: xhip-opt %s -p hip-lower-host-visibility --split-input-file --verify-diagnostics | filecheck %s
// RUN: not xhip-opt %s -p hip-lower-host-visibility 2>&1 | filecheck %s --check-prefix=EXIT

// A readback is queued on the context: a function without one cannot read
// device data back (the shared context contract, xhip/passes/contracts.py).
func.func @no_context(%x: memref<4xi64>) -> i64 {
  %c0 = arith.constant 0 : index
  %y = memref.alloc() : memref<4xi64>
  "memref.copy"(%x, %y) : (memref<4xi64>, memref<4xi64>) -> ()
  %v = memref.load %y[%c0] : memref<4xi64>
  func.return %v : i64
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 7]]:1: error: hip-lower-host-visibility: '@no_context' has no !hip.context as argument #0; reading device data back needs one (run hip-add-context-arg first)
// EXIT: {{.*}}invalid.mlir:[[# @LINE - 8]]:1: error: hip-lower-host-visibility: '@no_context' has no !hip.context as argument #0
// EXIT-NOT: Traceback
