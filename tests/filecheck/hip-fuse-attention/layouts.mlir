// RUN: xhip-opt %s --split-input-file --verify-each -p hip-fuse-attention,hip-fold-attention-layouts | filecheck %s
// RUN: xhip-opt %s --split-input-file --verify-each -p hip-fuse-attention,hip-fold-attention-layouts,hip-fold-attention-layouts | filecheck %s
// RUN: xhip-opt %s --split-input-file --verify-each -p hip-fuse-attention,hip-fold-attention-layouts,one-shot-bufferize | filecheck %s --check-prefix=BUF
// RUN: xhip-opt %s --split-input-file -p hip-fuse-attention | filecheck %s --check-prefix=OFF

// GPT-2's attention as the torch export gives it (c_attn's output %x [b, s, 3*768]):
// q, k, v sliced out, split into 12 heads of 64 and transposed to [b, 12, s, 64]; Kᵀ
// made on merged batch dims (Reshape [b*12, s, 64] with ONNX's "0 copies" select,
// Transpose, Reshape [b, 12, 64, s]); the result transposed back to [b, s, 12, 64] and
// merged for c_proj. hip-fuse-attention alone fuses it (the OFF checks: Kᵀ read as
// k_transposed, five Transposes left); hip-fold-attention-layouts folds every Transpose
// into a layout and makes the slices slices of one [b, s, 36, 64] view of %x, so
// bufferization copies nothing: no memref.copy, no hip.transpose, q/k/v strided views
// of %x, y written where c_proj reads it.

func.func @gpt2(%ctx: !hip.context, %x: tensor<?x?x2304xf32>, %mask: tensor<?x1x?x?xf32>) -> tensor<?x?x768xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c64 = arith.constant 64 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x2304xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x2304xf32>
  %root = arith.constant dense<0.353553385> : tensor<f32>
  %q_rows = tensor.extract_slice %x[0, 0, 0] [%b, %s, 768] [1, 1, 1] : tensor<?x?x2304xf32> to tensor<?x?x768xf32>
  %k_rows = tensor.extract_slice %x[0, 0, 768] [%b, %s, 768] [1, 1, 1] : tensor<?x?x2304xf32> to tensor<?x?x768xf32>
  %v_rows = tensor.extract_slice %x[0, 0, 1536] [%b, %s, 768] [1, 1, 1] : tensor<?x?x2304xf32> to tensor<?x?x768xf32>
  %e_heads = tensor.empty(%b, %s) : tensor<?x12x?x64xf32>
  %q_split = tensor.expand_shape %q_rows [[0], [1], [2, 3]] output_shape [%b, %s, 12, 64] : tensor<?x?x768xf32> into tensor<?x?x12x64xf32>
  %q = hip.transpose(%ctx) ins(%q_split : tensor<?x?x12x64xf32>) outs(%e_heads : tensor<?x12x?x64xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x12x?x64xf32>
  %k_split = tensor.expand_shape %k_rows [[0], [1], [2, 3]] output_shape [%b, %s, 12, 64] : tensor<?x?x768xf32> into tensor<?x?x12x64xf32>
  %k = hip.transpose(%ctx) ins(%k_split : tensor<?x?x12x64xf32>) outs(%e_heads : tensor<?x12x?x64xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x12x?x64xf32>
  %v_split = tensor.expand_shape %v_rows [[0], [1], [2, 3]] output_shape [%b, %s, 12, 64] : tensor<?x?x768xf32> into tensor<?x?x12x64xf32>
  %v = hip.transpose(%ctx) ins(%v_split : tensor<?x?x12x64xf32>) outs(%e_heads : tensor<?x12x?x64xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x12x?x64xf32>
  %no_keys = arith.cmpi eq, %s, %c0 : index
  %keys = arith.select %no_keys, %c12, %s : index
  %bh = arith.muli %b, %c12 : index
  %merged_shape = tensor.from_elements %bh, %keys, %c64 : tensor<3xindex>
  %k_merged = tensor.reshape %k(%merged_shape) : (tensor<?x12x?x64xf32>, tensor<3xindex>) -> tensor<?x?x64xf32>
  %e_kt_merged = tensor.empty(%bh, %keys) : tensor<?x64x?xf32>
  %kt_merged = hip.transpose(%ctx) ins(%k_merged : tensor<?x?x64xf32>) outs(%e_kt_merged : tensor<?x64x?xf32>) {perm = array<i64: 0, 2, 1>} -> tensor<?x64x?xf32>
  %split_shape = tensor.from_elements %b, %c12, %c64, %s : tensor<4xindex>
  %kt = tensor.reshape %kt_merged(%split_shape) : (tensor<?x64x?xf32>, tensor<4xindex>) -> tensor<?x12x64x?xf32>
  %q_scaled = hip.mul(%ctx) ins(%q, %root : tensor<?x12x?x64xf32>, tensor<f32>) outs(%e_heads : tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32>
  %e_kt = tensor.empty(%b, %s) : tensor<?x12x64x?xf32>
  %kt_scaled = hip.mul(%ctx) ins(%kt, %root : tensor<?x12x64x?xf32>, tensor<f32>) outs(%e_kt : tensor<?x12x64x?xf32>) -> tensor<?x12x64x?xf32>
  %e_s = tensor.empty(%b, %s, %s) : tensor<?x12x?x?xf32>
  %scores = hip.matmul(%ctx) ins(%q_scaled, %kt_scaled : tensor<?x12x?x64xf32>, tensor<?x12x64x?xf32>) outs(%e_s : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %masked = hip.add(%ctx) ins(%scores, %mask : tensor<?x12x?x?xf32>, tensor<?x1x?x?xf32>) outs(%e_s : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %p = hip.softmax(%ctx) ins(%masked : tensor<?x12x?x?xf32>) outs(%e_s : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<?x12x?x?xf32>, tensor<?x12x?x64xf32>) outs(%e_heads : tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32>
  %e_y = tensor.empty(%b, %s) : tensor<?x?x12x64xf32>
  %y_split = hip.transpose(%ctx) ins(%y : tensor<?x12x?x64xf32>) outs(%e_y : tensor<?x?x12x64xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x?x12x64xf32>
  %y_rows = tensor.collapse_shape %y_split [[0], [1], [2, 3]] : tensor<?x?x12x64xf32> into tensor<?x?x768xf32>
  func.return %y_rows : tensor<?x?x768xf32>
}
// CHECK-LABEL: func.func @gpt2
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x?x2304xf32>, %[[MASK:.*]]: tensor<?x1x?x?xf32>)
// CHECK:         %[[B:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK:         %[[S:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[HEADS:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [%[[B]], %[[S]], 36, 64] : tensor<?x?x2304xf32> into tensor<?x?x36x64xf32>
// CHECK-NEXT:    %[[Q:.*]] = tensor.extract_slice %[[HEADS]][0, 0, 0, 0] [%[[B]], %[[S]], 12, 64] [1, 1, 1, 1] : tensor<?x?x36x64xf32> to tensor<?x?x12x64xf32>
// CHECK-NEXT:    %[[K:.*]] = tensor.extract_slice %[[HEADS]][0, 0, 12, 0] [%[[B]], %[[S]], 12, 64] [1, 1, 1, 1]
// CHECK-NEXT:    %[[V:.*]] = tensor.extract_slice %[[HEADS]][0, 0, 24, 0] [%[[B]], %[[S]], 12, 64] [1, 1, 1, 1]
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[B]], %[[S]]) : tensor<?x?x12x64xf32>
// CHECK-NEXT:    %[[Y:.*]] = hip.attention(%[[CTX]]) ins(%[[Q]], %[[K]], %[[V]], %[[MASK]] : tensor<?x?x12x64xf32>, tensor<?x?x12x64xf32>, tensor<?x?x12x64xf32>, tensor<?x1x?x?xf32>) outs(%[[E]] : tensor<?x?x12x64xf32>)
// CHECK-SAME:      mask_kind = "additive", q_perm = array<i64: 0, 2, 1, 3>, k_perm = array<i64: 0, 2, 1, 3>, v_perm = array<i64: 0, 2, 1, 3>, y_perm = array<i64: 0, 2, 1, 3>} -> tensor<?x?x12x64xf32>
// CHECK-NOT:       k_transposed
// CHECK-NEXT:    %[[ROWS:.*]] = tensor.collapse_shape %[[Y]] {{\[\[}}0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<?x?x12x64xf32> into tensor<?x?x768xf32>
// CHECK-NEXT:    func.return %[[ROWS]]

// BUF-LABEL: func.func @gpt2
// BUF-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: memref<?x?x2304xf32>, %[[MASK:.*]]: memref<?x1x?x?xf32>)
// BUF-NOT:     memref.copy
// BUF-NOT:     hip.transpose
// BUF:         %[[HEADS:.*]] = memref.expand_shape %[[X]] {{.*}} into memref<?x?x36x64xf32>
// BUF-NEXT:    %[[Q:.*]] = memref.subview %[[HEADS]][0, 0, 0, 0] {{.*}} to memref<?x?x12x64xf32, strided<[?, 2304, 64, 1]>>
// BUF-NEXT:    %[[K:.*]] = memref.subview %[[HEADS]][0, 0, 12, 0] {{.*}} to memref<?x?x12x64xf32, strided<[?, 2304, 64, 1], offset: 768>>
// BUF-NEXT:    %[[V:.*]] = memref.subview %[[HEADS]][0, 0, 24, 0] {{.*}} to memref<?x?x12x64xf32, strided<[?, 2304, 64, 1], offset: 1536>>
// BUF-NEXT:    %[[Y:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?x12x64xf32>
// BUF-NEXT:    hip.attention(%[[CTX]]) ins(%[[Q]], %[[K]], %[[V]], %[[MASK]] : {{.*}}) outs(%[[Y]] : memref<?x?x12x64xf32>)
// BUF-NEXT:    %[[ROWS:.*]] = memref.collapse_shape %[[Y]] {{.*}} into memref<?x?x768xf32>
// BUF-NEXT:    func.return %[[ROWS]]

// OFF-LABEL: func.func @gpt2
// OFF-COUNT-4: hip.transpose
// OFF-NOT:     hip.transpose
// OFF:         hip.attention({{.*}}) {{.*}}k_transposed = true
// OFF-NOT:     _perm
// OFF:         hip.transpose
// OFF-NOT:     hip.transpose

// -----

// BERT/RoBERTa/MiniLM/T5: a projection per q, k, v (no slices), the same Transposes,
// Kᵀ's first Reshape taking the sequence extent itself.

func.func @bert(%ctx: !hip.context, %q_split: tensor<?x?x2x64xf32>, %k_split: tensor<?x?x2x64xf32>, %v_split: tensor<?x?x2x64xf32>) -> tensor<?x?x128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %b = tensor.dim %q_split, %c0 : tensor<?x?x2x64xf32>
  %s = tensor.dim %q_split, %c1 : tensor<?x?x2x64xf32>
  %e_heads = tensor.empty(%b, %s) : tensor<?x2x?x64xf32>
  %q = hip.transpose(%ctx) ins(%q_split : tensor<?x?x2x64xf32>) outs(%e_heads : tensor<?x2x?x64xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x2x?x64xf32>
  %k = hip.transpose(%ctx) ins(%k_split : tensor<?x?x2x64xf32>) outs(%e_heads : tensor<?x2x?x64xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x2x?x64xf32>
  %v = hip.transpose(%ctx) ins(%v_split : tensor<?x?x2x64xf32>) outs(%e_heads : tensor<?x2x?x64xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x2x?x64xf32>
  %bh = arith.muli %b, %c2 : index
  %merged_shape = tensor.from_elements %bh, %s, %c64 : tensor<3xindex>
  %k_merged = tensor.reshape %k(%merged_shape) : (tensor<?x2x?x64xf32>, tensor<3xindex>) -> tensor<?x?x64xf32>
  %e_kt_merged = tensor.empty(%bh, %s) : tensor<?x64x?xf32>
  %kt_merged = hip.transpose(%ctx) ins(%k_merged : tensor<?x?x64xf32>) outs(%e_kt_merged : tensor<?x64x?xf32>) {perm = array<i64: 0, 2, 1>} -> tensor<?x64x?xf32>
  %split_shape = tensor.from_elements %b, %c2, %c64, %s : tensor<4xindex>
  %kt = tensor.reshape %kt_merged(%split_shape) : (tensor<?x64x?xf32>, tensor<4xindex>) -> tensor<?x2x64x?xf32>
  %e_s = tensor.empty(%b, %s, %s) : tensor<?x2x?x?xf32>
  %scores = hip.matmul(%ctx) ins(%q, %kt : tensor<?x2x?x64xf32>, tensor<?x2x64x?xf32>) outs(%e_s : tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32>
  %p = hip.softmax(%ctx) ins(%scores : tensor<?x2x?x?xf32>) outs(%e_s : tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<?x2x?x?xf32>, tensor<?x2x?x64xf32>) outs(%e_heads : tensor<?x2x?x64xf32>) -> tensor<?x2x?x64xf32>
  %e_y = tensor.empty(%b, %s) : tensor<?x?x2x64xf32>
  %y_split = hip.transpose(%ctx) ins(%y : tensor<?x2x?x64xf32>) outs(%e_y : tensor<?x?x2x64xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x?x2x64xf32>
  %y_rows = tensor.collapse_shape %y_split [[0], [1], [2, 3]] : tensor<?x?x2x64xf32> into tensor<?x?x128xf32>
  func.return %y_rows : tensor<?x?x128xf32>
}
// CHECK-LABEL: func.func @bert
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[Q:.*]]: tensor<?x?x2x64xf32>, %[[K:.*]]: tensor<?x?x2x64xf32>, %[[V:.*]]: tensor<?x?x2x64xf32>)
// CHECK-NOT:     hip.transpose
// CHECK-NOT:     tensor.reshape
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x2x64xf32>
// CHECK-NEXT:    %[[Y:.*]] = hip.attention(%[[CTX]]) ins(%[[Q]], %[[K]], %[[V]] : tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>) outs(%[[E]] : tensor<?x?x2x64xf32>) {q_perm = array<i64: 0, 2, 1, 3>, k_perm = array<i64: 0, 2, 1, 3>, v_perm = array<i64: 0, 2, 1, 3>, y_perm = array<i64: 0, 2, 1, 3>}
// CHECK-NEXT:    tensor.collapse_shape %[[Y]]
// CHECK-NOT:     hip.transpose

// BUF-LABEL: func.func @bert
// BUF-NOT:     memref.copy
// BUF-NOT:     hip.transpose
// BUF:         hip.attention

// OFF-LABEL: func.func @bert

// -----

// What stays: a Transpose that would move q's head dim off the last place (the kernel
// compiles the head dims in from the types' last dims), one after the attention that
// would move y's, and Kᵀ reshapes whose extents are not K's (%other is not the sequence
// extent: the Reshapes regroup elements, they do not only transpose).

func.func @kept(%ctx: !hip.context, %q_dh: tensor<?x2x64x?xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %other: index) -> tensor<?x2x64x?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %b = tensor.dim %k, %c0 : tensor<?x2x?x64xf32>
  %s = tensor.dim %q_dh, %c3 : tensor<?x2x64x?xf32>
  %e_heads = tensor.empty(%b, %s) : tensor<?x2x?x64xf32>
  %q = hip.transpose(%ctx) ins(%q_dh : tensor<?x2x64x?xf32>) outs(%e_heads : tensor<?x2x?x64xf32>) {perm = array<i64: 0, 1, 3, 2>} -> tensor<?x2x?x64xf32>
  %bh = arith.muli %b, %c2 : index
  %merged_shape = tensor.from_elements %bh, %s, %c64 : tensor<3xindex>
  %k_merged = tensor.reshape %k(%merged_shape) : (tensor<?x2x?x64xf32>, tensor<3xindex>) -> tensor<?x?x64xf32>
  %e_kt_merged = tensor.empty(%bh, %s) : tensor<?x64x?xf32>
  %kt_merged = hip.transpose(%ctx) ins(%k_merged : tensor<?x?x64xf32>) outs(%e_kt_merged : tensor<?x64x?xf32>) {perm = array<i64: 0, 2, 1>} -> tensor<?x64x?xf32>
  %split_shape = tensor.from_elements %b, %c2, %c64, %other : tensor<4xindex>
  %kt = tensor.reshape %kt_merged(%split_shape) : (tensor<?x64x?xf32>, tensor<4xindex>) -> tensor<?x2x64x?xf32>
  %e_s = tensor.empty(%b, %s, %other) : tensor<?x2x?x?xf32>
  %scores = hip.matmul(%ctx) ins(%q, %kt : tensor<?x2x?x64xf32>, tensor<?x2x64x?xf32>) outs(%e_s : tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32>
  %p = hip.softmax(%ctx) ins(%scores : tensor<?x2x?x?xf32>) outs(%e_s : tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<?x2x?x?xf32>, tensor<?x2x?x64xf32>) outs(%e_heads : tensor<?x2x?x64xf32>) -> tensor<?x2x?x64xf32>
  %e_y = tensor.empty(%b, %s) : tensor<?x2x64x?xf32>
  %y_dh = hip.transpose(%ctx) ins(%y : tensor<?x2x?x64xf32>) outs(%e_y : tensor<?x2x64x?xf32>) {perm = array<i64: 0, 1, 3, 2>} -> tensor<?x2x64x?xf32>
  func.return %y_dh : tensor<?x2x64x?xf32>
}
// CHECK-LABEL: func.func @kept
// CHECK:         %[[Q:.*]] = hip.transpose(%{{.*}}) ins(%{{.*}} : tensor<?x2x64x?xf32>) {{.*}} {perm = array<i64: 0, 1, 3, 2>}
// CHECK:         %[[KT_MERGED:.*]] = hip.transpose(%{{.*}}) ins(%{{.*}} : tensor<?x?x64xf32>) {{.*}} {perm = array<i64: 0, 2, 1>}
// CHECK:         %[[KT:.*]] = tensor.reshape %[[KT_MERGED]]
// CHECK-NEXT:    %[[Y:.*]] = hip.attention(%{{.*}}) ins(%[[Q]], %[[KT]], %{{.*}} : {{.*}}) {k_transposed = true} -> tensor<?x2x?x64xf32>
// CHECK:         hip.transpose(%{{.*}}) ins(%[[Y]] : tensor<?x2x?x64xf32>) {{.*}} {perm = array<i64: 0, 1, 3, 2>}

// -----

// Llama's grouped-query attention: K and V have 2 heads, each repeated twice
// (Expand of a unit dim, then merged) for the 4 query heads. Over batch dims [b, 2, 2]
// the attention reads the grouped K and V themselves (their unit dim broadcasts, stride
// 0): q, the keep mask and y are split views, and the two Expands are gone. V's
// Transpose to [b, 2, s, 16] is read through too: v_perm over a unit dim added to the
// projection's [b, s, 2, 16].

func.func @llama(%ctx: !hip.context, %q: tensor<?x4x?x16xf32>, %k_grouped: tensor<?x2x?x16xf32>, %v_rows: tensor<?x?x32xf32>, %drop: tensor<?x1x?x?xi1>) -> tensor<?x?x64xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %q, %c0 : tensor<?x4x?x16xf32>
  %s = tensor.dim %q, %c2 : tensor<?x4x?x16xf32>
  %e_keep = tensor.empty(%b, %s, %s) : tensor<?x1x?x?xi1>
  %keep = hip.not(%ctx) ins(%drop : tensor<?x1x?x?xi1>) outs(%e_keep : tensor<?x1x?x?xi1>) -> tensor<?x1x?x?xi1>
  %e_q = tensor.empty(%b, %s) : tensor<?x4x?x16xf32>
  %q_roped = hip.neg(%ctx) ins(%q : tensor<?x4x?x16xf32>) outs(%e_q : tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  %e_repeat = tensor.empty(%b, %s) : tensor<?x2x2x?x16xf32>
  %k_unit = tensor.expand_shape %k_grouped [[0], [1], [2, 3], [4]] output_shape [%b, 2, 1, %s, 16] : tensor<?x2x?x16xf32> into tensor<?x2x1x?x16xf32>
  %k_repeat = hip.expand(%ctx) ins(%k_unit : tensor<?x2x1x?x16xf32>) outs(%e_repeat : tensor<?x2x2x?x16xf32>) -> tensor<?x2x2x?x16xf32>
  %k = tensor.collapse_shape %k_repeat [[0], [1, 2], [3], [4]] : tensor<?x2x2x?x16xf32> into tensor<?x4x?x16xf32>
  %v_split = tensor.expand_shape %v_rows [[0], [1], [2, 3]] output_shape [%b, %s, 2, 16] : tensor<?x?x32xf32> into tensor<?x?x2x16xf32>
  %e_v = tensor.empty(%b, %s) : tensor<?x2x?x16xf32>
  %v_grouped = hip.transpose(%ctx) ins(%v_split : tensor<?x?x2x16xf32>) outs(%e_v : tensor<?x2x?x16xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x2x?x16xf32>
  %v_unit = tensor.expand_shape %v_grouped [[0], [1], [2, 3], [4]] output_shape [%b, 2, 1, %s, 16] : tensor<?x2x?x16xf32> into tensor<?x2x1x?x16xf32>
  %v_repeat = hip.expand(%ctx) ins(%v_unit : tensor<?x2x1x?x16xf32>) outs(%e_repeat : tensor<?x2x2x?x16xf32>) -> tensor<?x2x2x?x16xf32>
  %v = tensor.collapse_shape %v_repeat [[0], [1, 2], [3], [4]] : tensor<?x2x2x?x16xf32> into tensor<?x4x?x16xf32>
  %e_kt = tensor.empty(%b, %s) : tensor<?x4x16x?xf32>
  %kt = hip.transpose(%ctx) ins(%k : tensor<?x4x?x16xf32>) outs(%e_kt : tensor<?x4x16x?xf32>) {perm = array<i64: 0, 1, 3, 2>} -> tensor<?x4x16x?xf32>
  %e_s = tensor.empty(%b, %s, %s) : tensor<?x4x?x?xf32>
  %scores = hip.matmul(%ctx) ins(%q_roped, %kt : tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32>) outs(%e_s : tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<f32>
  %low = arith.constant dense<-3.40282347E+38> : tensor<f32>
  %e_mask = tensor.empty(%b, %s, %s) : tensor<?x1x?x?xf32>
  %mask = hip.where(%ctx) ins(%keep, %zero, %low : tensor<?x1x?x?xi1>, tensor<f32>, tensor<f32>) outs(%e_mask : tensor<?x1x?x?xf32>) -> tensor<?x1x?x?xf32>
  %masked = hip.add(%ctx) ins(%scores, %mask : tensor<?x4x?x?xf32>, tensor<?x1x?x?xf32>) outs(%e_s : tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  %p = hip.softmax(%ctx) ins(%masked : tensor<?x4x?x?xf32>) outs(%e_s : tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  %y = hip.matmul(%ctx) ins(%p, %v : tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) outs(%e_q : tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  %e_y = tensor.empty(%b, %s) : tensor<?x?x4x16xf32>
  %y_split = hip.transpose(%ctx) ins(%y : tensor<?x4x?x16xf32>) outs(%e_y : tensor<?x?x4x16xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x?x4x16xf32>
  %y_rows = tensor.collapse_shape %y_split [[0], [1], [2, 3]] : tensor<?x?x4x16xf32> into tensor<?x?x64xf32>
  func.return %y_rows : tensor<?x?x64xf32>
}
// CHECK-LABEL: func.func @llama
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, {{.*}}, %[[KG:.*]]: tensor<?x2x?x16xf32>, %{{.*}}: tensor<?x?x32xf32>, {{.*}})
// CHECK-NOT:     hip.expand
// CHECK-NOT:     hip.transpose
// CHECK-DAG:     %[[KEEP:.*]] = hip.not
// CHECK-DAG:     %[[Q:.*]] = hip.neg
// CHECK-DAG:     %[[K:.*]] = tensor.expand_shape %[[KG]] {{.*}} into tensor<?x2x1x?x16xf32>
// CHECK:         %[[VS:.*]] = tensor.expand_shape {{.*}} into tensor<?x?x2x16xf32>
// CHECK:         %[[Q5:.*]] = tensor.expand_shape %[[Q]] {{\[\[}}0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [%{{.*}}, 2, 2, %{{.*}}, 16] : tensor<?x4x?x16xf32> into tensor<?x2x2x?x16xf32>
// CHECK-NEXT:    %[[MASK5:.*]] = tensor.expand_shape %[[KEEP]] {{.*}} into tensor<?x1x1x?x?xi1>
// CHECK-NEXT:    %[[V:.*]] = tensor.expand_shape %[[VS]] {{\[\[}}0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [%{{.*}}, 1, %{{.*}}, 2, 16] : tensor<?x?x2x16xf32> into tensor<?x1x?x2x16xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x2x2x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = hip.attention(%[[CTX]]) ins(%[[Q5]], %[[K]], %[[V]], %[[MASK5]] : tensor<?x2x2x?x16xf32>, tensor<?x2x1x?x16xf32>, tensor<?x1x?x2x16xf32>, tensor<?x1x1x?x?xi1>) outs(%[[E]] : tensor<?x?x2x2x16xf32>)
// CHECK-SAME:      v_perm = array<i64: 0, 3, 1, 2, 4>, y_perm = array<i64: 0, 3, 1, 2, 4>
// CHECK-NEXT:    %[[HEADS:.*]] = tensor.collapse_shape %[[Y]] {{\[\[}}0 : i64], [1 : i64], [2 : i64, 3 : i64], [4 : i64]] : tensor<?x?x2x2x16xf32> into tensor<?x?x4x16xf32>
// CHECK-NEXT:    tensor.collapse_shape %[[HEADS]] {{.*}} into tensor<?x?x64xf32>

// BUF-LABEL: func.func @llama
// BUF-NOT:     memref.copy
// BUF-NOT:     hip.expand
// BUF-NOT:     hip.transpose
// BUF:         hip.attention
// BUF-NOT:     hip.transpose

// OFF-LABEL: func.func @llama
// OFF:         hip.expand
// OFF:         hip.transpose
// OFF:         hip.expand

// -----

// A bufferized attention is left as it is: with buffers, reading a Transpose's source in
// its place would first need a proof that nothing writes the source in between.

func.func @bufferized(%ctx: !hip.context, %q: memref<2x3x5x8xf32>, %k: memref<2x3x6x8xf32>, %v: memref<2x3x6x8xf32>, %y: memref<2x3x5x8xf32>) {
  hip.attention(%ctx) ins(%q, %k, %v : memref<2x3x5x8xf32>, memref<2x3x6x8xf32>, memref<2x3x6x8xf32>) outs(%y : memref<2x3x5x8xf32>)
  func.return
}
// CHECK-LABEL: func.func @bufferized
// CHECK-NEXT:    hip.attention(%{{.*}}) ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<2x3x5x8xf32>, memref<2x3x6x8xf32>, memref<2x3x6x8xf32>) outs(%{{.*}} : memref<2x3x5x8xf32>)
// CHECK-NEXT:    func.return

// -----

// A decoder step's attention (one new token, batch %b, 4 heads of 16): q, k, v sliced
// out of the QKV projection %x, K and V the Concat of the cache and the new token's, Kᵀ
// made on merged batch dims through CollapseShape / ExpandShape (the export's Reshapes,
// canonicalized into views). Kᵀ folds as a swap of the Concat's last dims: the
// attention reads the present K as it is (no k_transposed), no Kᵀ Transpose is left.

func.func @decoder_step(%ctx: !hip.context, %x: tensor<?x1x192xf32>, %past_k: tensor<?x4x?x16xf32>, %past_v: tensor<?x4x?x16xf32>) -> (tensor<?x1x64xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %b = tensor.dim %x, %c0 : tensor<?x1x192xf32>
  %p = tensor.dim %past_k, %c2 : tensor<?x4x?x16xf32>
  %root = arith.constant dense<0.5> : tensor<1xf32>
  %q_rows = tensor.extract_slice %x[0, 0, 0] [%b, 1, 64] [1, 1, 1] : tensor<?x1x192xf32> to tensor<?x1x64xf32>
  %k_rows = tensor.extract_slice %x[0, 0, 64] [%b, 1, 64] [1, 1, 1] : tensor<?x1x192xf32> to tensor<?x1x64xf32>
  %v_rows = tensor.extract_slice %x[0, 0, 128] [%b, 1, 64] [1, 1, 1] : tensor<?x1x192xf32> to tensor<?x1x64xf32>
  %e_heads = tensor.empty(%b) : tensor<?x4x1x16xf32>
  %q_split = tensor.expand_shape %q_rows [[0], [1], [2, 3]] output_shape [%b, 1, 4, 16] : tensor<?x1x64xf32> into tensor<?x1x4x16xf32>
  %q = hip.transpose(%ctx) ins(%q_split : tensor<?x1x4x16xf32>) outs(%e_heads : tensor<?x4x1x16xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x4x1x16xf32>
  %k_split = tensor.expand_shape %k_rows [[0], [1], [2, 3]] output_shape [%b, 1, 4, 16] : tensor<?x1x64xf32> into tensor<?x1x4x16xf32>
  %k_new = hip.transpose(%ctx) ins(%k_split : tensor<?x1x4x16xf32>) outs(%e_heads : tensor<?x4x1x16xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x4x1x16xf32>
  %v_split = tensor.expand_shape %v_rows [[0], [1], [2, 3]] output_shape [%b, 1, 4, 16] : tensor<?x1x64xf32> into tensor<?x1x4x16xf32>
  %v_new = hip.transpose(%ctx) ins(%v_split : tensor<?x1x4x16xf32>) outs(%e_heads : tensor<?x4x1x16xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x4x1x16xf32>
  %s = arith.addi %p, %c1 : index
  %e_cache = tensor.empty(%b, %s) : tensor<?x4x?x16xf32>
  %k = hip.concat(%ctx) ins(%past_k, %k_new : tensor<?x4x?x16xf32>, tensor<?x4x1x16xf32>) outs(%e_cache : tensor<?x4x?x16xf32>) {axis = 2 : i64} -> tensor<?x4x?x16xf32>
  %v = hip.concat(%ctx) ins(%past_v, %v_new : tensor<?x4x?x16xf32>, tensor<?x4x1x16xf32>) outs(%e_cache : tensor<?x4x?x16xf32>) {axis = 2 : i64} -> tensor<?x4x?x16xf32>
  %bh = arith.muli %b, %c4 : index
  %k_merged = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<?x4x?x16xf32> into tensor<?x?x16xf32>
  %e_kt_merged = tensor.empty(%bh, %s) : tensor<?x16x?xf32>
  %kt_merged = hip.transpose(%ctx) ins(%k_merged : tensor<?x?x16xf32>) outs(%e_kt_merged : tensor<?x16x?xf32>) {perm = array<i64: 0, 2, 1>} -> tensor<?x16x?xf32>
  %kt = tensor.expand_shape %kt_merged [[0, 1], [2], [3]] output_shape [%b, 4, 16, %s] : tensor<?x16x?xf32> into tensor<?x4x16x?xf32>
  %q_scaled = hip.mul(%ctx) ins(%q, %root : tensor<?x4x1x16xf32>, tensor<1xf32>) outs(%e_heads : tensor<?x4x1x16xf32>) -> tensor<?x4x1x16xf32>
  %e_kt = tensor.empty(%b, %s) : tensor<?x4x16x?xf32>
  %kt_scaled = hip.mul(%ctx) ins(%kt, %root : tensor<?x4x16x?xf32>, tensor<1xf32>) outs(%e_kt : tensor<?x4x16x?xf32>) -> tensor<?x4x16x?xf32>
  %e_s = tensor.empty(%b, %s) : tensor<?x4x1x?xf32>
  %scores = hip.matmul(%ctx) ins(%q_scaled, %kt_scaled : tensor<?x4x1x16xf32>, tensor<?x4x16x?xf32>) outs(%e_s : tensor<?x4x1x?xf32>) -> tensor<?x4x1x?xf32>
  %probs = hip.softmax(%ctx) ins(%scores : tensor<?x4x1x?xf32>) outs(%e_s : tensor<?x4x1x?xf32>) -> tensor<?x4x1x?xf32>
  %y = hip.matmul(%ctx) ins(%probs, %v : tensor<?x4x1x?xf32>, tensor<?x4x?x16xf32>) outs(%e_heads : tensor<?x4x1x16xf32>) -> tensor<?x4x1x16xf32>
  %e_y = tensor.empty(%b) : tensor<?x1x4x16xf32>
  %y_split = hip.transpose(%ctx) ins(%y : tensor<?x4x1x16xf32>) outs(%e_y : tensor<?x1x4x16xf32>) {perm = array<i64: 0, 2, 1, 3>} -> tensor<?x1x4x16xf32>
  %y_rows = tensor.collapse_shape %y_split [[0], [1], [2, 3]] : tensor<?x1x4x16xf32> into tensor<?x1x64xf32>
  func.return %y_rows, %k, %v : tensor<?x1x64xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>
}
// CHECK-LABEL: func.func @decoder_step
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x1x192xf32>, %[[PAST_K:.*]]: tensor<?x4x?x16xf32>, %[[PAST_V:.*]]: tensor<?x4x?x16xf32>)
// CHECK:         %[[HEADS:.*]] = tensor.expand_shape %[[X]] {{.*}} into tensor<?x1x12x16xf32>
// CHECK-NEXT:    %[[Q:.*]] = tensor.extract_slice %[[HEADS]][0, 0, 0, 0]
// CHECK:         %[[K_NEW:.*]] = hip.transpose
// CHECK:         %[[V_NEW:.*]] = hip.transpose
// CHECK:         %[[K:.*]] = hip.concat(%[[CTX]]) ins(%[[PAST_K]], %[[K_NEW]] :
// CHECK-NEXT:    %[[V:.*]] = hip.concat(%[[CTX]]) ins(%[[PAST_V]], %[[V_NEW]] :
// CHECK-NOT:     hip.transpose
// CHECK:         %[[Y:.*]] = hip.attention(%[[CTX]]) ins(%[[Q]], %[[K]], %[[V]] : tensor<?x1x4x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>)
// CHECK-SAME:      {scale = 2.500000e-01 : f64, q_perm = array<i64: 0, 2, 1, 3>, y_perm = array<i64: 0, 2, 1, 3>}
// CHECK-NEXT:    %[[ROWS:.*]] = tensor.collapse_shape %[[Y]]
// CHECK-NEXT:    func.return %[[ROWS]], %[[K]], %[[V]]

// The new token's k and v are strided views of %x split into heads (an expand of a
// strided slice is a view): the Transposes read %x itself, nothing is copied.
// BUF-LABEL: func.func @decoder_step
// BUF-NOT:     memref.copy
// BUF:         memref.expand_shape %{{.*}} : memref<?x1x64xf32, strided<[192, 192, 1], offset: 64>> into memref<?x1x4x16xf32, strided<[192, 192, 16, 1], offset: 64>>
// BUF-NEXT:    memref.alloc
// BUF-NEXT:    hip.transpose(%{{.*}}) ins(%{{.*}} : memref<?x1x4x16xf32, strided<[192, 192, 16, 1], offset: 64>>)
// BUF-NOT:     memref.copy
// BUF:         hip.attention
// BUF-NOT:     memref.copy
