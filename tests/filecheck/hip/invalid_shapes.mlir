// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The verifier checks the static dims of every out against the op's shape rule
// (xhip.shapes, the rule the converter sized the destination with), in tensor
// and memref mode. Runtime dims are not compared: `?` agrees with anything.

// The seed RFC's Problem 1: Max([4, 1], [4, 8]) written into a [4, 1] destination.
func.func @max_one_operand_dims(%ctx: !hip.context, %lhs: tensor<4x1xf32>, %rhs: tensor<4x8xf32>) {
  %r = hip.max(%ctx) ins(%lhs, %rhs : tensor<4x1xf32>, tensor<4x8xf32>) outs(%lhs : tensor<4x1xf32>) -> tensor<4x1xf32>
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.max' op out #0 has shape [4, 1] but the operands broadcast to [4, 8]
  func.return
}

// -----

// A static extent other than 1 decides a broadcast dim even against `?`.
func.func @add_dynamic_against_static(%ctx: !hip.context, %lhs: memref<?x1xf32>, %rhs: memref<?x8xf32>, %out: memref<?x1xf32>) {
  hip.add(%ctx) ins(%lhs, %rhs : memref<?x1xf32>, memref<?x8xf32>) outs(%out : memref<?x1xf32>)
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.add' op out #0 has shape [?, 1] but the operands broadcast to [?, 8]
  func.return
}

// -----

func.func @broadcast_mismatch(%ctx: !hip.context, %lhs: memref<3xf32>, %rhs: memref<4xf32>) {
  hip.mul(%ctx) ins(%lhs, %rhs : memref<3xf32>, memref<4xf32>) outs(%rhs : memref<4xf32>)
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.mul' op operands: cannot broadcast [3] with [4] (extents 3 and 4 at result dim 0)
  func.return
}

// -----

func.func @cumsum_shape(%ctx: !hip.context, %x: memref<?x8xf32>, %y: memref<?x4xf32>) {
  hip.cumsum(%ctx) ins(%x : memref<?x8xf32>) outs(%y : memref<?x4xf32>) {axis = 1 : i64}
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.cumsum' op out #0 has shape [?, 4] but the input has shape [?, 8]
  func.return
}

// -----

func.func @isnan_shape(%ctx: !hip.context, %x: tensor<3xf32>, %y: tensor<4xi1>) {
  %r = hip.isnan(%ctx) ins(%x : tensor<3xf32>) outs(%y : tensor<4xi1>) -> tensor<4xi1>
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.isnan' op out #0 has shape [4] but the input has shape [3]
  func.return
}

// -----

func.func @unary_shape(%ctx: !hip.context, %x: memref<4x8xf32>, %y: memref<4x9xf32>) {
  hip.exp(%ctx) ins(%x : memref<4x8xf32>) outs(%y : memref<4x9xf32>)
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.exp' op out #0 has shape [4, 9] but the input has shape [4, 8]
  func.return
}

// -----

func.func @softmax_shape(%ctx: !hip.context, %x: tensor<?x8xf32>, %y: tensor<?x7xf32>) {
  %r = hip.softmax(%ctx) ins(%x : tensor<?x8xf32>) outs(%y : tensor<?x7xf32>) {axis = 0 : i64} -> tensor<?x7xf32>
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.softmax' op out #0 has shape [?, 7] but the input has shape [?, 8]
  func.return
}

// -----

// MatMul batch dims broadcast; they are not A's by position.
func.func @matmul_batch_from_a(%ctx: !hip.context, %a: memref<1x4x8xf32>, %b: memref<3x8x5xf32>, %c: memref<1x4x5xf32>) {
  hip.matmul(%ctx) ins(%a, %b : memref<1x4x8xf32>, memref<3x8x5xf32>) outs(%c : memref<1x4x5xf32>)
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op out #0 has shape [1, 4, 5] but the operands multiply to [3, 4, 5]
  func.return
}

// -----

func.func @matmul_contraction(%ctx: !hip.context, %a: tensor<4x8xf32>, %b: tensor<7x5xf32>, %c: tensor<4x5xf32>) {
  %r = hip.matmul(%ctx) ins(%a, %b : tensor<4x8xf32>, tensor<7x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op MatMul contraction dims differ: 8 vs 7
  func.return
}

// -----

// trans_b reads B [N, K]: a B that multiplies untransposed is refused.
func.func @matmul_trans_b_contraction(%ctx: !hip.context, %a: tensor<4x8xf32>, %b: tensor<8x5xf32>, %c: tensor<4x5xf32>) {
  %r = hip.matmul(%ctx) ins(%a, %b : tensor<4x8xf32>, tensor<8x5xf32>) outs(%c : tensor<4x5xf32>) {trans_b = true} -> tensor<4x5xf32>
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op MatMul contraction dims differ: 8 vs 5
  func.return
}

// -----

func.func @matmul_trans_b_out(%ctx: !hip.context, %a: tensor<4x8xf32>, %b: tensor<5x8xf32>, %c: tensor<4x8xf32>) {
  %r = hip.matmul(%ctx) ins(%a, %b : tensor<4x8xf32>, tensor<5x8xf32>) outs(%c : tensor<4x8xf32>) {trans_b = true} -> tensor<4x8xf32>
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op out #0 has shape [4, 8] but the operands multiply to [4, 5]
  func.return
}

// -----

// Gemm's N follows transB: B [5, 8] transposed gives N = 5, not B's dim 1.
func.func @gemm_trans_b(%ctx: !hip.context, %a: memref<?x8xf32>, %b: memref<5x8xf32>, %c: memref<?x8xf32>) {
  hip.gemm(%ctx) ins(%a, %b : memref<?x8xf32>, memref<5x8xf32>) outs(%c : memref<?x8xf32>) {trans_b = true}
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.gemm' op out #0 has shape [?, 8] but op(A) x op(B) has shape [?, 5]
  func.return
}

// -----

func.func @gemm_c(%ctx: !hip.context, %a: memref<4x8xf32>, %b: memref<8x5xf32>, %bias: memref<4xf32>, %c: memref<4x5xf32>) {
  hip.gemm(%ctx) ins(%a, %b, %bias : memref<4x8xf32>, memref<8x5xf32>, memref<4xf32>) outs(%c : memref<4x5xf32>)
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.gemm' op Gemm C [4] does not broadcast to [4, 5]
  func.return
}

// -----

func.func @reduce_keepdims(%ctx: !hip.context, %x: memref<?x6x8xf32>, %y: memref<?x6x8xf32>) {
  hip.reduce_mean(%ctx) ins(%x : memref<?x6x8xf32>) outs(%y : memref<?x6x8xf32>) {axes = array<i64: -1>}
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.reduce_mean' op out #0 has shape [?, 6, 8] but the reduction has shape [?, 6, 1]
  func.return
}

// -----

func.func @reduce_dropped_axis(%ctx: !hip.context, %x: tensor<?x6x8xf32>, %y: tensor<?x8xf32>) {
  %r = hip.reduce_sum(%ctx) ins(%x : tensor<?x6x8xf32>) outs(%y : tensor<?x8xf32>) {axes = array<i64: 2>, keepdims = false} -> tensor<?x8xf32>
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.reduce_sum' op out #0 has shape [?, 8] but the reduction has shape [?, 6]
  func.return
}

// -----

func.func @transpose_perm(%ctx: !hip.context, %x: memref<?x4x64xf32>, %y: memref<?x4x64xf32>) {
  hip.transpose(%ctx) ins(%x : memref<?x4x64xf32>) outs(%y : memref<?x4x64xf32>) {perm = array<i64: 0, 2, 1>}
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.transpose' op out #0 has shape [?, 4, 64] but the permuted input has shape [?, 64, 4]
  func.return
}

// -----

func.func @concat_extent(%ctx: !hip.context, %a: memref<2x3xf32>, %b: memref<4x3xf32>, %c: memref<5x3xf32>) {
  hip.concat(%ctx) ins(%a, %b : memref<2x3xf32>, memref<4x3xf32>) outs(%c : memref<5x3xf32>) {axis = 0 : i64}
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.concat' op out #0 has shape [5, 3] but the inputs concatenate to [6, 3]
  func.return
}

// -----

func.func @concat_other_dim(%ctx: !hip.context, %a: memref<2x3xf32>, %b: memref<?x4xf32>, %c: memref<?x3xf32>) {
  hip.concat(%ctx) ins(%a, %b : memref<2x3xf32>, memref<?x4xf32>) outs(%c : memref<?x3xf32>) {axis = 0 : i64}
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.concat' op Concat operand 1 has extent 4 at dim 1, expected 3
  func.return
}

// -----

func.func @gather_shape(%ctx: !hip.context, %x: memref<?x10x64xf32>, %i: memref<5xi64>, %y: memref<?x10x64xf32>) {
  hip.gather(%ctx) ins(%x, %i : memref<?x10x64xf32>, memref<5xi64>) outs(%y : memref<?x10x64xf32>) {axis = 1 : i64}
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.gather' op out #0 has shape [?, 10, 64] but the gather has shape [?, 5, 64]
  func.return
}

// -----

func.func @gather_nd_shape(%ctx: !hip.context, %x: memref<4x6x8xf32>, %i: memref<3x2xi64>, %y: memref<3x6xf32>) {
  hip.gather_nd(%ctx) ins(%x, %i : memref<4x6x8xf32>, memref<3x2xi64>) outs(%y : memref<3x6xf32>)
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.gather_nd' op out #0 has shape [3, 6] but the gather has shape [3, 8]
  func.return
}

// -----

// NonZero's indices hold one column per input element (the capacity).
func.func @nonzero_capacity(%ctx: !hip.context, %x: memref<2x3xf32>, %idx: memref<2x5xi64>, %count: memref<i64>) {
  hip.nonzero(%ctx) ins(%x : memref<2x3xf32>) outs(%idx, %count : memref<2x5xi64>, memref<i64>)
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.nonzero' op out #0 has shape [2, 5] but the input's nonzero output has shape [2, 6]
  func.return
}

// -----

// im2col's columns: a row per channel and tap (2 x 9), a column per window position (2 x 2
// at stride 2 over 4 x 4 padded by 1).
func.func @im2col_columns(%ctx: !hip.context, %x: memref<1x2x4x4xf32>, %y: memref<1x18x16xf32>) {
  hip.im2col(%ctx) ins(%x : memref<1x2x4x4xf32>) outs(%y : memref<1x18x16xf32>) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>}
  // CHECK: {{.*}}invalid_shapes.mlir:[[# @LINE - 1]]:3: error: 'hip.im2col' op out #0 has shape [1, 18, 16] but the windows' columns have shape [1, 18, 4]
  func.return
}
