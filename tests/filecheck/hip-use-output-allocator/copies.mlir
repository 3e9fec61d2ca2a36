// RUN: xhip-opt %s -p hip-use-output-allocator --split-input-file | filecheck %s

// NonZero after one-shot-bufferize: the valid part of the capacity buffer was copied
// into a buffer sized by the count; that buffer becomes the output, sized by the
// count, not by the capacity.
func.func @nonzero(%ctx: !hip.context, %x: memref<?x?xi1>) -> memref<2x?xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.dim %x, %c0 : memref<?x?xi1>
  %c = memref.dim %x, %c1 : memref<?x?xi1>
  %cap = arith.muli %r, %c : index
  %idx = memref.alloc(%cap) : memref<2x?xi64>
  %cnt = memref.alloc() : memref<i64>
  hip.nonzero(%ctx) ins(%x : memref<?x?xi1>) outs(%idx, %cnt : memref<2x?xi64>, memref<i64>)
  %n64 = memref.load %cnt[] : memref<i64>
  %n = arith.index_cast %n64 : i64 to index
  %valid = memref.subview %idx[0, 0] [2, %n] [1, 1] : memref<2x?xi64> to memref<2x?xi64, strided<[?, 1]>>
  %y = memref.alloc(%n) : memref<2x?xi64>
  "memref.copy"(%valid, %y) : (memref<2x?xi64, strided<[?, 1]>>, memref<2x?xi64>) -> ()
  func.return %y : memref<2x?xi64>
}
// CHECK-LABEL: func.func @nonzero
// CHECK:         %[[IDX:.*]] = memref.alloc(%cap) : memref<2x?xi64>
// CHECK:         %n = arith.index_cast %n64 : i64 to index
// CHECK-NEXT:    %valid = memref.subview %[[IDX]][0, 0] [2, %n] [1, 1]
// CHECK-NEXT:    %[[Y:.*]] = hip.alloc_output(%ctx, %n) {out_idx = 0 : i64} : memref<2x?xi64>
// CHECK-NEXT:    "memref.copy"(%valid, %[[Y]])
// CHECK-NEXT:    func.return %[[Y]] : memref<2x?xi64>

// -----

// Arguments and globals are not the program's to hand out: they are copied into
// outputs at the return, sized by their dims: an argument's read with memref.dim,
// a view's from its view ops (the products of a collapse, the output shape of an expand).
builtin.module {
  "memref.global"() <{sym_name = "table", type = memref<4xf32>, initial_value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>, sym_visibility = "private", constant}> : () -> ()
  func.func @not_ours(%ctx: !hip.context, %x: memref<?x?x6xf32>) -> (memref<?x?x6xf32>, memref<4xf32>, memref<?x3xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.dim %x, %c0 : memref<?x?x6xf32>
    %b = memref.dim %x, %c1 : memref<?x?x6xf32>
    %g = memref.get_global @table : memref<4xf32>
    %b2 = arith.muli %b, %c1 : index
    %flat = memref.collapse_shape %x [[0, 1], [2]] : memref<?x?x6xf32> into memref<?x6xf32>
    %pairs = memref.expand_shape %flat [[0], [1, 2]] output_shape [%b2, 2, 3] : memref<?x6xf32> into memref<?x2x3xf32>
    %rows = memref.collapse_shape %pairs [[0, 1], [2]] : memref<?x2x3xf32> into memref<?x3xf32>
    func.return %x, %g, %rows : memref<?x?x6xf32>, memref<4xf32>, memref<?x3xf32>
  }
}
// CHECK-LABEL: func.func @not_ours
// CHECK:         %rows = memref.collapse_shape %pairs
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D0:.*]] = memref.dim %x, %[[C0]] : memref<?x?x6xf32>
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[D1:.*]] = memref.dim %x, %[[C1]] : memref<?x?x6xf32>
// CHECK-NEXT:    %[[X:.*]] = hip.alloc_output(%ctx, %[[D0]], %[[D1]]) {out_idx = 0 : i64} : memref<?x?x6xf32>
// CHECK-NEXT:    "memref.copy"(%x, %[[X]])
// CHECK-NEXT:    %[[G:.*]] = hip.alloc_output(%ctx) {out_idx = 1 : i64} : memref<4xf32>
// CHECK-NEXT:    "memref.copy"(%g, %[[G]])
// CHECK-NEXT:    %[[N:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[B2N:.*]] = arith.muli %b2, %[[N]] : index
// CHECK-NEXT:    %[[R:.*]] = hip.alloc_output(%ctx, %[[B2N]]) {out_idx = 2 : i64} : memref<?x3xf32>
// CHECK-NEXT:    "memref.copy"(%rows, %[[R]])
// CHECK-NEXT:    func.return %[[X]], %[[G]], %[[R]] : memref<?x?x6xf32>, memref<4xf32>, memref<?x3xf32>

// -----

// An Expand whose out takes the target's run-time extent, returned through a cast
// to the extent the model declares: the buffer keeps its run-time size (the
// runtime's Expand contract sees the target) and is copied into the output after
// the cast's run-time check; the output never takes the cast's extent for it.
func.func @cast_to_declared(%ctx: !hip.context, %x: memref<3xf32>, %t: index) -> memref<3xf32> {
  %buffer = memref.alloc(%t) : memref<?xf32>
  hip.expand(%ctx) ins(%x : memref<3xf32>) outs(%buffer : memref<?xf32>)
  %declared = "memref.cast"(%buffer) : (memref<?xf32>) -> memref<3xf32>
  func.return %declared : memref<3xf32>
}
// CHECK-LABEL: func.func @cast_to_declared
// CHECK:         %buffer = memref.alloc(%t) : memref<?xf32>
// CHECK-NEXT:    hip.expand(%ctx) ins(%x : memref<3xf32>) outs(%buffer : memref<?xf32>)
// CHECK-NEXT:    %declared = "memref.cast"(%buffer) : (memref<?xf32>) -> memref<3xf32>
// CHECK-NEXT:    %[[OUT:.*]] = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<3xf32>
// CHECK-NEXT:    "memref.copy"(%declared, %[[OUT]])
// CHECK-NEXT:    func.return %[[OUT]] : memref<3xf32>
