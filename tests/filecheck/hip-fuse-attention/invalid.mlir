// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The verifier of hip.attention: float q, k, v and output of one element type, a mask
// exactly when mask_kind says so (i1 for "keep", the data's type for "additive"),
// ranks >= 2, and static dims that agree with softmax(q @ kᵀ) @ v.

func.func @mask_kind_without_mask(%ctx: !hip.context, %q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32>) outs(%y : tensor<4x8xf32>) {mask_kind = "additive"} -> tensor<4x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op mask_kind "additive" needs a fourth (mask) input
  func.return %r : tensor<4x8xf32>
}

// -----

func.func @unknown_mask_kind(%ctx: !hip.context, %q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %m: tensor<4x6xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v, %m : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32>, tensor<4x6xf32>) outs(%y : tensor<4x8xf32>) {mask_kind = "causal"} -> tensor<4x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op mask_kind must be one of none, additive, keep, got "causal"
  func.return %r : tensor<4x8xf32>
}

// -----

func.func @keep_mask_of_floats(%ctx: !hip.context, %q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %m: tensor<4x6xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v, %m : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32>, tensor<4x6xf32>) outs(%y : tensor<4x8xf32>) {mask_kind = "keep"} -> tensor<4x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op a keep mask must have i1 elements, got f32
  func.return %r : tensor<4x8xf32>
}

// -----

func.func @integer_q(%ctx: !hip.context, %q: tensor<4x8xi32>, %k: tensor<6x8xi32>, %v: tensor<6x8xi32>, %y: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v : tensor<4x8xi32>, tensor<6x8xi32>, tensor<6x8xi32>) outs(%y : tensor<4x8xi32>) -> tensor<4x8xi32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op q must have a float element type, got i32
  func.return %r : tensor<4x8xi32>
}

// -----

func.func @head_dims_differ(%ctx: !hip.context, %q: tensor<4x8xf32>, %k: tensor<6x16xf32>, %v: tensor<6x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v : tensor<4x8xf32>, tensor<6x16xf32>, tensor<6x8xf32>) outs(%y : tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op attention Q @ K^T: MatMul contraction dims differ: 8 vs 16
  func.return %r : tensor<4x8xf32>
}

// -----

func.func @transposed_k_layout(%ctx: !hip.context, %q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // K given as [Sk, D] but flagged as Kᵀ [D, Sk]: D = 6 does not match q's 8.
  %r = hip.attention(%ctx) ins(%q, %k, %v : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32>) outs(%y : tensor<4x8xf32>) {k_transposed = true} -> tensor<4x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op attention Q @ K^T: MatMul contraction dims differ: 8 vs 6
  func.return %r : tensor<4x8xf32>
}

// -----

func.func @mask_grows_scores(%ctx: !hip.context, %q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %m: tensor<2x4x6xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v, %m : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32>, tensor<2x4x6xf32>) outs(%y : tensor<4x8xf32>) {mask_kind = "additive"} -> tensor<4x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op attention mask [2, 4, 6] does not broadcast to the scores [4, 6]
  func.return %r : tensor<4x8xf32>
}

// -----

func.func @wrong_output_rows(%ctx: !hip.context, %q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x3xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x3xf32>) outs(%y : tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op out #0 has shape [4, 8] but softmax(Q @ K^T) @ V has shape [4, 3]
  func.return %r : tensor<4x8xf32>
}

// -----

func.func @rank_one_q(%ctx: !hip.context, %q: tensor<8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v : tensor<8xf32>, tensor<6x8xf32>, tensor<6x8xf32>) outs(%y : tensor<8xf32>) -> tensor<8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op q must have rank >= 2, got tensor<8xf32>
  func.return %r : tensor<8xf32>
}
