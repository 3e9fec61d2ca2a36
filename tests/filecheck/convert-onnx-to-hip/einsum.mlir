// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file | filecheck %s

// Attention scores: the batch labels b and h stay, d is contracted: K is transposed to
// [b, h, d, j] and one batched matmul computes [b, h, i, j] (no reshape: every group is one dim).
func.func @scores(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>) -> tensor<?x12x?x?xf32> {
  %s = "onnx.Einsum"(%q, %k) <{equation = "bhid,bhjd->bhij"}> : (tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>) -> tensor<?x12x?x?xf32>
  func.return %s : tensor<?x12x?x?xf32>
}
// CHECK-LABEL: func.func @scores
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[Q:.*]]: tensor<?x12x?x64xf32>, %[[K:.*]]: tensor<?x12x?x64xf32>)
// CHECK:         %[[KT:.*]] = hip.transpose(%[[CTX]]) ins(%[[K]] : tensor<?x12x?x64xf32>) outs(%{{.*}} : tensor<?x12x64x?xf32>) {perm = array<i64: 0, 1, 3, 2>}
// CHECK:         %[[S:.*]] = hip.matmul(%[[CTX]]) ins(%[[Q]], %[[KT]] : tensor<?x12x?x64xf32>, tensor<?x12x64x?xf32>) outs(%{{.*}} : tensor<?x12x?x?xf32>)
// CHECK-NEXT:    func.return %[[S]]

// -----

// A sum over one label and a transpose of the rest: ReduceSum, then the output's order.
func.func @sum_then_transpose(%x: tensor<?x3x5xf32>) -> tensor<5x?xf32> {
  %s = "onnx.Einsum"(%x) <{equation = "bij->jb"}> : (tensor<?x3x5xf32>) -> tensor<5x?xf32>
  func.return %s : tensor<5x?xf32>
}
// CHECK-LABEL: func.func @sum_then_transpose
// CHECK:         %[[R:.*]] = hip.reduce_sum(%{{.*}}) ins(%{{.*}} : tensor<?x3x5xf32>) outs(%{{.*}} : tensor<?x5xf32>) {axes = array<i64: 1>, keepdims = false}
// CHECK:         %[[T:.*]] = hip.transpose(%{{.*}}) ins(%[[R]] : tensor<?x5xf32>) outs(%{{.*}} : tensor<5x?xf32>) {perm = array<i64: 1, 0>}
// CHECK-NEXT:    func.return %[[T]]

// -----

// A label repeated within one term is the diagonal: the two dims merged into one of n * n
// elements, sliced with step n + 1 (a view: no kernel).
func.func @diagonal(%x: tensor<4x4xf32>) -> tensor<4xf32> {
  %s = "onnx.Einsum"(%x) <{equation = "ii->i"}> : (tensor<4x4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
// CHECK-LABEL: func.func @diagonal
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64]] : tensor<4x4xf32> into tensor<16xf32>
// CHECK-NEXT:    %[[D:.*]] = tensor.extract_slice %[[FLAT]][0] [4] [5] : tensor<16xf32> to tensor<4xf32>
// CHECK-NEXT:    func.return %[[D]]
