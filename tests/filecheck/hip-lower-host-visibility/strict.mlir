// RUN: xhip-opt %s -p 'hip-lower-host-visibility{strategy=strict}' --split-input-file --verify-diagnostics | filecheck %s
// RUN: not xhip-opt %s -p 'hip-lower-host-visibility{strategy=lazy}' 2>&1 | filecheck %s --check-prefix=OPTION

func.func @unproven(%ctx: !hip.context, %x: memref<4xi64>) -> i64 {
  %c0 = arith.constant 0 : index
  %y = memref.alloc() : memref<4xi64>
  hip.neg(%ctx) ins(%x : memref<4xi64>) outs(%y : memref<4xi64>)
  %v = memref.load %y[%c0] : memref<4xi64>
  func.return %v : i64
}
// CHECK: {{.*}}strict.mlir:[[# @LINE - 3]]:3: error: host read of a buffer written by device work that may still be running: it needs a synchronization (strategy 'strict' lowers none)

// OPTION: error: {{.*}}strategy{{.*}}
// OPTION-NOT: Traceback
