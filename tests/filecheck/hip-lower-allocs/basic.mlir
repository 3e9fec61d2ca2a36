// RUN: xhip-opt %s -p hip-lower-allocs --split-input-file | filecheck %s
// RUN: xhip-opt %s -p hip-lower-allocs,hip-lower-allocs --split-input-file | filecheck %s

// Each buffer is freed right after the last op that uses it or a view of it:
// %a through its expand_shape view (read by the second matmul), %b directly.
func.func @free_after_last_aliased_use(%ctx: !hip.context, %x: memref<8xf32>, %n: index) -> memref<2x4xf32> {
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc(%n) : memref<?x4xf32>
  hip.copy(%ctx) ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  %out = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<2x4xf32>
  hip.relu(%ctx) ins(%v : memref<2x4xf32>) outs(%out : memref<2x4xf32>)
  hip.relu(%ctx) ins(%b : memref<?x4xf32>) outs(%b : memref<?x4xf32>)
  func.return %out : memref<2x4xf32>
}

// CHECK-LABEL: func.func @free_after_last_aliased_use
// CHECK-NEXT:    %[[A:.*]] = hip.alloc(%ctx) : memref<8xf32>
// CHECK-NEXT:    %[[B:.*]] = hip.alloc(%ctx, %n) : memref<?x4xf32>
// CHECK-NEXT:    hip.copy(%ctx) ins(%x : memref<8xf32>) outs(%[[A]] : memref<8xf32>)
// CHECK-NEXT:    %v = memref.expand_shape %[[A]]
// CHECK-NEXT:    %out = hip.alloc_output
// CHECK-NEXT:    hip.relu(%ctx) ins(%v : memref<2x4xf32>)
// CHECK-NEXT:    hip.free(%ctx, %[[A]]) : memref<8xf32>
// CHECK-NEXT:    hip.relu(%ctx) ins(%[[B]] : memref<?x4xf32>) outs(%[[B]] : memref<?x4xf32>)
// CHECK-NEXT:    hip.free(%ctx, %[[B]]) : memref<?x4xf32>
// CHECK-NEXT:    func.return %out
// CHECK-NOT:     memref.alloc

// -----

// A returned buffer belongs to the caller: allocated, never freed.
func.func @returned(%ctx: !hip.context, %x: memref<4xf32>) -> memref<2x2xf32> {
  %a = memref.alloc() : memref<4xf32>
  hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  func.return %v : memref<2x2xf32>
}

// CHECK-LABEL: func.func @returned
// CHECK-NEXT:    %[[A:.*]] = hip.alloc(%ctx) : memref<4xf32>
// CHECK-NOT:     hip.free
// CHECK:         func.return

// -----

// A written dealloc (here of a view) frees the buffer where it stands, and no
// second free is added. An alloc without uses is freed at once.
func.func @deallocs(%ctx: !hip.context, %x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %unused = memref.alloc() : memref<16xi8>
  hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  memref.dealloc %v : memref<2x2xf32>
  hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%x : memref<4xf32>)
  func.return
}

// CHECK-LABEL: func.func @deallocs
// CHECK-NEXT:    %[[A:.*]] = hip.alloc(%ctx) : memref<4xf32>
// CHECK-NEXT:    %[[U:.*]] = hip.alloc(%ctx) : memref<16xi8>
// CHECK-NEXT:    hip.free(%ctx, %[[U]]) : memref<16xi8>
// CHECK-NEXT:    hip.relu
// CHECK-NEXT:    %v = memref.expand_shape %[[A]]
// CHECK-NEXT:    hip.free(%ctx, %[[A]]) : memref<4xf32>
// CHECK-NEXT:    hip.relu
// CHECK-NEXT:    func.return

// -----

// The seed's pool before lowering (seed 003, pass 20): an i8 buffer carved by
// memref.view lives until the last use of any view; its dealloc becomes the free.
func.func @byte_pool(%ctx: !hip.context, %x: memref<?x64xf32>, %n: index, %bytes: index) {
  %c0 = arith.constant 0 : index
  %pool = memref.alloc(%bytes) : memref<?xi8>
  %v0 = memref.view %pool[%c0][%n] : memref<?xi8> to memref<?x64xf32>
  hip.relu(%ctx) ins(%x : memref<?x64xf32>) outs(%v0 : memref<?x64xf32>)
  hip.relu(%ctx) ins(%v0 : memref<?x64xf32>) outs(%x : memref<?x64xf32>)
  memref.dealloc %pool : memref<?xi8>
  func.return
}

// CHECK-LABEL: func.func @byte_pool
// CHECK:         %[[P:.*]] = hip.alloc(%ctx, %bytes) : memref<?xi8>
// CHECK-NEXT:    %v0 = memref.view %[[P]]
// CHECK-NEXT:    hip.relu
// CHECK-NEXT:    hip.relu
// CHECK-NEXT:    hip.free(%ctx, %[[P]]) : memref<?xi8>
// CHECK-NEXT:    func.return

// -----

// A buffer used inside a region is freed after the op holding the region; a
// buffer allocated inside the region is freed inside it. An existing
// memref.dealloc of a hip.alloc buffer becomes hip.free too.
func.func @regions(%ctx: !hip.context, %x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  %h = hip.alloc(%ctx) : memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<4xf32>
    hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%t : memref<4xf32>)
    hip.relu(%ctx) ins(%t : memref<4xf32>) outs(%a : memref<4xf32>)
    scf.yield
  }
  memref.dealloc %h : memref<4xf32>
  hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%x : memref<4xf32>)
  func.return
}

// CHECK-LABEL: func.func @regions
// CHECK:         %[[A:.*]] = hip.alloc(%ctx) : memref<4xf32>
// CHECK-NEXT:    %[[H:.*]] = hip.alloc(%ctx) : memref<4xf32>
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      %[[T:.*]] = hip.alloc(%ctx) : memref<4xf32>
// CHECK-NEXT:      hip.relu
// CHECK-NEXT:      hip.relu(%ctx) ins(%[[T]] : memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK-NEXT:      hip.free(%ctx, %[[T]]) : memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    hip.free(%ctx, %[[A]]) : memref<4xf32>
// CHECK-NEXT:    hip.free(%ctx, %[[H]]) : memref<4xf32>
// CHECK-NEXT:    hip.relu
// CHECK-NEXT:    func.return

// -----

// Nothing to lower: the pass is a no-op (and so idempotent).
func.func @nothing(%x: memref<4xf32>) -> memref<4xf32> {
  func.return %x : memref<4xf32>
}

// CHECK-LABEL: func.func @nothing(%x: memref<4xf32>) -> memref<4xf32>
// CHECK-NEXT:    func.return %x
