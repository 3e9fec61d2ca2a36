// RUN: xhip-opt %s --split-input-file -p hip-fuse-attention | filecheck %s
// RUN: xhip-opt %s --split-input-file -p hip-fuse-attention,hip-fuse-attention | filecheck %s
// RUN: xhip-opt %s --split-input-file -p 'hip-fuse-attention{max-head-dim=32}' | filecheck %s --check-prefix=SMALL

// The seed model: q @ transpose(k) -> Mul by a scalar -> Softmax -> @ v. The Transpose
// folds into the op (k read as [.., Sk, D]), the scale into `scale`; the scores'
// [b, s, s] init, the kᵀ init and the constant are gone. A second run finds nothing.

func.func @seed(%ctx: !hip.context, %q: tensor<?x?x64xf32>, %k: tensor<?x?x64xf32>, %v: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %q, %c0 : tensor<?x?x64xf32>
  %s = tensor.dim %q, %c1 : tensor<?x?x64xf32>
  %scale = arith.constant dense<1.250000e-01> : tensor<f32>
  %e_out = tensor.empty(%b, %s) : tensor<?x?x64xf32>
  %e_kt = tensor.empty(%b, %s) : tensor<?x64x?xf32>
  %kt = hip.transpose(%ctx) ins(%k : tensor<?x?x64xf32>) outs(%e_kt : tensor<?x64x?xf32>) {perm = array<i64: 0, 2, 1>} -> tensor<?x64x?xf32>
  %e_s = tensor.empty(%b, %s, %s) : tensor<?x?x?xf32>
  %scores = hip.matmul(%ctx) ins(%q, %kt : tensor<?x?x64xf32>, tensor<?x64x?xf32>) outs(%e_s : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %scaled = hip.mul(%ctx) ins(%scores, %scale : tensor<?x?x?xf32>, tensor<f32>) outs(%e_s : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %p = hip.softmax(%ctx) ins(%scaled : tensor<?x?x?xf32>) outs(%e_s : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<?x?x?xf32>, tensor<?x?x64xf32>) outs(%e_out : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  func.return %y : tensor<?x?x64xf32>
}
// CHECK-LABEL: func.func @seed
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[Q:.*]]: tensor<?x?x64xf32>, %[[K:.*]]: tensor<?x?x64xf32>, %[[V:.*]]: tensor<?x?x64xf32>)
// CHECK-NOT:     arith.constant dense
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x64xf32>
// CHECK-NEXT:    %[[Y:.*]] = hip.attention(%[[CTX]]) ins(%[[Q]], %[[K]], %[[V]] : tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>) outs(%[[E]] : tensor<?x?x64xf32>) {scale = 1.250000e-01 : f64} -> tensor<?x?x64xf32>
// CHECK-NEXT:    func.return %[[Y]]
// SMALL-LABEL: func.func @seed
// SMALL-NOT:     hip.attention
// SMALL:         hip.softmax

// -----

// The torch exports (GPT-2, BERT, RoBERTa, Llama): q and kᵀ each scaled by sqrt(scale),
// kᵀ made by reshapes (no Transpose to fold: k_transposed), an additive mask shared by
// two layers (it stays, as the fourth input), the Where(IsNaN(p), 0, p) guard.

func.func @export(%ctx: !hip.context, %q: tensor<?x2x?x32xf32>, %kt: tensor<?x2x32x?xf32>, %v: tensor<?x2x?x32xf32>, %mask: tensor<?x1x?x?xf32>, %e_s: tensor<?x2x?x?xf32>, %e_b: tensor<?x2x?x?xi1>, %e_q: tensor<?x2x?x32xf32>, %e_k: tensor<?x2x32x?xf32>) -> (tensor<?x2x?x32xf32>, tensor<?x1x?x?xf32>) {
  %c = arith.constant dense<0.420448214> : tensor<f32>
  %zero = arith.constant dense<0.000000e+00> : tensor<f32>
  %qs = hip.mul(%ctx) ins(%q, %c : tensor<?x2x?x32xf32>, tensor<f32>) outs(%e_q : tensor<?x2x?x32xf32>) -> tensor<?x2x?x32xf32>
  %ks = hip.mul(%ctx) ins(%kt, %c : tensor<?x2x32x?xf32>, tensor<f32>) outs(%e_k : tensor<?x2x32x?xf32>) -> tensor<?x2x32x?xf32>
  %scores = hip.matmul(%ctx) ins(%qs, %ks : tensor<?x2x?x32xf32>, tensor<?x2x32x?xf32>) outs(%e_s : tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32>
  %masked = hip.add(%ctx) ins(%scores, %mask : tensor<?x2x?x?xf32>, tensor<?x1x?x?xf32>) outs(%e_s : tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32>
  %p = hip.softmax(%ctx) ins(%masked : tensor<?x2x?x?xf32>) outs(%e_s : tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32>
  %nan = hip.isnan(%ctx) ins(%p : tensor<?x2x?x?xf32>) outs(%e_b : tensor<?x2x?x?xi1>) -> tensor<?x2x?x?xi1>
  %guarded = hip.where(%ctx) ins(%nan, %zero, %p : tensor<?x2x?x?xi1>, tensor<f32>, tensor<?x2x?x?xf32>) outs(%e_s : tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32>
  %y = hip.matmul(%ctx) ins(%guarded, %v : tensor<?x2x?x?xf32>, tensor<?x2x?x32xf32>) outs(%e_q : tensor<?x2x?x32xf32>) -> tensor<?x2x?x32xf32>
  func.return %y, %mask : tensor<?x2x?x32xf32>, tensor<?x1x?x?xf32>
}
// CHECK-LABEL: func.func @export
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[Q:[^:]*]]: tensor<?x2x?x32xf32>, %[[KT:[^:]*]]: tensor<?x2x32x?xf32>, %[[V:[^:]*]]: tensor<?x2x?x32xf32>, %[[M:[^:]*]]: tensor<?x1x?x?xf32>, %{{.*}}, %{{.*}}, %[[EQ:[^:]*]]: tensor<?x2x?x32xf32>,
// CHECK-NEXT:    %[[Y:.*]] = hip.attention(%[[CTX]]) ins(%[[Q]], %[[KT]], %[[V]], %[[M]] : {{.*}}) outs(%[[EQ]] : tensor<?x2x?x32xf32>)
// CHECK-SAME:      {scale = 0.1767767{{[0-9]*}} : f64, mask_kind = "additive", k_transposed = true, zero_nan_rows = true}
// CHECK-NEXT:    func.return %[[Y]], %[[M]]

// -----

// Div by a scalar scales by its reciprocal; the mask may come first in the Add.

func.func @div_mask_first(%ctx: !hip.context, %q: tensor<4x16x8xf32>, %kt: tensor<4x8x16xf32>, %v: tensor<4x16x8xf32>, %mask: tensor<16x16xf32>) -> tensor<4x16x8xf32> {
  %c = arith.constant dense<4.000000e+00> : tensor<1xf32>
  %e_s = tensor.empty() : tensor<4x16x16xf32>
  %e_y = tensor.empty() : tensor<4x16x8xf32>
  %s = hip.matmul(%ctx) ins(%q, %kt : tensor<4x16x8xf32>, tensor<4x8x16xf32>) outs(%e_s : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %d = hip.div(%ctx) ins(%s, %c : tensor<4x16x16xf32>, tensor<1xf32>) outs(%e_s : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %m = hip.add(%ctx) ins(%mask, %d : tensor<16x16xf32>, tensor<4x16x16xf32>) outs(%e_s : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %p = hip.softmax(%ctx) ins(%m : tensor<4x16x16xf32>) outs(%e_s : tensor<4x16x16xf32>) {axis = 2 : i64} -> tensor<4x16x16xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<4x16x16xf32>, tensor<4x16x8xf32>) outs(%e_y : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  func.return %y : tensor<4x16x8xf32>
}
// CHECK-LABEL: func.func @div_mask_first
// CHECK-NOT:     hip.matmul
// CHECK:         hip.attention(%{{.*}}) ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<16x16xf32>)
// CHECK-SAME:      {scale = 2.500000e-01 : f64, mask_kind = "additive", k_transposed = true}
// CHECK-NOT:     hip.softmax

// -----

// The exports' mask: Where(cond, 0, min) of scalars, read by two layers. Once both are
// fused it becomes their keep mask (the i1 cond, `masked_value` for false keys) and the
// Where, its float [b, 1, s, s] init and its constants go. The second Where, whose
// result is also returned, stays an additive mask.

func.func @select_mask(%ctx: !hip.context, %q: tensor<2x4x8x16xf32>, %kt: tensor<2x4x16x8xf32>, %v: tensor<2x4x8x16xf32>, %cond: tensor<2x1x8x8xi1>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x1x8x8xf32>) {
  %zero = arith.constant dense<0.000000e+00> : tensor<f32>
  %min = arith.constant dense<-3.40282347e+38> : tensor<f32>
  %e_m = tensor.empty() : tensor<2x1x8x8xf32>
  %mask = hip.where(%ctx) ins(%cond, %zero, %min : tensor<2x1x8x8xi1>, tensor<f32>, tensor<f32>) outs(%e_m : tensor<2x1x8x8xf32>) -> tensor<2x1x8x8xf32>
  %e_s = tensor.empty() : tensor<2x4x8x8xf32>
  %e_y = tensor.empty() : tensor<2x4x8x16xf32>
  %s1 = hip.matmul(%ctx) ins(%q, %kt : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %a1 = hip.add(%ctx) ins(%s1, %mask : tensor<2x4x8x8xf32>, tensor<2x1x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %p1 = hip.softmax(%ctx) ins(%a1 : tensor<2x4x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %y1 = hip.matmul(%ctx) ins(%p1, %v : tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>) outs(%e_y : tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %s2 = hip.matmul(%ctx) ins(%y1, %kt : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %a2 = hip.add(%ctx) ins(%s2, %mask : tensor<2x4x8x8xf32>, tensor<2x1x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %p2 = hip.softmax(%ctx) ins(%a2 : tensor<2x4x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %y2 = hip.matmul(%ctx) ins(%p2, %v : tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>) outs(%e_y : tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %other = hip.where(%ctx) ins(%cond, %zero, %min : tensor<2x1x8x8xi1>, tensor<f32>, tensor<f32>) outs(%e_m : tensor<2x1x8x8xf32>) -> tensor<2x1x8x8xf32>
  %s3 = hip.matmul(%ctx) ins(%q, %kt : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %a3 = hip.add(%ctx) ins(%s3, %other : tensor<2x4x8x8xf32>, tensor<2x1x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %p3 = hip.softmax(%ctx) ins(%a3 : tensor<2x4x8x8xf32>) outs(%e_s : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %y3 = hip.matmul(%ctx) ins(%p3, %v : tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>) outs(%e_y : tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  func.return %y1, %y2, %y3, %other : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x1x8x8xf32>
}
// CHECK-LABEL: func.func @select_mask
// CHECK-SAME:    %[[COND:[^:]*]]: tensor<2x1x8x8xi1>)
// CHECK:         %[[Y1:.*]] = hip.attention(%{{.*}}) ins(%{{.*}}, %{{.*}}, %{{.*}}, %[[COND]] : {{.*}}, tensor<2x1x8x8xi1>)
// CHECK-SAME:      {mask_kind = "keep", k_transposed = true, masked_value = -3.40282{{[0-9]*}}e+38 : f64}
// CHECK-NEXT:    %[[Y2:.*]] = hip.attention(%{{.*}}) ins(%[[Y1]], %{{.*}}, %{{.*}}, %[[COND]] : {{.*}}, tensor<2x1x8x8xi1>)
// CHECK-SAME:      {mask_kind = "keep", k_transposed = true, masked_value = -3.40282{{[0-9]*}}e+38 : f64}
// CHECK-NEXT:    %[[OTHER:.*]] = hip.where(%{{.*}}) ins(%[[COND]], %{{.*}}, %{{.*}} : tensor<2x1x8x8xi1>, tensor<f32>, tensor<f32>)
// CHECK-NEXT:    %[[Y3:.*]] = hip.attention(%{{.*}}) ins(%{{.*}}, %{{.*}}, %{{.*}}, %[[OTHER]] : {{.*}}, tensor<2x1x8x8xf32>)
// CHECK-SAME:      {mask_kind = "additive", k_transposed = true}
// CHECK-NEXT:    func.return %[[Y1]], %[[Y2]], %[[Y3]], %[[OTHER]]

// -----

// ViT's export: the Where's cond is a constant true everywhere, broadcast per batch, and
// the kept value is 0: the mask adds 0 to every score, so the attentions read none. The
// Where, the broadcast and the constant go. A cond with one false key stays a keep mask.

func.func @all_true_mask(%ctx: !hip.context, %q: tensor<?x4x8x16xf32>, %kt: tensor<?x4x16x8xf32>, %v: tensor<?x4x8x16xf32>) -> (tensor<?x4x8x16xf32>, tensor<?x4x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %q, %c0 : tensor<?x4x8x16xf32>
  %true = arith.constant dense<true> : tensor<1x1x8x1xi1>
  %e_c = tensor.empty(%b) : tensor<?x1x8x8xi1>
  %cond = hip.expand(%ctx) ins(%true : tensor<1x1x8x1xi1>) outs(%e_c : tensor<?x1x8x8xi1>) -> tensor<?x1x8x8xi1>
  %zero = arith.constant dense<0.000000e+00> : tensor<f32>
  %min = arith.constant dense<-3.40282347e+38> : tensor<f32>
  %e_m = tensor.empty(%b) : tensor<?x1x8x8xf32>
  %mask = hip.where(%ctx) ins(%cond, %zero, %min : tensor<?x1x8x8xi1>, tensor<f32>, tensor<f32>) outs(%e_m : tensor<?x1x8x8xf32>) -> tensor<?x1x8x8xf32>
  %e_s = tensor.empty(%b) : tensor<?x4x8x8xf32>
  %e_y = tensor.empty(%b) : tensor<?x4x8x16xf32>
  %s1 = hip.matmul(%ctx) ins(%q, %kt : tensor<?x4x8x16xf32>, tensor<?x4x16x8xf32>) outs(%e_s : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %a1 = hip.add(%ctx) ins(%s1, %mask : tensor<?x4x8x8xf32>, tensor<?x1x8x8xf32>) outs(%e_s : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %p1 = hip.softmax(%ctx) ins(%a1 : tensor<?x4x8x8xf32>) outs(%e_s : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %y1 = hip.matmul(%ctx) ins(%p1, %v : tensor<?x4x8x8xf32>, tensor<?x4x8x16xf32>) outs(%e_y : tensor<?x4x8x16xf32>) -> tensor<?x4x8x16xf32>
  %partly = arith.constant dense<[[[[true], [true], [true], [true], [true], [true], [true], [false]]]]> : tensor<1x1x8x1xi1>
  %cond2 = hip.expand(%ctx) ins(%partly : tensor<1x1x8x1xi1>) outs(%e_c : tensor<?x1x8x8xi1>) -> tensor<?x1x8x8xi1>
  %mask2 = hip.where(%ctx) ins(%cond2, %zero, %min : tensor<?x1x8x8xi1>, tensor<f32>, tensor<f32>) outs(%e_m : tensor<?x1x8x8xf32>) -> tensor<?x1x8x8xf32>
  %s2 = hip.matmul(%ctx) ins(%y1, %kt : tensor<?x4x8x16xf32>, tensor<?x4x16x8xf32>) outs(%e_s : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %a2 = hip.add(%ctx) ins(%s2, %mask2 : tensor<?x4x8x8xf32>, tensor<?x1x8x8xf32>) outs(%e_s : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %p2 = hip.softmax(%ctx) ins(%a2 : tensor<?x4x8x8xf32>) outs(%e_s : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %y2 = hip.matmul(%ctx) ins(%p2, %v : tensor<?x4x8x8xf32>, tensor<?x4x8x16xf32>) outs(%e_y : tensor<?x4x8x16xf32>) -> tensor<?x4x8x16xf32>
  func.return %y1, %y2 : tensor<?x4x8x16xf32>, tensor<?x4x8x16xf32>
}
// CHECK-LABEL: func.func @all_true_mask
// CHECK-NOT:     dense<true>
// CHECK-NOT:     hip.where
// CHECK:         %[[Y1:.*]] = hip.attention(%{{.*}}) ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} : tensor<?x4x8x16xf32>, tensor<?x4x16x8xf32>, tensor<?x4x8x16xf32>)
// CHECK-SAME:      {k_transposed = true}
// CHECK-NEXT:    %[[PARTLY:.*]] = arith.constant dense<{{.*}}false{{.*}}> : tensor<1x1x8x1xi1>
// CHECK-NEXT:    %[[COND2:.*]] = hip.expand(%{{.*}}) ins(%[[PARTLY]] :
// CHECK:         hip.attention(%{{.*}}) ins(%[[Y1]], %{{.*}}, %{{.*}}, %[[COND2]] : {{.*}}, tensor<?x1x8x8xi1>)
// CHECK-SAME:      {mask_kind = "keep", k_transposed = true, masked_value = -3.40282{{[0-9]*}}e+38 : f64}
// CHECK-NOT:     hip.where
// CHECK-NOT:     hip.expand
