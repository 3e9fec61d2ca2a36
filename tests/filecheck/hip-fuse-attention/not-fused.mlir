// RUN: xhip-opt %s --split-input-file -p hip-fuse-attention | filecheck %s

// Scores with a second use (returned as well) must be stored: nothing is fused.

func.func @scores_second_use(%ctx: !hip.context, %q: tensor<?x?x64xf32>, %kt: tensor<?x64x?xf32>, %v: tensor<?x?x64xf32>, %e_s: tensor<?x?x?xf32>, %e_y: tensor<?x?x64xf32>) -> (tensor<?x?x64xf32>, tensor<?x?x?xf32>) {
  %s = hip.matmul(%ctx) ins(%q, %kt : tensor<?x?x64xf32>, tensor<?x64x?xf32>) outs(%e_s : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %p = hip.softmax(%ctx) ins(%s : tensor<?x?x?xf32>) outs(%e_s : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<?x?x?xf32>, tensor<?x?x64xf32>) outs(%e_y : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  func.return %y, %s : tensor<?x?x64xf32>, tensor<?x?x?xf32>
}
// CHECK-LABEL: func.func @scores_second_use
// CHECK-NOT:     hip.attention
// CHECK:         hip.matmul
// CHECK-NEXT:    hip.softmax
// CHECK-NEXT:    hip.matmul

// -----

// A scale that is a tensor (one per key), not a scalar: fusing would need it per
// element, so the Mul stays and with it the scores.

func.func @tensor_scale(%ctx: !hip.context, %q: tensor<2x8x16xf32>, %kt: tensor<2x16x8xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %e_s = tensor.empty() : tensor<2x8x8xf32>
  %e_y = tensor.empty() : tensor<2x8x16xf32>
  %s = hip.matmul(%ctx) ins(%q, %kt : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%e_s : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %m = hip.mul(%ctx) ins(%s, %c : tensor<2x8x8xf32>, tensor<8xf32>) outs(%e_s : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %p = hip.softmax(%ctx) ins(%m : tensor<2x8x8xf32>) outs(%e_s : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32>) outs(%e_y : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  func.return %y : tensor<2x8x16xf32>
}
// CHECK-LABEL: func.func @tensor_scale
// CHECK-NOT:     hip.attention
// CHECK:         hip.mul
// CHECK-NEXT:    hip.softmax

// -----

// Softmax over another axis than the keys' is not attention.

func.func @softmax_axis(%ctx: !hip.context, %q: tensor<2x8x16xf32>, %kt: tensor<2x16x8xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %e_s = tensor.empty() : tensor<2x8x8xf32>
  %e_y = tensor.empty() : tensor<2x8x16xf32>
  %s = hip.matmul(%ctx) ins(%q, %kt : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%e_s : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %p = hip.softmax(%ctx) ins(%s : tensor<2x8x8xf32>) outs(%e_s : tensor<2x8x8xf32>) {axis = 1 : i64} -> tensor<2x8x8xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32>) outs(%e_y : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  func.return %y : tensor<2x8x16xf32>
}
// CHECK-LABEL: func.func @softmax_axis
// CHECK-NOT:     hip.attention

// -----

// A mask that would broadcast the scores to a bigger shape ([8, 8] scores + a
// [2, 8, 8] mask) changes the softmax's shape: not fused.

func.func @mask_grows_scores(%ctx: !hip.context, %q: tensor<8x16xf32>, %kt: tensor<16x8xf32>, %v: tensor<8x16xf32>, %mask: tensor<2x8x8xf32>) -> tensor<2x8x16xf32> {
  %e_s = tensor.empty() : tensor<8x8xf32>
  %e_m = tensor.empty() : tensor<2x8x8xf32>
  %e_y = tensor.empty() : tensor<2x8x16xf32>
  %s = hip.matmul(%ctx) ins(%q, %kt : tensor<8x16xf32>, tensor<16x8xf32>) outs(%e_s : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = hip.add(%ctx) ins(%s, %mask : tensor<8x8xf32>, tensor<2x8x8xf32>) outs(%e_m : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %p = hip.softmax(%ctx) ins(%m : tensor<2x8x8xf32>) outs(%e_m : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<2x8x8xf32>, tensor<8x16xf32>) outs(%e_y : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  func.return %y : tensor<2x8x16xf32>
}
// CHECK-LABEL: func.func @mask_grows_scores
// CHECK-NOT:     hip.attention
// CHECK:         hip.add

// -----

// Memref mode (a compiled artifact fed back): buffers are chosen, nothing changes.

func.func @memref_mode(%ctx: !hip.context, %q: memref<2x8x16xf32>, %kt: memref<2x16x8xf32>, %v: memref<2x8x16xf32>, %s: memref<2x8x8xf32>, %y: memref<2x8x16xf32>) {
  hip.matmul(%ctx) ins(%q, %kt : memref<2x8x16xf32>, memref<2x16x8xf32>) outs(%s : memref<2x8x8xf32>)
  hip.softmax(%ctx) ins(%s : memref<2x8x8xf32>) outs(%s : memref<2x8x8xf32>)
  hip.matmul(%ctx) ins(%s, %v : memref<2x8x8xf32>, memref<2x8x16xf32>) outs(%y : memref<2x8x16xf32>)
  func.return
}
// CHECK-LABEL: func.func @memref_mode
// CHECK-NOT:     hip.attention

// -----

// A softmax that hip-fuse-softmax already gave a scale or a bias is not matched (the
// pass runs before it in pipelines/default.yaml).

func.func @softmax_with_scale_and_bias(%ctx: !hip.context, %q: tensor<2x8x16xf32>, %kt: tensor<2x16x8xf32>, %v: tensor<2x8x16xf32>, %m: tensor<2x8x8xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>) {
  %es = tensor.empty() : tensor<2x8x8xf32>
  %eo = tensor.empty() : tensor<2x8x16xf32>
  %s = hip.matmul(%ctx) ins(%q, %kt : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%es : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %p = hip.softmax(%ctx) ins(%s : tensor<2x8x8xf32>) outs(%es : tensor<2x8x8xf32>) {scale = 2.500000e-01 : f64} -> tensor<2x8x8xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32>) outs(%eo : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %s2 = hip.matmul(%ctx) ins(%q, %kt : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%es : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %p2 = hip.softmax(%ctx) ins(%s2, %m : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%es : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %y2 = hip.matmul(%ctx) ins(%p2, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32>) outs(%eo : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  func.return %y, %y2 : tensor<2x8x16xf32>, tensor<2x8x16xf32>
}
// CHECK-LABEL: func.func @softmax_with_scale_and_bias
// CHECK-NOT:     hip.attention
// CHECK:         hip.softmax
// CHECK:         hip.softmax
// CHECK-NOT:     hip.attention

// -----

// MatMuls that read B transposed (trans_b, a weight read through its Transpose) are not matched.

func.func @trans_b(%ctx: !hip.context, %q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %es = tensor.empty() : tensor<2x8x8xf32>
  %eo = tensor.empty() : tensor<2x8x16xf32>
  %s = hip.matmul(%ctx) ins(%q, %k : tensor<2x8x16xf32>, tensor<2x8x16xf32>) outs(%es : tensor<2x8x8xf32>) {trans_b = true} -> tensor<2x8x8xf32>
  %p = hip.softmax(%ctx) ins(%s : tensor<2x8x8xf32>) outs(%es : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32>) outs(%eo : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  func.return %y : tensor<2x8x16xf32>
}
// CHECK-LABEL: func.func @trans_b
// CHECK-NOT:     hip.attention
// CHECK:         hip.matmul{{.*}}trans_b = true
