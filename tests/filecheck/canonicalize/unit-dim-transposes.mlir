// RUN: xhip-opt %s --split-input-file --verify-each -p canonicalize | filecheck %s
// RUN: xhip-opt %s --split-input-file --verify-each -p canonicalize,one-shot-bufferize | filecheck %s --check-prefix=BUF

// A decoder step's head transpose of its one new token, [b, 1, h, d] -> [b, h, 1, d]:
// the dims that are not 1 keep their order, so it is a reshape (both sides viewed as
// [b, h, d]); bufferized, a strided view of the split projection that its reader reads: no kernel, no copy.
func.func @new_token_heads(%ctx: !hip.context, %x: tensor<?x1x192xf32>) -> tensor<?x4x1x16xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x1x192xf32>
  %k_rows = tensor.extract_slice %x[0, 0, 64] [%b, 1, 64] [1, 1, 1] : tensor<?x1x192xf32> to tensor<?x1x64xf32>
  %k_split = tensor.expand_shape %k_rows [[0], [1], [2, 3]] output_shape [%b, 1, 4, 16] : tensor<?x1x64xf32> into tensor<?x1x4x16xf32>
  %e = tensor.empty(%b) : tensor<?x4x1x16xf32>
  %k = hip.transpose(%ctx) ins(%k_split : tensor<?x1x4x16xf32>) outs(%e : tensor<?x4x1x16xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x4x1x16xf32>
  %read = hip.neg(%ctx) ins(%k : tensor<?x4x1x16xf32>) outs(%e : tensor<?x4x1x16xf32>) -> tensor<?x4x1x16xf32>
  func.return %read : tensor<?x4x1x16xf32>
}
// CHECK-LABEL: func.func @new_token_heads
// CHECK-NOT:     hip.transpose
// CHECK:         %[[SPLIT:.*]] = tensor.expand_shape %{{.*}} output_shape [%[[B:.*]], 1, 4, 16]
// CHECK:         %[[HEADS:.*]] = tensor.collapse_shape %[[SPLIT]] {{\[\[}}0 : i64], [1 : i64, 2 : i64], [3 : i64]] : tensor<?x1x4x16xf32> into tensor<?x4x16xf32>
// CHECK-NEXT:    %[[K:.*]] = tensor.expand_shape %[[HEADS]] {{\[\[}}0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [%[[B]], 4, 1, 16] : tensor<?x4x16xf32> into tensor<?x4x1x16xf32>
// CHECK-NEXT:    hip.neg(%{{.*}}) ins(%[[K]] :

// BUF-LABEL: func.func @new_token_heads
// BUF-NOT:     memref.copy
// BUF:         memref.collapse_shape %{{.*}} : memref<?x1x4x16xf32, strided<[192, 192, 16, 1], offset: 64>> into memref<?x4x16xf32, strided<[192, 16, 1], offset: 64>>
// BUF-NEXT:    memref.expand_shape %{{.*}} : memref<?x4x16xf32, strided<[192, 16, 1], offset: 64>> into memref<?x4x1x16xf32, strided<[192, 16, 16, 1], offset: 64>>
// BUF-NEXT:    memref.alloc
// BUF-NEXT:    hip.neg(%{{.*}}) ins(%{{.*}} : memref<?x4x1x16xf32, strided<[192, 16, 16, 1], offset: 64>>)

// -----

// Trailing unit dims join the last group; the non-unit dims swap here: a real transpose
// stays, and so does one with no unit dim.
func.func @kept(%ctx: !hip.context, %x: tensor<2x1x3xf32>, %y: tensor<2x3xf32>) -> (tensor<3x1x2xf32>, tensor<3x2xf32>, tensor<2x3x1xf32>) {
  %e = tensor.empty() : tensor<3x1x2xf32>
  %t = hip.transpose(%ctx) ins(%x : tensor<2x1x3xf32>) outs(%e : tensor<3x1x2xf32>) {perm = array<i64: 2, 1, 0>} -> tensor<3x1x2xf32>
  %e2 = tensor.empty() : tensor<3x2xf32>
  %t2 = hip.transpose(%ctx) ins(%y : tensor<2x3xf32>) outs(%e2 : tensor<3x2xf32>) {perm = array<i64: 1, 0>} -> tensor<3x2xf32>
  %e3 = tensor.empty() : tensor<2x3x1xf32>
  %t3 = hip.transpose(%ctx) ins(%x : tensor<2x1x3xf32>) outs(%e3 : tensor<2x3x1xf32>) {perm = array<i64: 0, 2, 1>} -> tensor<2x3x1xf32>
  func.return %t, %t2, %t3 : tensor<3x1x2xf32>, tensor<3x2xf32>, tensor<2x3x1xf32>
}
// CHECK-LABEL: func.func @kept
// CHECK:         hip.transpose(%{{.*}}) ins(%x : tensor<2x1x3xf32>) outs(%{{.*}} : tensor<3x1x2xf32>)
// CHECK:         hip.transpose(%{{.*}}) ins(%y : tensor<2x3xf32>)
// CHECK-NOT:     hip.transpose
// CHECK:         tensor.collapse_shape %x {{\[\[}}0 : i64], [1 : i64, 2 : i64]] : tensor<2x1x3xf32> into tensor<2x3xf32>
// CHECK-NEXT:    tensor.expand_shape %{{.*}} {{\[\[}}0 : i64], [1 : i64, 2 : i64]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
