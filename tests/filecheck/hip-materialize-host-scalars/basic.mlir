// RUN: xhip-opt %s -p hip-materialize-host-scalars --split-input-file | filecheck %s
// Idempotent: a second run changes nothing.
// RUN: xhip-opt %s -p hip-materialize-host-scalars --split-input-file | xhip-opt - -p hip-materialize-host-scalars --split-input-file | filecheck %s
// A smaller limit keeps the 4-element buffer where it is.
// RUN: xhip-opt %s -p 'hip-materialize-host-scalars{max-elements=2}' --split-input-file | filecheck %s --check-prefix=MAX2

// Host-stored scalars, one through a view, share ONE scratch; each at a 64-byte
// aligned offset: i64 (8 bytes) at 0, 2x2xi32 (16 bytes) at 64, index (8 bytes) at 128.
// Their deallocs go (the scratch is runtime-owned); device buffers stay.
func.func @scalars(%ctx: !hip.context, %x: memref<4xf32>, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %v = arith.index_cast %n : index to i64
  %a = memref.alloc() : memref<1xi64>
  memref.store %v, %a[%c0] : memref<1xi64>
  %b = memref.alloc() : memref<2x2xi32>
  %b1 = memref.collapse_shape %b [[0, 1]] : memref<2x2xi32> into memref<4xi32>
  %w = arith.constant 3 : i32
  memref.store %w, %b1[%c0] : memref<4xi32>
  %i = memref.alloc() : memref<index>
  memref.store %n, %i[] : memref<index>
  %y = memref.alloc() : memref<4xf32>
  hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  memref.dealloc %a : memref<1xi64>
  func.return %y : memref<4xf32>
}

// CHECK-LABEL: func.func @scalars
// CHECK-NEXT:    %[[TOTAL:.*]] = arith.constant 192 : index
// CHECK-NEXT:    %[[SCRATCH:.*]] = hip.get_host_scratch(%ctx, %[[TOTAL]]) : memref<?xi8>
// CHECK-NOT:     hip.get_host_scratch
// CHECK:         %v = arith.index_cast
// CHECK-NEXT:    %[[O0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.view %[[SCRATCH]][%[[O0]]][] : memref<?xi8> to memref<1xi64>
// CHECK-NEXT:    memref.store %v, %a[%c0] : memref<1xi64>
// CHECK-NEXT:    %[[O64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %b = memref.view %[[SCRATCH]][%[[O64]]][] : memref<?xi8> to memref<2x2xi32>
// CHECK-NEXT:    %b1 = memref.collapse_shape %b
// CHECK:         %[[O128:.*]] = arith.constant 128 : index
// CHECK-NEXT:    %i = memref.view %[[SCRATCH]][%[[O128]]][] : memref<?xi8> to memref<index>
// CHECK:         %y = memref.alloc() : memref<4xf32>
// CHECK-NOT:     memref.dealloc
// CHECK:         func.return %y

// MAX2-LABEL: func.func @scalars
// MAX2:         %a = memref.view
// MAX2:         %b = memref.alloc() : memref<2x2xi32>
// MAX2:         %i = memref.view

// -----

// Host loads count too; a buffer that a kernel writes and the host reads (a count)
// is host-mapped the same way. hip ops, memref.dim and memref.copy accept scratch.
func.func @count(%ctx: !hip.context, %x: memref<8xi64>) -> index {
  %c0 = arith.constant 0 : index
  %n = memref.alloc() : memref<1xi64>
  hip.reduce_sum(%ctx) ins(%x : memref<8xi64>) outs(%n : memref<1xi64>) {axes = array<i64: 0>}
  %copy = memref.alloc() : memref<1xi64>
  "memref.copy"(%n, %copy) : (memref<1xi64>, memref<1xi64>) -> ()
  %d = memref.dim %n, %c0 : memref<1xi64>
  %v = memref.load %n[%c0] : memref<1xi64>
  %i = arith.index_cast %v : i64 to index
  %r = arith.addi %i, %d : index
  func.return %r : index
}

// CHECK-LABEL: func.func @count
// CHECK:         hip.get_host_scratch(%ctx, %{{.*}}) : memref<?xi8>
// CHECK:         %n = memref.view
// CHECK-NEXT:    hip.reduce_sum(%ctx) ins(%x : memref<8xi64>) outs(%n : memref<1xi64>)
// The copy's destination is never touched by host code: it stays a device buffer.
// CHECK-NEXT:    %copy = memref.alloc() : memref<1xi64>

// -----

// Not candidates: floats, dynamic shapes, more than 16 elements, buffers host code
// never touches, and buffers with a use that must not become host-mapped (returned).
func.func @kept(%ctx: !hip.context, %n: index, %f: f32, %i: i64) -> memref<2xi64> {
  %c0 = arith.constant 0 : index
  %float = memref.alloc() : memref<1xf32>
  memref.store %f, %float[%c0] : memref<1xf32>
  %dynamic = memref.alloc(%n) : memref<?xi64>
  memref.store %i, %dynamic[%c0] : memref<?xi64>
  %large = memref.alloc() : memref<17xi64>
  memref.store %i, %large[%c0] : memref<17xi64>
  %device = memref.alloc() : memref<1xi64>
  hip.fill(%ctx, %i) outs(%device : memref<1xi64>)
  %returned = memref.alloc() : memref<2xi64>
  memref.store %i, %returned[%c0] : memref<2xi64>
  func.return %returned : memref<2xi64>
}

// CHECK-LABEL: func.func @kept
// CHECK-NOT:     hip.get_host_scratch
// CHECK-NOT:     memref.view
// CHECK:         func.return

// -----

// A later run adds to the scratch an earlier run made (one scratch per function).
func.func @grow(%ctx: !hip.context, %i: i64) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %scratch = hip.get_host_scratch(%ctx, %c64) : memref<?xi8>
  %old = memref.view %scratch[%c0][] : memref<?xi8> to memref<1xi64>
  memref.store %i, %old[%c0] : memref<1xi64>
  %new = memref.alloc() : memref<1xi64>
  memref.store %i, %new[%c0] : memref<1xi64>
  func.return
}

// CHECK-LABEL: func.func @grow
// CHECK:         %[[SIZE:.*]] = arith.constant 128 : index
// CHECK-NEXT:    %scratch = hip.get_host_scratch(%ctx, %[[SIZE]]) : memref<?xi8>
// CHECK:         %[[OFF:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %new = memref.view %scratch[%[[OFF]]][] : memref<?xi8> to memref<1xi64>
// CHECK-NOT:     hip.get_host_scratch
