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

// -----

// Layouts: each a permutation of its operand's rank; q's, v's and y's keep the head dim
// last (the kernel compiles the head dims in from the types' last dims); k's may be any.

func.func @layout_not_a_permutation(%ctx: !hip.context, %q: tensor<2x5x3x8xf32>, %k: tensor<2x3x6x8xf32>, %v: tensor<2x3x6x8xf32>, %y: tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v : tensor<2x5x3x8xf32>, tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32>) outs(%y : tensor<2x3x5x8xf32>) {q_perm = array<i64: 0, 2, 1>} -> tensor<2x3x5x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op q_perm [0, 2, 1] is not a permutation of the rank 4 of tensor<2x5x3x8xf32>
  func.return %r : tensor<2x3x5x8xf32>
}

// -----

func.func @layout_moves_the_head_dim(%ctx: !hip.context, %q: tensor<2x3x5x8xf32>, %k: tensor<2x3x6x8xf32>, %v: tensor<2x3x8x6xf32>, %y: tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v : tensor<2x3x5x8xf32>, tensor<2x3x6x8xf32>, tensor<2x3x8x6xf32>) outs(%y : tensor<2x3x5x8xf32>) {v_perm = array<i64: 0, 1, 3, 2>} -> tensor<2x3x5x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op v_perm [0, 1, 3, 2] must keep the last (head) dim last
  func.return %r : tensor<2x3x5x8xf32>
}

// -----

func.func @layout_out_of_shape(%ctx: !hip.context, %q: tensor<2x5x3x8xf32>, %k: tensor<2x8x3x6xf32>, %v: tensor<2x3x6x8xf32>, %y: tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32> {
  %r = hip.attention(%ctx) ins(%q, %k, %v : tensor<2x5x3x8xf32>, tensor<2x8x3x6xf32>, tensor<2x3x6x8xf32>) outs(%y : tensor<2x3x5x8xf32>) {q_perm = array<i64: 0, 2, 1, 3>, k_perm = array<i64: 0, 2, 3, 1>, y_perm = array<i64: 0, 2, 1, 3>} -> tensor<2x3x5x8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.attention' op out #0 has shape [2, 3, 5, 8] but softmax(Q @ K^T) @ V has shape [2, 5, 3, 8]
  func.return %r : tensor<2x3x5x8xf32>
}
