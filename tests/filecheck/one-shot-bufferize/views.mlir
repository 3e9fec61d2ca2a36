// RUN: xhip-opt %s -p one-shot-bufferize --split-input-file | filecheck %s

// extract_slice is a subview with a strided layout (rank-reducing ones drop unit
// dims); a DPS op reads the strided view directly.
func.func @slices(%ctx: !hip.context, %x: tensor<?x?xi64>, %n: index) -> tensor<?xi64> {
  %row = tensor.extract_slice %x[0, 1] [%n, 1] [1, 1] : tensor<?x?xi64> to tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?xi64>
  %y = hip.neg(%ctx) ins(%row : tensor<?xi64>) outs(%e : tensor<?xi64>) -> tensor<?xi64>
  func.return %y : tensor<?xi64>
}
// CHECK-LABEL: func.func @slices
// CHECK-NEXT:    %[[ROW:.*]] = memref.subview %x[0, 1] [%n, 1] [1, 1] : memref<?x?xi64> to memref<?xi64, strided<[?], offset: 1>>
// CHECK-NEXT:    %[[Y:.*]] = memref.alloc(%n) {alignment = 64 : i64} : memref<?xi64>
// CHECK-NEXT:    hip.neg(%ctx) ins(%[[ROW]] : memref<?xi64, strided<[?], offset: 1>>) outs(%[[Y]] : memref<?xi64>)
// CHECK-NEXT:    func.return %[[Y]]

// -----

// Static slices keep static strides and offsets.
func.func @static_slice(%ctx: !hip.context, %x: tensor<4x8xf32>) -> tensor<2x3xf32> {
  %s = tensor.extract_slice %x[1, 2] [2, 3] [1, 2] : tensor<4x8xf32> to tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %y = hip.relu(%ctx) ins(%s : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
// CHECK-LABEL: func.func @static_slice
// CHECK-NEXT:    %[[S:.*]] = memref.subview %x[1, 2] [2, 3] [1, 2] : memref<4x8xf32> to memref<2x3xf32, strided<[8, 2], offset: 10>>
// CHECK-NEXT:    %[[Y:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
// CHECK-NEXT:    hip.relu(%ctx) ins(%[[S]] : memref<2x3xf32, strided<[8, 2], offset: 10>>)

// -----

// Reshapes of contiguous buffers are views; a collapse of a strided view copies it
// into a fresh identity-layout buffer first (sized by the slice's own sizes).
func.func @reshapes(%ctx: !hip.context, %x: tensor<?x?x64xf32>, %b: index, %s: index) -> (tensor<?x2x32xf32>, tensor<?xf32>) {
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x64xf32> into tensor<?x64xf32>
  %bs = arith.muli %b, %s : index
  %heads = tensor.expand_shape %flat [[0], [1, 2]] output_shape [%bs, 2, 32] : tensor<?x64xf32> into tensor<?x2x32xf32>
  %part = tensor.extract_slice %x[0, 0, 0] [%b, %s, 32] [1, 1, 1] : tensor<?x?x64xf32> to tensor<?x?x32xf32>
  %all = tensor.collapse_shape %part [[0, 1, 2]] : tensor<?x?x32xf32> into tensor<?xf32>
  func.return %heads, %all : tensor<?x2x32xf32>, tensor<?xf32>
}
// CHECK-LABEL: func.func @reshapes
// CHECK-NEXT:    %[[FLAT:.*]] = memref.collapse_shape %x {{\[\[}}0 : i64, 1 : i64], [2 : i64]] : memref<?x?x64xf32> into memref<?x64xf32>
// CHECK-NEXT:    %[[BS:.*]] = arith.muli %b, %s : index
// CHECK-NEXT:    %[[HEADS:.*]] = memref.expand_shape %[[FLAT]] {{\[\[}}0 : i64], [1 : i64, 2 : i64]] output_shape [%[[BS]], 2, 32] : memref<?x64xf32> into memref<?x2x32xf32>
// CHECK-NEXT:    %[[PART:.*]] = memref.subview %x[0, 0, 0] [%b, %s, 32] [1, 1, 1] : memref<?x?x64xf32> to memref<?x?x32xf32, strided<[?, 64, 1]>>
// CHECK-NEXT:    %[[COPY:.*]] = memref.alloc(%b, %s) {alignment = 64 : i64} : memref<?x?x32xf32>
// CHECK-NEXT:    "memref.copy"(%[[PART]], %[[COPY]]) : (memref<?x?x32xf32, strided<[?, 64, 1]>>, memref<?x?x32xf32>) -> ()
// CHECK-NEXT:    %[[ALL:.*]] = memref.collapse_shape %[[COPY]] {{\[\[}}0 : i64, 1 : i64, 2 : i64]] : memref<?x?x32xf32> into memref<?xf32>
// CHECK-NEXT:    func.return %[[HEADS]], %[[ALL]]

// -----

// tensor.reshape by a shape known on the host (from_elements of index values): a
// collapse to 1-D and an expand by those values; the shape tensor needs no buffer.
// Static extents of the result type win over the shape operand's values.
func.func @reshape(%ctx: !hip.context, %x: tensor<?x2x?x32xf32>, %n: index, %t: index) -> tensor<?x?x32xf32> {
  %c32 = arith.constant 32 : index
  %shape = tensor.from_elements %n, %t, %c32 : tensor<3xindex>
  %r = tensor.reshape %x(%shape) : (tensor<?x2x?x32xf32>, tensor<3xindex>) -> tensor<?x?x32xf32>
  func.return %r : tensor<?x?x32xf32>
}
// CHECK-LABEL: func.func @reshape
// CHECK-NEXT:    %c32 = arith.constant 32 : index
// CHECK-NEXT:    %[[FLAT:.*]] = memref.collapse_shape %x {{\[\[}}0 : i64, 1 : i64, 2 : i64, 3 : i64]] : memref<?x2x?x32xf32> into memref<?xf32>
// CHECK-NEXT:    %[[R:.*]] = memref.expand_shape %[[FLAT]] {{\[\[}}0 : i64, 1 : i64, 2 : i64]] output_shape [%n, %t, 32] : memref<?xf32> into memref<?x?x32xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     memref.store

// -----

// A shape held in a device tensor is read with host loads (index_cast to index);
// reshapes to and from rank 0 reinterpret the single element.
func.func @reshape_loaded(%ctx: !hip.context, %x: tensor<6xf32>, %shape: tensor<2xi64>, %one: tensor<1x1xf32>, %no_dims: tensor<0xi64>) -> (tensor<?x3xf32>, tensor<f32>) {
  %r = tensor.reshape %x(%shape) : (tensor<6xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  %s = tensor.reshape %one(%no_dims) : (tensor<1x1xf32>, tensor<0xi64>) -> tensor<f32>
  func.return %r, %s : tensor<?x3xf32>, tensor<f32>
}
// CHECK-LABEL: func.func @reshape_loaded
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ROWS:.*]] = memref.load %shape[%[[C0]]] : memref<2xi64>
// CHECK-NEXT:    %[[ROWS_IDX:.*]] = arith.index_cast %[[ROWS]] : i64 to index
// CHECK-NEXT:    %[[R:.*]] = memref.expand_shape %x {{\[\[}}0 : i64, 1 : i64]] output_shape [%[[ROWS_IDX]], 3] : memref<6xf32> into memref<?x3xf32>
// CHECK-NEXT:    %[[S:.*]] = memref.reinterpret_cast %one to offset: [0], sizes: [], strides: [] : memref<1x1xf32> to memref<f32>
// CHECK-NEXT:    func.return %[[R]], %[[S]]

// -----

// insert_slice writes a copy of its destination (value semantics: %dest is still
// read afterwards), through a subview of the copy; tensor.cast is memref.cast.
func.func @insert(%ctx: !hip.context, %dest: tensor<4x8xf32>, %src: tensor<2x8xf32>) -> (tensor<4x8xf32>, tensor<?x8xf32>, tensor<4x8xf32>) {
  %r = tensor.insert_slice %src into %dest[2, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<4x8xf32>
  %c = tensor.cast %r : tensor<4x8xf32> to tensor<?x8xf32>
  func.return %r, %c, %dest : tensor<4x8xf32>, tensor<?x8xf32>, tensor<4x8xf32>
}
// CHECK-LABEL: func.func @insert
// CHECK-NEXT:    %[[R:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
// CHECK-NEXT:    "memref.copy"(%dest, %[[R]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT:    %[[W:.*]] = memref.subview %[[R]][2, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
// CHECK-NEXT:    "memref.copy"(%src, %[[W]]) : (memref<2x8xf32>, memref<2x8xf32, strided<[8, 1], offset: 16>>) -> ()
// CHECK-NEXT:    %[[C:.*]] = "memref.cast"(%[[R]]) : (memref<4x8xf32>) -> memref<?x8xf32>
// CHECK-NEXT:    func.return %[[R]], %[[C]], %dest

// -----

// A strided view returned from the function leaves as an identity-layout copy.
func.func @return_slice(%ctx: !hip.context, %x: tensor<?x?xf32>, %n: index) -> tensor<?x?xf32> {
  %s = tensor.extract_slice %x[0, 1] [%n, %n] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  func.return %s : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @return_slice
// CHECK-NEXT:    %[[S:.*]] = memref.subview %x[0, 1] [%n, %n] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: 1>>
// CHECK-NEXT:    %[[C:.*]] = memref.alloc(%n, %n) {alignment = 64 : i64} : memref<?x?xf32>
// CHECK-NEXT:    "memref.copy"(%[[S]], %[[C]])
// CHECK-NEXT:    func.return %[[C]] : memref<?x?xf32>

// -----

// An expand of a strided slice is a view: each split dim strides as its source dim, the
// dims after it in the group by their extents (GPT-2's heads of one third of its QKV
// projection); a stride that a dynamic extent decides is `?` (the run-time view knows it).
func.func @heads_of_a_slice(%ctx: !hip.context, %x: tensor<?x192xf32>) -> tensor<?x4x16xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x192xf32>
  %rows = tensor.extract_slice %x[0, 64] [%b, 64] [1, 1] : tensor<?x192xf32> to tensor<?x64xf32>
  %heads = tensor.expand_shape %rows [[0], [1, 2]] output_shape [%b, 4, 16] : tensor<?x64xf32> into tensor<?x4x16xf32>
  %e = tensor.empty(%b) : tensor<?x4x16xf32>
  %y = hip.neg(%ctx) ins(%heads : tensor<?x4x16xf32>) outs(%e : tensor<?x4x16xf32>) -> tensor<?x4x16xf32>
  func.return %y : tensor<?x4x16xf32>
}
// CHECK-LABEL: func.func @heads_of_a_slice
// CHECK:         %[[ROWS:.*]] = memref.subview %x[0, 64] [%{{.*}}, 64] [1, 1] : memref<?x192xf32> to memref<?x64xf32, strided<[192, 1], offset: 64>>
// CHECK-NEXT:    %[[HEADS:.*]] = memref.expand_shape %[[ROWS]] {{\[\[}}0 : i64], [1 : i64, 2 : i64]] output_shape [%{{.*}}, 4, 16] : memref<?x64xf32, strided<[192, 1], offset: 64>> into memref<?x4x16xf32, strided<[192, 16, 1], offset: 64>>
// CHECK-NOT:     memref.copy
// CHECK:         hip.neg(%ctx) ins(%[[HEADS]] : memref<?x4x16xf32, strided<[192, 16, 1], offset: 64>>)

// -----

func.func @dynamic_inner_extent(%ctx: !hip.context, %x: tensor<?x192xf32>, %n: index) -> tensor<?x?x64xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x192xf32>
  %rows = tensor.extract_slice %x[0, 64] [%b, 64] [1, 1] : tensor<?x192xf32> to tensor<?x64xf32>
  %heads = tensor.expand_shape %rows [[0, 1], [2]] output_shape [%n, %n, 64] : tensor<?x64xf32> into tensor<?x?x64xf32>
  %e = tensor.empty(%n, %n) : tensor<?x?x64xf32>
  %y = hip.neg(%ctx) ins(%heads : tensor<?x?x64xf32>) outs(%e : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  func.return %y : tensor<?x?x64xf32>
}
// CHECK-LABEL: func.func @dynamic_inner_extent
// CHECK:         %[[ROWS:.*]] = memref.subview %x
// CHECK-NEXT:    memref.expand_shape %[[ROWS]] {{.*}} : memref<?x64xf32, strided<[192, 1], offset: 64>> into memref<?x?x64xf32, strided<[?, 192, 1], offset: 64>>
// CHECK-NOT:     memref.copy

// -----

// A collapse of a strided slice is a view where the merged dims lie end to end (whole
// rows of 32, strided [128, 32, 1] -> [128, 1]); half rows leave a gap between the dims,
// so that slice is copied first.
func.func @collapse_of_slices(%ctx: !hip.context, %x: tensor<?x4x32xf32>) -> (tensor<?x64xf32>, tensor<?x32xf32>) {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x4x32xf32>
  %rows = tensor.extract_slice %x[0, 1, 0] [%b, 2, 32] [1, 1, 1] : tensor<?x4x32xf32> to tensor<?x2x32xf32>
  %whole = tensor.collapse_shape %rows [[0], [1, 2]] : tensor<?x2x32xf32> into tensor<?x64xf32>
  %halves = tensor.extract_slice %x[0, 0, 0] [%b, 2, 16] [1, 1, 1] : tensor<?x4x32xf32> to tensor<?x2x16xf32>
  %gapped = tensor.collapse_shape %halves [[0], [1, 2]] : tensor<?x2x16xf32> into tensor<?x32xf32>
  %e = tensor.empty(%b) : tensor<?x64xf32>
  %y = hip.neg(%ctx) ins(%whole : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%b) : tensor<?x32xf32>
  %z = hip.neg(%ctx) ins(%gapped : tensor<?x32xf32>) outs(%e2 : tensor<?x32xf32>) -> tensor<?x32xf32>
  func.return %y, %z : tensor<?x64xf32>, tensor<?x32xf32>
}
// CHECK-LABEL: func.func @collapse_of_slices
// CHECK:         %[[ROWS:.*]] = memref.subview %x[0, 1, 0] {{.*}} to memref<?x2x32xf32, strided<[128, 32, 1], offset: 32>>
// CHECK-NEXT:    %[[WHOLE:.*]] = memref.collapse_shape %[[ROWS]] {{\[\[}}0 : i64], [1 : i64, 2 : i64]] : memref<?x2x32xf32, strided<[128, 32, 1], offset: 32>> into memref<?x64xf32, strided<[128, 1], offset: 32>>
// CHECK-NEXT:    %[[HALVES:.*]] = memref.subview %x[0, 0, 0] {{.*}} to memref<?x2x16xf32, strided<[128, 32, 1]>>
// CHECK-NEXT:    %[[DENSE:.*]] = memref.alloc
// CHECK-NEXT:    "memref.copy"(%[[HALVES]], %[[DENSE]])
// CHECK-NEXT:    memref.collapse_shape %[[DENSE]] {{.*}} : memref<?x2x16xf32> into memref<?x32xf32>
// CHECK:         hip.neg(%ctx) ins(%[[WHOLE]] : memref<?x64xf32, strided<[128, 1], offset: 32>>)
