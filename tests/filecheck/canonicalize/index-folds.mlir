// RUN: xhip-opt %s -p canonicalize --split-input-file | filecheck %s

// tensor.dim of tensor.empty is the empty's size operand; a static dim is a constant.
func.func @dim_of_empty(%a: index, %b: index) -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.empty(%a, %b) : tensor<?x4x?xf32>
  %d0 = tensor.dim %e, %c0 : tensor<?x4x?xf32>
  %d1 = tensor.dim %e, %c1 : tensor<?x4x?xf32>
  %d2 = tensor.dim %e, %c2 : tensor<?x4x?xf32>
  func.return %d0, %d1, %d2 : index, index, index
}
// CHECK-LABEL: func.func @dim_of_empty(%a: index, %b: index)
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    func.return %a, %[[C4]], %b : index, index, index

// -----

// memref.dim of memref.alloc, and expand_shape output sizes.
func.func @dim_of_alloc_and_expand(%n: index, %t: tensor<?xf32>, %p: index, %q: index) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.alloc(%n) : memref<8x?xf32>
  %d = memref.dim %m, %c1 : memref<8x?xf32>
  %x = tensor.expand_shape %t [[0, 1]] output_shape [%p, %q] : tensor<?xf32> into tensor<?x?xf32>
  %e = tensor.dim %x, %c0 : tensor<?x?xf32>
  func.return %d, %e : index, index
}
// CHECK-LABEL: func.func @dim_of_alloc_and_expand
// CHECK:         func.return %n, %p : index, index

// -----

// Unsigned/signed min, max, division and comparison of constants fold; division by zero stays.
func.func @integer_folds() -> (index, index, index, index, index, i1, i1, index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %cm1 = arith.constant -1 : index
  %max = arith.maxui %c3, %c7 : index
  %min = arith.minsi %cm1, %c3 : index
  %div = arith.divui %c7, %c3 : index
  %cdiv = arith.ceildivsi %c7, %c3 : index
  %maxu = arith.maxui %cm1, %c3 : index
  %lt = arith.cmpi ult, %c3, %c7 : index
  %slt = arith.cmpi slt, %c3, %cm1 : index
  %by0 = arith.divui %c7, %c0 : index
  func.return %max, %min, %div, %cdiv, %maxu, %lt, %slt, %by0 : index, index, index, index, index, i1, i1, index
}
// CHECK-LABEL: func.func @integer_folds
// CHECK:         %max = arith.constant 7 : index
// CHECK-NEXT:    %min = arith.constant -1 : index
// CHECK-NEXT:    %div = arith.constant 2 : index
// CHECK-NEXT:    %cdiv = arith.constant 3 : index
// CHECK-NEXT:    %maxu = arith.constant -1 : index
// CHECK-NEXT:    %lt = arith.constant true
// CHECK-NEXT:    %slt = arith.constant false
// CHECK-NEXT:    %by0 = arith.divui %c7, %c0 : index
// CHECK-NEXT:    func.return %max, %min, %div, %cdiv, %maxu, %lt, %slt, %by0

// -----

// A select on a folded comparison disappears; so do casts of constants and
// index -> i64 -> index round trips; max(x, x) is x.
func.func @select_and_casts(%a: index, %b: index) -> (index, i32, index, index) {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %eq = arith.cmpi eq, %c5, %c1 : index
  %sel = arith.select %eq, %a, %b : index
  %i = arith.index_cast %c5 : index to i32
  %w = arith.index_cast %a : index to i64
  %back = arith.index_cast %w : i64 to index
  %m = arith.maxui %b, %b : index
  func.return %sel, %i, %back, %m : index, i32, index, index
}
// CHECK-LABEL: func.func @select_and_casts(%a: index, %b: index)
// CHECK-NEXT:    %[[I:.*]] = arith.constant 5 : i32
// CHECK-NEXT:    func.return %b, %[[I]], %a, %b : index, i32, index, index

// -----

// A narrowing round trip is not lossless and stays.
func.func @narrowing_cast_stays(%a: index) -> index {
  %n = arith.index_cast %a : index to i32
  %back = arith.index_cast %n : i32 to index
  func.return %back : index
}
// CHECK-LABEL: func.func @narrowing_cast_stays
// CHECK-NEXT:    arith.index_cast %a : index to i32
// CHECK-NEXT:    arith.index_cast

// -----

// tensor.dim of a destination-passing result is the dim of its init, which
// folds further to the init's size operand.
func.func @dim_of_dps_result(%ctx: !hip.context, %x: tensor<?x8xf32>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %init = tensor.empty(%n) : tensor<?x8xf32>
  %r = hip.relu(%ctx) ins(%x : tensor<?x8xf32>) outs(%init : tensor<?x8xf32>) -> tensor<?x8xf32>
  %d = tensor.dim %r, %c0 : tensor<?x8xf32>
  func.return %d : index
}
// CHECK-LABEL: func.func @dim_of_dps_result
// CHECK-NEXT:    func.return %n : index

// -----

// A dim of an argument whose onnx.dim_params symbol an earlier argument dim
// already names is read from that first dim (tensor.dim and memref.dim alike),
// so each symbol is one SSA value; a static dim or an unnamed `?` stays.
func.func @dim_of_shared_symbol(%a: memref<?x?xf32> {onnx.dim_params = "0:batch,1:seq"},
                                %b: memref<?x?x4xf32> {onnx.dim_params = "0:seq,1:batch,2:batch"},
                                %c: tensor<?x?xf32> {onnx.dim_params = "0:seq"}) -> (index, index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b0 = memref.dim %b, %c0 : memref<?x?x4xf32>
  %b1 = memref.dim %b, %c1 : memref<?x?x4xf32>
  %b2 = memref.dim %b, %c2 : memref<?x?x4xf32>
  %c_0 = tensor.dim %c, %c0 : tensor<?x?xf32>
  %c_1 = tensor.dim %c, %c1 : tensor<?x?xf32>
  func.return %b0, %b1, %b2, %c_0, %c_1 : index, index, index, index, index
}
// CHECK-LABEL: func.func @dim_of_shared_symbol
// CHECK-SAME:    (%[[A:.*]]: memref<?x?xf32> {{.*}}, %{{.*}}: memref<?x?x4xf32> {{.*}}, %[[C:.*]]: tensor<?x?xf32> {{.*}})
// CHECK:         %c1 = arith.constant 1 : index
// CHECK-NEXT:    %[[K1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[B0:.*]] = memref.dim %[[A]], %[[K1]] : memref<?x?xf32>
// CHECK-NEXT:    %[[K0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[B1:.*]] = memref.dim %[[A]], %[[K0]] : memref<?x?xf32>
// CHECK-NEXT:    %[[B2:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[K1_AGAIN:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[SEQ:.*]] = memref.dim %[[A]], %[[K1_AGAIN]] : memref<?x?xf32>
// CHECK-NEXT:    %[[C_1:.*]] = tensor.dim %[[C]], %{{.*}} : tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[B0]], %[[B1]], %[[B2]], %[[SEQ]], %[[C_1]] : index, index, index, index, index
