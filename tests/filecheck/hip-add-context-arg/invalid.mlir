// RUN: xhip-opt %s -p hip-add-context-arg --split-input-file --verify-diagnostics | filecheck %s
// RUN: not xhip-opt %s -p hip-add-context-arg 2>&1 | filecheck %s --check-prefix=EXIT

// A context in the wrong position is a contract violation, reported at the function.
func.func @misplaced(%a: index, %ctx: !hip.context) -> index {
  func.return %a : index
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 3]]:1: error: '@misplaced' has !hip.context as argument #1; it must be argument #0
// EXIT: {{.*}}invalid.mlir:[[# @LINE - 4]]:1: error: '@misplaced' has !hip.context as argument #1; it must be argument #0
// EXIT-NOT: Traceback
