// RUN: xhip-opt %s -p hip-resolve-memref-dims --split-input-file | filecheck %s
// Idempotent: a second run changes nothing.
// RUN: xhip-opt %s -p hip-resolve-memref-dims --split-input-file | xhip-opt - -p hip-resolve-memref-dims --split-input-file | filecheck %s
// RUN: xhip-opt %s -p hip-resolve-memref-dims --split-input-file | filecheck %s --check-prefix=GONE

// Seed 003 Pass 3: allocations sized by memref.dim of earlier allocations. Every
// size reaches the dims of the argument, so equal extents are one SSA value.
func.func @alloc_chain(%ctx: !hip.context, %x: memref<?x?x64xf32>) -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %dim = memref.dim %x, %c0 : memref<?x?x64xf32>
  %dim_0 = memref.dim %x, %c1 : memref<?x?x64xf32>
  %alloc = memref.alloc(%dim, %dim_0) : memref<?x?x64xf32>
  %dim_1 = memref.dim %alloc, %c0 : memref<?x?x64xf32>
  %dim_2 = memref.dim %alloc, %c1 : memref<?x?x64xf32>
  %alloc_3 = memref.alloc(%dim_1, %dim_2) : memref<?x64x?xf32>
  %dim_4 = memref.dim %alloc_3, %c2 : memref<?x64x?xf32>
  %dim_5 = memref.dim %alloc_3, %c1 : memref<?x64x?xf32>
  %out = hip.alloc_output(%ctx, %dim_1, %dim_2, %dim_4) {out_idx = 0 : i64} : memref<?x?x?xf32>
  %dim_6 = memref.dim %out, %c2 : memref<?x?x?xf32>
  func.return %dim_4, %dim_5, %dim_6 : index, index, index
}

// CHECK-LABEL: func.func @alloc_chain
// CHECK:         %[[B:.*]] = memref.dim %x, %c0 : memref<?x?x64xf32>
// CHECK-NEXT:    %[[S:.*]] = memref.dim %x, %c1 : memref<?x?x64xf32>
// CHECK-NEXT:    %{{.*}} = memref.alloc(%[[B]], %[[S]]) : memref<?x?x64xf32>
// CHECK-NEXT:    %{{.*}} = memref.alloc(%[[B]], %[[S]]) : memref<?x64x?xf32>
// CHECK-NEXT:    %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %out = hip.alloc_output(%ctx, %[[B]], %[[S]], %[[S]]) {out_idx = 0 : i64} : memref<?x?x?xf32>
// CHECK-NEXT:    func.return %[[S]], %[[C64]], %[[S]] : index, index, index

// -----

// Through views: cast, subview (static, dynamic and rank-reducing sizes),
// expand_shape, collapse_shape (a product), reinterpret_cast and view sizes.
func.func @views(%x: memref<?x?xf32>, %n: index, %m: index, %bytes: memref<?xi8>) -> (index, index, index, index, index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cast = "memref.cast"(%x) : (memref<?x?xf32>) -> memref<?x?xf32>
  %d_cast = memref.dim %cast, %c1 : memref<?x?xf32>
  %sub = memref.subview %x[0, 0] [4, %n] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1]>>
  %d_sub_static = memref.dim %sub, %c0 : memref<?x?xf32, strided<[?, 1]>>
  %d_sub = memref.dim %sub, %c1 : memref<?x?xf32, strided<[?, 1]>>
  %row = memref.subview %x[0, 0] [1, %m] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1]>>
  %d_row = memref.dim %row, %c0 : memref<?xf32, strided<[1]>>
  %flat = memref.alloc(%n) : memref<?xf32>
  %exp = memref.expand_shape %flat [[0, 1]] output_shape [%m, 8] : memref<?xf32> into memref<?x8xf32>
  %d_exp = memref.dim %exp, %c0 : memref<?x8xf32>
  %col = memref.collapse_shape %x [[0, 1]] : memref<?x?xf32> into memref<?xf32>
  %d_col = memref.dim %col, %c0 : memref<?xf32>
  %re = memref.reinterpret_cast %flat to offset: [0], sizes: [%m, 2], strides: [2, 1] : memref<?xf32> to memref<?x2xf32>
  %d_re = memref.dim %re, %c0 : memref<?x2xf32>
  %view = memref.view %bytes[%c0][%n, %m] : memref<?xi8> to memref<?x?xf32>
  %d_view = memref.dim %view, %c1 : memref<?x?xf32>
  func.return %d_cast, %d_sub_static, %d_sub, %d_row, %d_exp, %d_col, %d_re, %d_view : index, index, index, index, index, index, index, index
}

// CHECK-LABEL: func.func @views
// CHECK:         %d_cast = memref.dim %x, %{{.*}} : memref<?x?xf32>
// CHECK:         %d_sub_static = arith.constant 4 : index
// CHECK:         %[[X0:.*]] = memref.dim %x, %{{.*}} : memref<?x?xf32>
// CHECK:         %[[X1:.*]] = memref.dim %x, %{{.*}} : memref<?x?xf32>
// CHECK-NEXT:    %d_col = arith.muli %[[X0]], %[[X1]] : index
// CHECK:         func.return %d_cast, %d_sub_static, %n, %m, %m, %d_col, %m, %m :
// No dim of a view is left.
// GONE-NOT:      memref.dim %{{(cast|sub|row|exp|col|re|view)}},

// -----

// memref.dim of an argument stays (it is the root); a runtime index is left alone.
func.func @roots(%x: memref<?x?xf32>, %i: index) -> (index, index) {
  %c0 = arith.constant 0 : index
  %a = memref.dim %x, %c0 : memref<?x?xf32>
  %b = memref.dim %x, %i : memref<?x?xf32>
  func.return %a, %b : index, index
}

// CHECK-LABEL: func.func @roots
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.dim %x, %c0 : memref<?x?xf32>
// CHECK-NEXT:    %b = memref.dim %x, %i : memref<?x?xf32>
// CHECK-NEXT:    func.return %a, %b : index, index
