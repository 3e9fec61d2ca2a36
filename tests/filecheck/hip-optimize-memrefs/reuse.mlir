// RUN: xhip-opt %s -p hip-optimize-memrefs --split-input-file | filecheck %s
// Idempotent: a second run changes nothing.
// RUN: xhip-opt %s -p hip-optimize-memrefs --split-input-file | xhip-opt - -p hip-optimize-memrefs --split-input-file | filecheck %s

// Static shapes: the best fit by size among the dead slots of the element type.
// %c (16 elements) fits both dead slots; the 32-element one wastes less than the
// 64-element one. A different shape reads the slot through a reinterpret_cast; the
// same type takes the slot itself (%e is %a's type, and %a is dead by then).
func.func @static_best_fit(%ctx: !hip.context, %x: memref<64xf32>, %y: memref<32xf32>, %z: memref<4x4xf32>) -> (memref<4x4xf32>, memref<64xf32>, memref<32xf32>) {
  %a = memref.alloc() : memref<64xf32>
  hip.relu(%ctx) ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %b = memref.alloc() : memref<32xf32>
  hip.relu(%ctx) ins(%y : memref<32xf32>) outs(%b : memref<32xf32>)
  %o1 = hip.alloc_output(%ctx) {out_idx = 1 : i64} : memref<64xf32>
  hip.exp(%ctx) ins(%a : memref<64xf32>) outs(%o1 : memref<64xf32>)
  %o2 = hip.alloc_output(%ctx) {out_idx = 2 : i64} : memref<32xf32>
  hip.exp(%ctx) ins(%b : memref<32xf32>) outs(%o2 : memref<32xf32>)
  %c = memref.alloc() : memref<4x4xf32>
  hip.exp(%ctx) ins(%z : memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  %e = memref.alloc() : memref<64xf32>
  hip.relu(%ctx) ins(%x : memref<64xf32>) outs(%e : memref<64xf32>)
  %o0 = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<4x4xf32>
  hip.add(%ctx) ins(%c, %z : memref<4x4xf32>, memref<4x4xf32>) outs(%o0 : memref<4x4xf32>)
  hip.add(%ctx) ins(%e, %o1 : memref<64xf32>, memref<64xf32>) outs(%o1 : memref<64xf32>)
  func.return %o0, %o1, %o2 : memref<4x4xf32>, memref<64xf32>, memref<32xf32>
}

// CHECK-LABEL: func.func @static_best_fit
// CHECK:         %c = memref.reinterpret_cast %b to offset: [0], sizes: [4, 4], strides: [4, 1] : memref<32xf32> to memref<4x4xf32>
// CHECK-NEXT:    hip.exp(%ctx) ins(%z : memref<4x4xf32>) outs(%c : memref<4x4xf32>)
// CHECK-NEXT:    hip.relu(%ctx) ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
// CHECK:         hip.add(%ctx) ins(%a, %o1 : memref<64xf32>, memref<64xf32>) outs(%o1 : memref<64xf32>)

// -----

// What never shares: another element type, static with dynamic, dynamic shapes of
// other extents, and a dynamic shape of another type with the same extents.
func.func @incompatible(%ctx: !hip.context, %x: memref<?x?xf32>, %n: index, %m: index) -> memref<?x?xf32> {
  %a = memref.alloc(%n, %m) : memref<?x?xf32>
  hip.relu(%ctx) ins(%x : memref<?x?xf32>) outs(%a : memref<?x?xf32>)
  %o = hip.alloc_output(%ctx, %n, %m) {out_idx = 0 : i64} : memref<?x?xf32>
  hip.relu(%ctx) ins(%a : memref<?x?xf32>) outs(%o : memref<?x?xf32>)
  %i = memref.alloc(%n, %m) : memref<?x?xi32>
  hip.cast(%ctx) ins(%o : memref<?x?xf32>) outs(%i : memref<?x?xi32>)
  %other_extents = memref.alloc(%m, %n) : memref<?x?xf32>
  hip.cast(%ctx) ins(%i : memref<?x?xi32>) outs(%other_extents : memref<?x?xf32>)
  %other_type = memref.alloc(%n) : memref<?x4xf32>
  hip.relu(%ctx) ins(%other_extents : memref<?x?xf32>) outs(%other_type : memref<?x4xf32>)
  %static = memref.alloc() : memref<4x4xf32>
  hip.relu(%ctx) ins(%other_type : memref<?x4xf32>) outs(%static : memref<4x4xf32>)
  hip.relu(%ctx) ins(%static : memref<4x4xf32>) outs(%o : memref<?x?xf32>)
  func.return %o : memref<?x?xf32>
}

// CHECK-LABEL: func.func @incompatible
// CHECK:         %i = memref.alloc(%n, %m) : memref<?x?xi32>
// CHECK:         %other_extents = memref.alloc(%m, %n) : memref<?x?xf32>
// CHECK:         %other_type = memref.alloc(%n) : memref<?x4xf32>
// CHECK:         %static = memref.alloc() : memref<4x4xf32>
// CHECK-NOT:     memref.reinterpret_cast

// -----

// Dynamic shapes: the same type and the same extents, even when one size is read
// back through memref.dim of a buffer and a constant stands for a static extent.
func.func @dynamic_same_extents(%ctx: !hip.context, %x: memref<?x8xf32>) -> memref<?x8xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %x, %c0 : memref<?x8xf32>
  %a = memref.alloc(%n, %c8) : memref<?x?xf32>
  %xa = "memref.cast"(%x) : (memref<?x8xf32>) -> memref<?x?xf32>
  hip.relu(%ctx) ins(%xa : memref<?x?xf32>) outs(%a : memref<?x?xf32>)
  %b = memref.alloc(%n, %c8) : memref<?x?xf32>
  hip.exp(%ctx) ins(%a : memref<?x?xf32>) outs(%b : memref<?x?xf32>)
  %an = memref.dim %b, %c0 : memref<?x?xf32>
  %eight = arith.constant 8 : index
  %c = memref.alloc(%an, %eight) : memref<?x?xf32>
  hip.exp(%ctx) ins(%b : memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  %o = hip.alloc_output(%ctx, %n) {out_idx = 0 : i64} : memref<?x8xf32>
  %co = "memref.cast"(%c) : (memref<?x?xf32>) -> memref<?x8xf32>
  hip.relu(%ctx) ins(%co : memref<?x8xf32>) outs(%o : memref<?x8xf32>)
  func.return %o : memref<?x8xf32>
}

// CHECK-LABEL: func.func @dynamic_same_extents
// CHECK:         %a = memref.alloc(%n, %c8) : memref<?x?xf32>
// CHECK:         %b = memref.alloc(%n, %c8) : memref<?x?xf32>
// CHECK:         hip.exp(%ctx) ins(%b : memref<?x?xf32>) outs(%a : memref<?x?xf32>)
// CHECK-NEXT:    %o = hip.alloc_output
// CHECK-NEXT:    %co = "memref.cast"(%a)

// -----

// Liveness follows every view to its last use: %a is read through %a2 (an
// expand_shape) by the third op, so %b (defined before that) cannot take it; %c
// (defined after) can.
func.func @through_views(%ctx: !hip.context, %x: memref<16xf32>) -> memref<4x4xf32> {
  %a = memref.alloc() : memref<16xf32>
  hip.relu(%ctx) ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  %a2 = memref.expand_shape %a [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  %b = memref.alloc() : memref<16xf32>
  hip.relu(%ctx) ins(%x : memref<16xf32>) outs(%b : memref<16xf32>)
  %o = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<4x4xf32>
  hip.exp(%ctx) ins(%a2 : memref<4x4xf32>) outs(%o : memref<4x4xf32>)
  %c = memref.alloc() : memref<16xf32>
  hip.exp(%ctx) ins(%b : memref<16xf32>) outs(%c : memref<16xf32>)
  %c2 = memref.expand_shape %c [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  hip.add(%ctx) ins(%c2, %o : memref<4x4xf32>, memref<4x4xf32>) outs(%o : memref<4x4xf32>)
  func.return %o : memref<4x4xf32>
}

// CHECK-LABEL: func.func @through_views
// CHECK:         %b = memref.alloc() : memref<16xf32>
// CHECK:         hip.exp(%ctx) ins(%b : memref<16xf32>) outs(%a : memref<16xf32>)
// CHECK-NEXT:    %c2 = memref.expand_shape %a

// -----

// Never taking part: a returned buffer, function arguments and graph outputs
// (not allocations), a buffer carved up by memref.view (a new root for
// liveness), and an unused allocation.
func.func @escaping(%ctx: !hip.context, %x: memref<64xi8>) -> (memref<64xi8>, memref<64xi8>) {
  %o = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<64xi8>
  hip.copy(%ctx) ins(%x : memref<64xi8>) outs(%o : memref<64xi8>)
  %carved = memref.alloc() : memref<64xi8>
  %c0 = arith.constant 0 : index
  %part = memref.view %carved[%c0][] : memref<64xi8> to memref<16xf32>
  hip.copy(%ctx) ins(%x : memref<64xi8>) outs(%carved : memref<64xi8>)
  %unused = memref.alloc() : memref<64xi8>
  %r = memref.alloc() : memref<64xi8>
  hip.copy(%ctx) ins(%x : memref<64xi8>) outs(%r : memref<64xi8>)
  %late = memref.alloc() : memref<64xi8>
  hip.copy(%ctx) ins(%x : memref<64xi8>) outs(%late : memref<64xi8>)
  hip.copy(%ctx) ins(%late : memref<64xi8>) outs(%o : memref<64xi8>)
  %last = memref.alloc() : memref<64xi8>
  hip.copy(%ctx) ins(%o : memref<64xi8>) outs(%last : memref<64xi8>)
  hip.copy(%ctx) ins(%last : memref<64xi8>) outs(%o : memref<64xi8>)
  func.return %o, %r : memref<64xi8>, memref<64xi8>
}

// %last takes %late's slot, the only buffer that took part and died.
// CHECK-LABEL: func.func @escaping
// CHECK:         %carved = memref.alloc()
// CHECK:         %unused = memref.alloc()
// CHECK:         %r = memref.alloc()
// CHECK:         %late = memref.alloc()
// CHECK-NOT:     memref.alloc
// CHECK:         hip.copy(%ctx) ins(%o : memref<64xi8>) outs(%late : memref<64xi8>)

// -----

// A use inside a region counts at the op that holds the region (liveness sees
// it there): %nested is dead after the scf.if, so %late takes its slot; %late
// and %held are still read inside the scf.for after %after is allocated, so
// %after takes neither slot.
func.func @use_in_region(%ctx: !hip.context, %x: memref<64xi8>, %flag: i1, %n: index) {
  %nested = memref.alloc() : memref<64xi8>
  scf.if %flag {
    hip.copy(%ctx) ins(%x : memref<64xi8>) outs(%nested : memref<64xi8>)
  }
  %late = memref.alloc() : memref<64xi8>
  hip.copy(%ctx) ins(%x : memref<64xi8>) outs(%late : memref<64xi8>)
  %held = memref.alloc() : memref<64xi8>
  hip.copy(%ctx) ins(%late : memref<64xi8>) outs(%held : memref<64xi8>)
  %after = memref.alloc() : memref<64xi8>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    hip.copy(%ctx) ins(%held : memref<64xi8>) outs(%after : memref<64xi8>)
    hip.copy(%ctx) ins(%late : memref<64xi8>) outs(%after : memref<64xi8>)
    scf.yield
  }
  func.return
}

// CHECK-LABEL: func.func @use_in_region
// CHECK:         %nested = memref.alloc()
// CHECK-NEXT:    scf.if %flag {
// CHECK-NEXT:      hip.copy(%ctx) ins(%x : memref<64xi8>) outs(%nested : memref<64xi8>)
// CHECK-NEXT:    }
// CHECK-NEXT:    hip.copy(%ctx) ins(%x : memref<64xi8>) outs(%nested : memref<64xi8>)
// CHECK:         %held = memref.alloc()
// CHECK:         %after = memref.alloc()

// -----

// Deallocations are not uses. The taker's dealloc goes, and the slot gets one
// dealloc right after its last use.
func.func @deallocs(%ctx: !hip.context, %x: memref<8xf32>) -> memref<8xf32> {
  %a = memref.alloc() : memref<8xf32>
  hip.relu(%ctx) ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
  %o = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<8xf32>
  hip.exp(%ctx) ins(%a : memref<8xf32>) outs(%o : memref<8xf32>)
  %b = memref.alloc() : memref<8xf32>
  hip.exp(%ctx) ins(%o : memref<8xf32>) outs(%b : memref<8xf32>)
  hip.relu(%ctx) ins(%b : memref<8xf32>) outs(%o : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  func.return %o : memref<8xf32>
}

// CHECK-LABEL: func.func @deallocs
// CHECK:         hip.exp(%ctx) ins(%o : memref<8xf32>) outs(%a : memref<8xf32>)
// CHECK-NEXT:    hip.relu(%ctx) ins(%a : memref<8xf32>) outs(%o : memref<8xf32>)
// CHECK-NEXT:    memref.dealloc %a : memref<8xf32>
// CHECK-NEXT:    func.return
