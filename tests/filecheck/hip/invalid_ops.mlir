// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Every op-specific verifier error of the compute ops (element types, ranks,
// attribute ranges), one chunk each, located at the op.

func.func @sigmoid_int(%ctx: !hip.context, %x: memref<4xi32>) {
  hip.sigmoid(%ctx) ins(%x : memref<4xi32>) outs(%x : memref<4xi32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.sigmoid' op input must have a float element type, got i32
  func.return
}

// -----

func.func @relu_bool(%ctx: !hip.context, %x: memref<4xi1>) {
  hip.relu(%ctx) ins(%x : memref<4xi1>) outs(%x : memref<4xi1>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.relu' op input must have an integer or float element type, got i1
  func.return
}

// -----

func.func @not_float(%ctx: !hip.context, %x: memref<4xf32>) {
  hip.not(%ctx) ins(%x : memref<4xf32>) outs(%x : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.not' op input must have i1 elements, got f32
  func.return
}

// -----

func.func @exp_elements(%ctx: !hip.context, %x: memref<4xf16>, %y: memref<4xf32>) {
  hip.exp(%ctx) ins(%x : memref<4xf16>) outs(%y : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.exp' op input and output must share one element type, got f16, f32
  func.return
}

// -----

func.func @tanh_rank(%ctx: !hip.context, %x: memref<4x4xf32>, %y: memref<16xf32>) {
  hip.tanh(%ctx) ins(%x : memref<4x4xf32>) outs(%y : memref<16xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.tanh' op output must have rank 2, got memref<16xf32>
  func.return
}

// -----

func.func @copy_elements(%ctx: !hip.context, %x: memref<4xi32>, %y: memref<4xi64>) {
  hip.copy(%ctx) ins(%x : memref<4xi32>) outs(%y : memref<4xi64>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.copy' op input and output must share one element type, got i32, i64
  func.return
}

// -----

func.func @isnan_int(%ctx: !hip.context, %x: memref<4xi32>, %y: memref<4xi1>) {
  hip.isnan(%ctx) ins(%x : memref<4xi32>) outs(%y : memref<4xi1>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.isnan' op input must have a float element type, got i32
  func.return
}

// -----

func.func @isnan_float_output(%ctx: !hip.context, %x: memref<4xf32>) {
  hip.isnan(%ctx) ins(%x : memref<4xf32>) outs(%x : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.isnan' op output must have i1 elements, got f32
  func.return
}

// -----

func.func @isnan_rank(%ctx: !hip.context, %x: memref<2x2xf32>, %y: memref<4xi1>) {
  hip.isnan(%ctx) ins(%x : memref<2x2xf32>) outs(%y : memref<4xi1>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.isnan' op output must have rank 2, got memref<4xi1>
  func.return
}

// -----

func.func @cumsum_axis(%ctx: !hip.context, %x: tensor<?x4xi64>) {
  %r = hip.cumsum(%ctx) ins(%x : tensor<?x4xi64>) outs(%x : tensor<?x4xi64>) {axis = 2 : i64} -> tensor<?x4xi64>
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.cumsum' op axis 2 is out of range for rank 2 (expected [-2, 2))
  func.return
}

// -----

func.func @cumsum_bool(%ctx: !hip.context, %x: memref<4xi1>) {
  hip.cumsum(%ctx) ins(%x : memref<4xi1>) outs(%x : memref<4xi1>) {axis = 0 : i64}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.cumsum' op input must have an integer or float element type, got i1
  func.return
}

// -----

func.func @cumsum_elements(%ctx: !hip.context, %x: memref<4xi32>, %y: memref<4xi64>) {
  hip.cumsum(%ctx) ins(%x : memref<4xi32>) outs(%y : memref<4xi64>) {axis = 0 : i64}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.cumsum' op input and output must share one element type, got i32, i64
  func.return
}

// -----

func.func @gelu_mode(%ctx: !hip.context, %x: memref<4xf32>) {
  hip.gelu(%ctx) ins(%x : memref<4xf32>) outs(%x : memref<4xf32>) {approximate = "fast"}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gelu' op approximate must be "none" or "tanh", got "fast"
  func.return
}

// -----

func.func @softmax_axis(%ctx: !hip.context, %x: tensor<2x3x4xf32>) {
  %r = hip.softmax(%ctx) ins(%x : tensor<2x3x4xf32>) outs(%x : tensor<2x3x4xf32>) {axis = 3 : i64} -> tensor<2x3x4xf32>
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.softmax' op axis 3 is out of range for rank 3 (expected [-3, 3))
  func.return
}

// -----

func.func @softmax_scalar(%ctx: !hip.context, %x: tensor<f32>) {
  %r = hip.softmax(%ctx) ins(%x : tensor<f32>) outs(%x : tensor<f32>) -> tensor<f32>
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.softmax' op axis -1 is out of range for rank 0 (expected [0, 0))
  func.return
}

// -----

func.func @cast_rank(%ctx: !hip.context, %x: memref<4xf32>, %y: memref<1x4xi32>) {
  hip.cast(%ctx) ins(%x : memref<4xf32>) outs(%y : memref<1x4xi32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.cast' op output must have rank 1, got memref<1x4xi32>
  func.return
}

// -----

func.func @add_bool(%ctx: !hip.context, %x: memref<4xi1>) {
  hip.add(%ctx) ins(%x, %x : memref<4xi1>, memref<4xi1>) outs(%x : memref<4xi1>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.add' op inputs must have an integer or float element type, got i1
  func.return
}

// -----

func.func @sub_elements(%ctx: !hip.context, %x: memref<4xf32>, %y: memref<4xf16>) {
  hip.sub(%ctx) ins(%x, %y : memref<4xf32>, memref<4xf16>) outs(%x : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.sub' op inputs and output must share one element type, got f16, f32
  func.return
}

// -----

func.func @mul_rank(%ctx: !hip.context, %x: memref<2x4xf32>, %y: memref<4xf32>) {
  hip.mul(%ctx) ins(%x, %y : memref<2x4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.mul' op output must have rank 2, got memref<4xf32>
  func.return
}

// -----

func.func @div_out_elements(%ctx: !hip.context, %x: memref<4xi32>, %y: memref<4xf32>) {
  hip.div(%ctx) ins(%x, %x : memref<4xi32>, memref<4xi32>) outs(%y : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.div' op inputs and output must share one element type, got f32, i32
  func.return
}

// -----

func.func @pow_exponent(%ctx: !hip.context, %x: memref<4xf32>, %e: memref<4xi1>) {
  hip.pow(%ctx) ins(%x, %e : memref<4xf32>, memref<4xi1>) outs(%x : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.pow' op exponent must have an integer or float element type, got i1
  func.return
}

// -----

func.func @max_elements(%ctx: !hip.context, %x: memref<4xf32>, %y: memref<4xf16>) {
  hip.max(%ctx) ins(%x, %x, %y : memref<4xf32>, memref<4xf32>, memref<4xf16>) outs(%x : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.max' op inputs and output must share one element type, got f16, f32
  func.return
}

// -----

func.func @min_rank(%ctx: !hip.context, %x: memref<3x4xf32>, %y: memref<4xf32>) {
  hip.min(%ctx) ins(%x : memref<3x4xf32>) outs(%y : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.min' op output must have rank 2, got memref<4xf32>
  func.return
}

// -----

func.func @and_float(%ctx: !hip.context, %x: memref<4xf32>) {
  hip.and(%ctx) ins(%x, %x : memref<4xf32>, memref<4xf32>) outs(%x : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.and' op inputs must have i1 elements, got f32
  func.return
}

// -----

func.func @or_int(%ctx: !hip.context, %x: memref<4xi8>) {
  hip.or(%ctx) ins(%x, %x : memref<4xi8>, memref<4xi8>) outs(%x : memref<4xi8>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.or' op inputs must have i1 elements, got i8
  func.return
}

// -----

func.func @less_output(%ctx: !hip.context, %x: memref<4xf32>) {
  hip.less(%ctx) ins(%x, %x : memref<4xf32>, memref<4xf32>) outs(%x : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.less' op comparison output must have i1 elements, got f32
  func.return
}

// -----

func.func @equal_inputs(%ctx: !hip.context, %x: memref<4xf32>, %y: memref<4xi32>, %p: memref<4xi1>) {
  hip.equal(%ctx) ins(%x, %y : memref<4xf32>, memref<4xi32>) outs(%p : memref<4xi1>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.equal' op inputs must share one element type, got f32, i32
  func.return
}

// -----

func.func @greater_bool(%ctx: !hip.context, %p: memref<4xi1>) {
  hip.greater(%ctx) ins(%p, %p : memref<4xi1>, memref<4xi1>) outs(%p : memref<4xi1>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.greater' op inputs must have an integer or float element type, got i1
  func.return
}

// -----

func.func @less_equal_rank(%ctx: !hip.context, %x: memref<2x4xf32>, %p: memref<4xi1>) {
  hip.less_equal(%ctx) ins(%x, %x : memref<2x4xf32>, memref<2x4xf32>) outs(%p : memref<4xi1>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.less_equal' op output must have rank 2, got memref<4xi1>
  func.return
}

// -----

func.func @greater_equal_output(%ctx: !hip.context, %x: memref<4xi64>) {
  hip.greater_equal(%ctx) ins(%x, %x : memref<4xi64>, memref<4xi64>) outs(%x : memref<4xi64>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.greater_equal' op comparison output must have i1 elements, got i64
  func.return
}

// -----

func.func @where_condition(%ctx: !hip.context, %x: memref<4xf32>) {
  hip.where(%ctx) ins(%x, %x, %x : memref<4xf32>, memref<4xf32>, memref<4xf32>) outs(%x : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.where' op condition must have i1 elements, got f32
  func.return
}

// -----

func.func @where_branches(%ctx: !hip.context, %p: memref<4xi1>, %x: memref<4xf32>, %y: memref<4xi32>) {
  hip.where(%ctx) ins(%p, %x, %y : memref<4xi1>, memref<4xf32>, memref<4xi32>) outs(%x : memref<4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.where' op inputs and output must share one element type, got f32, i32
  func.return
}

// -----

func.func @matmul_trans_b_vector(%ctx: !hip.context, %a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4xf32>) {
  %r = hip.matmul(%ctx) ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%c : tensor<4xf32>) {trans_b = true} -> tensor<4xf32>
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op a transposed B must have rank >= 2, got tensor<8xf32>
  func.return
}

// -----

func.func @matmul_scalar(%ctx: !hip.context, %a: tensor<f32>, %b: tensor<4xf32>) {
  %r = hip.matmul(%ctx) ins(%a, %b : tensor<f32>, tensor<4xf32>) outs(%a : tensor<f32>) -> tensor<f32>
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op operands must have rank >= 1, got tensor<f32> and tensor<4xf32>
  func.return
}

// -----

func.func @matmul_rank(%ctx: !hip.context, %a: memref<2x3x4xf32>, %b: memref<4x5xf32>, %c: memref<2x5xf32>) {
  hip.matmul(%ctx) ins(%a, %b : memref<2x3x4xf32>, memref<4x5xf32>) outs(%c : memref<2x5xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op output must have rank 3, got memref<2x5xf32>
  func.return
}

// -----

func.func @matmul_vectors(%ctx: !hip.context, %a: memref<4xf32>, %c: memref<1xf32>) {
  hip.matmul(%ctx) ins(%a, %a : memref<4xf32>, memref<4xf32>) outs(%c : memref<1xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op output must have rank 0, got memref<1xf32>
  func.return
}

// -----

func.func @matmul_elements(%ctx: !hip.context, %a: memref<4x4xf32>, %b: memref<4x4xf16>) {
  hip.matmul(%ctx) ins(%a, %b : memref<4x4xf32>, memref<4x4xf16>) outs(%a : memref<4x4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.matmul' op A, B and output must share one element type, got f16, f32
  func.return
}

// -----

func.func @gemm_rank(%ctx: !hip.context, %a: memref<2x4x4xf32>, %b: memref<4x4xf32>) {
  hip.gemm(%ctx) ins(%a, %b : memref<2x4x4xf32>, memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gemm' op A must have rank 2, got memref<2x4x4xf32>
  func.return
}

// -----

func.func @gemm_rank_b(%ctx: !hip.context, %a: memref<4x4xf32>, %b: memref<4xf32>) {
  hip.gemm(%ctx) ins(%a, %b : memref<4x4xf32>, memref<4xf32>) outs(%a : memref<4x4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gemm' op B must have rank 2, got memref<4xf32>
  func.return
}

// -----

func.func @gemm_c_rank(%ctx: !hip.context, %a: memref<4x4xf32>, %c: memref<1x4x4xf32>) {
  hip.gemm(%ctx) ins(%a, %a, %c : memref<4x4xf32>, memref<4x4xf32>, memref<1x4x4xf32>) outs(%a : memref<4x4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gemm' op C must have rank <= 2, got memref<1x4x4xf32>
  func.return
}

// -----

func.func @gemm_output(%ctx: !hip.context, %a: memref<4x4xf32>, %o: memref<16xf32>) {
  hip.gemm(%ctx) ins(%a, %a : memref<4x4xf32>, memref<4x4xf32>) outs(%o : memref<16xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gemm' op output must have rank 2, got memref<16xf32>
  func.return
}

// -----

func.func @gemm_elements(%ctx: !hip.context, %a: memref<4x4xi1>) {
  hip.gemm(%ctx) ins(%a, %a : memref<4x4xi1>, memref<4x4xi1>) outs(%a : memref<4x4xi1>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gemm' op A must have an integer or float element type, got i1
  func.return
}

// -----

func.func @layer_norm_int(%ctx: !hip.context, %x: memref<2x4xi32>, %s: memref<4xi32>) {
  hip.layer_norm(%ctx) ins(%x, %s : memref<2x4xi32>, memref<4xi32>) outs(%x : memref<2x4xi32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.layer_norm' op input must have a float element type, got i32
  func.return
}

// -----

func.func @layer_norm_scale(%ctx: !hip.context, %x: memref<2x4xf32>, %s: memref<4xf16>) {
  hip.layer_norm(%ctx) ins(%x, %s : memref<2x4xf32>, memref<4xf16>) outs(%x : memref<2x4xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.layer_norm' op operands and output must share one element type, got f16, f32
  func.return
}

// -----

func.func @layer_norm_axis(%ctx: !hip.context, %x: memref<2x4xf32>, %s: memref<4xf32>) {
  hip.layer_norm(%ctx) ins(%x, %s : memref<2x4xf32>, memref<4xf32>) outs(%x : memref<2x4xf32>) {axis = -3 : i64}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.layer_norm' op axis -3 is out of range for rank 2 (expected [-2, 2))
  func.return
}

// -----

func.func @layer_norm_rank(%ctx: !hip.context, %x: memref<2x4xf32>, %s: memref<4xf32>, %y: memref<8xf32>) {
  hip.layer_norm(%ctx) ins(%x, %s : memref<2x4xf32>, memref<4xf32>) outs(%y : memref<8xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.layer_norm' op output must have rank 2, got memref<8xf32>
  func.return
}

// -----

func.func @reduce_axis(%ctx: !hip.context, %x: memref<2x3x4xf32>) {
  hip.reduce_mean(%ctx) ins(%x : memref<2x3x4xf32>) outs(%x : memref<2x3x4xf32>) {axes = array<i64: 3>}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.reduce_mean' op axis 3 is out of range for rank 3 (expected [-3, 3))
  func.return
}

// -----

func.func @reduce_repeat(%ctx: !hip.context, %x: memref<2x3x4xf32>) {
  hip.reduce_sum(%ctx) ins(%x : memref<2x3x4xf32>) outs(%x : memref<2x3x4xf32>) {axes = array<i64: 1, -2>}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.reduce_sum' op axes [1, -2] repeat an axis
  func.return
}

// -----

func.func @reduce_rank(%ctx: !hip.context, %x: memref<2x3x4xf32>, %y: memref<2x4xf32>) {
  hip.reduce_max(%ctx) ins(%x : memref<2x3x4xf32>) outs(%y : memref<2x4xf32>) {axes = array<i64: 1>}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.reduce_max' op output must have rank 3, got memref<2x4xf32>
  func.return
}

// -----

func.func @reduce_all_rank(%ctx: !hip.context, %x: memref<2x3xf32>, %y: memref<1xf32>) {
  hip.reduce_sum(%ctx) ins(%x : memref<2x3xf32>) outs(%y : memref<1xf32>) {keepdims = false}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.reduce_sum' op output must have rank 0, got memref<1xf32>
  func.return
}

// -----

func.func @reduce_bool(%ctx: !hip.context, %x: memref<2xi1>, %y: memref<i1>) {
  hip.reduce_max(%ctx) ins(%x : memref<2xi1>) outs(%y : memref<i1>) {keepdims = false}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.reduce_max' op input must have an integer or float element type, got i1
  func.return
}

// -----

func.func @transpose_perm(%ctx: !hip.context, %x: memref<2x3xf32>, %y: memref<3x2xf32>) {
  hip.transpose(%ctx) ins(%x : memref<2x3xf32>) outs(%y : memref<3x2xf32>) {perm = array<i64: 0, 0>}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.transpose' op perm [0, 0] is not a permutation of the input rank 2
  func.return
}

// -----

func.func @transpose_perm_length(%ctx: !hip.context, %x: memref<2x3xf32>, %y: memref<3x2xf32>) {
  hip.transpose(%ctx) ins(%x : memref<2x3xf32>) outs(%y : memref<3x2xf32>) {perm = array<i64: 2, 1, 0>}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.transpose' op perm [2, 1, 0] is not a permutation of the input rank 2
  func.return
}

// -----

func.func @transpose_rank(%ctx: !hip.context, %x: memref<2x3xf32>, %y: memref<6xf32>) {
  hip.transpose(%ctx) ins(%x : memref<2x3xf32>) outs(%y : memref<6xf32>) {perm = array<i64: 1, 0>}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.transpose' op output must have rank 2, got memref<6xf32>
  func.return
}

// -----

func.func @transpose_elements(%ctx: !hip.context, %x: memref<2x3xf32>, %y: memref<3x2xf16>) {
  hip.transpose(%ctx) ins(%x : memref<2x3xf32>) outs(%y : memref<3x2xf16>) {perm = array<i64: 1, 0>}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.transpose' op inputs and outputs must share one element type, got f16, f32
  func.return
}

// -----

func.func @concat_rank(%ctx: !hip.context, %a: memref<2x3xf32>, %b: memref<3xf32>, %c: memref<5x3xf32>) {
  hip.concat(%ctx) ins(%a, %b : memref<2x3xf32>, memref<3xf32>) outs(%c : memref<5x3xf32>) {axis = 0 : i64}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.concat' op input #1 must have rank 2, got memref<3xf32>
  func.return
}

// -----

func.func @concat_axis(%ctx: !hip.context, %a: memref<2x3xf32>, %c: memref<4x3xf32>) {
  hip.concat(%ctx) ins(%a, %a : memref<2x3xf32>, memref<2x3xf32>) outs(%c : memref<4x3xf32>) {axis = 2 : i64}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.concat' op axis 2 is out of range for rank 2 (expected [-2, 2))
  func.return
}

// -----

func.func @split_rank(%ctx: !hip.context, %x: memref<4x3xf32>, %a: memref<2x3xf32>, %b: memref<6xf32>) {
  hip.split(%ctx) ins(%x : memref<4x3xf32>) outs(%a, %b : memref<2x3xf32>, memref<6xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.split' op output #1 must have rank 2, got memref<6xf32>
  func.return
}

// -----

func.func @split_axis(%ctx: !hip.context, %x: memref<4x3xf32>, %a: memref<2x3xf32>) {
  hip.split(%ctx) ins(%x : memref<4x3xf32>) outs(%a, %a : memref<2x3xf32>, memref<2x3xf32>) {axis = -3 : i64}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.split' op axis -3 is out of range for rank 2 (expected [-2, 2))
  func.return
}

// -----

func.func @slice_rank(%ctx: !hip.context, %x: memref<4xf32>, %y: memref<2x2xf32>, %c: index) {
  hip.slice(%ctx, %c, %c) ins(%x : memref<4xf32>) outs(%y : memref<2x2xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.slice' op output must have rank 1, got memref<2x2xf32>
  func.return
}

// -----

func.func @expand_rank(%ctx: !hip.context, %x: memref<2x3xf32>, %y: memref<3xf32>) {
  hip.expand(%ctx) ins(%x : memref<2x3xf32>) outs(%y : memref<3xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.expand' op cannot expand memref<2x3xf32> to the lower rank of memref<3xf32>
  func.return
}

// -----

func.func @expand_elements(%ctx: !hip.context, %x: memref<3xf32>, %y: memref<2x3xi32>) {
  hip.expand(%ctx) ins(%x : memref<3xf32>) outs(%y : memref<2x3xi32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.expand' op inputs and outputs must share one element type, got f32, i32
  func.return
}

// -----

func.func @gather_indices(%ctx: !hip.context, %x: memref<4x3xf32>, %i: memref<2xf32>, %y: memref<2x3xf32>) {
  hip.gather(%ctx) ins(%x, %i : memref<4x3xf32>, memref<2xf32>) outs(%y : memref<2x3xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gather' op indices must have i32 or i64 elements, got f32
  func.return
}

// -----

func.func @gather_scalar_data(%ctx: !hip.context, %x: memref<f32>, %i: memref<2xi64>, %y: memref<2xf32>) {
  hip.gather(%ctx) ins(%x, %i : memref<f32>, memref<2xi64>) outs(%y : memref<2xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gather' op data must have rank >= 1, got memref<f32>
  func.return
}

// -----

func.func @gather_axis(%ctx: !hip.context, %x: memref<4x3xf32>, %i: memref<2xi64>, %y: memref<4x2xf32>) {
  hip.gather(%ctx) ins(%x, %i : memref<4x3xf32>, memref<2xi64>) outs(%y : memref<4x2xf32>) {axis = 2 : i64}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gather' op axis 2 is out of range for rank 2 (expected [-2, 2))
  func.return
}

// -----

func.func @gather_rank(%ctx: !hip.context, %x: memref<4x3xf32>, %i: memref<2x2xi64>, %y: memref<2x3xf32>) {
  hip.gather(%ctx) ins(%x, %i : memref<4x3xf32>, memref<2x2xi64>) outs(%y : memref<2x3xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gather' op output must have rank 3, got memref<2x3xf32>
  func.return
}

// -----

func.func @gather_elements(%ctx: !hip.context, %x: memref<4x3xf32>, %i: memref<2xi64>, %y: memref<2x3xi64>) {
  hip.gather(%ctx) ins(%x, %i : memref<4x3xf32>, memref<2xi64>) outs(%y : memref<2x3xi64>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gather' op inputs and outputs must share one element type, got f32, i64
  func.return
}

// -----

func.func @gather_elements_rank(%ctx: !hip.context, %x: memref<4x3xf32>, %i: memref<2xi64>, %y: memref<2xf32>) {
  hip.gather_elements(%ctx) ins(%x, %i : memref<4x3xf32>, memref<2xi64>) outs(%y : memref<2xf32>) {axis = 0 : i64}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gather_elements' op indices must have rank 2, got memref<2xi64>
  func.return
}

// -----

func.func @gather_elements_shape(%ctx: !hip.context, %x: memref<4x3xf32>, %i: memref<2x3xi64>, %y: memref<2x2xf32>) {
  hip.gather_elements(%ctx) ins(%x, %i : memref<4x3xf32>, memref<2x3xi64>) outs(%y : memref<2x2xf32>) {axis = 1 : i64}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gather_elements' op out #0 has shape [2, 2] but the indices have shape [2, 3]
  func.return
}

// -----

func.func @gather_nd_indices_rank(%ctx: !hip.context, %x: memref<4x3xf32>, %i: memref<i64>, %y: memref<3xf32>) {
  hip.gather_nd(%ctx) ins(%x, %i : memref<4x3xf32>, memref<i64>) outs(%y : memref<3xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gather_nd' op indices must have rank >= 1
  func.return
}

// -----

func.func @gather_nd_batch(%ctx: !hip.context, %x: memref<4x3xf32>, %i: memref<4x1xi64>, %y: memref<4xf32>) {
  hip.gather_nd(%ctx) ins(%x, %i : memref<4x3xf32>, memref<4x1xi64>) outs(%y : memref<4xf32>) {batch_dims = 2 : i64}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gather_nd' op batch_dims 2 must be in [0, 2)
  func.return
}

// -----

func.func @gather_nd_depth(%ctx: !hip.context, %x: memref<4x3xf32>, %i: memref<5x3xi64>, %y: memref<5xf32>) {
  hip.gather_nd(%ctx) ins(%x, %i : memref<4x3xf32>, memref<5x3xi64>) outs(%y : memref<5xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gather_nd' op indices depth 3 exceeds data rank 2 - batch_dims 0
  func.return
}

// -----

func.func @gather_nd_rank(%ctx: !hip.context, %x: memref<4x3xf32>, %i: memref<5x1xi64>, %y: memref<5xf32>) {
  hip.gather_nd(%ctx) ins(%x, %i : memref<4x3xf32>, memref<5x1xi64>) outs(%y : memref<5xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.gather_nd' op output must have rank 2, got memref<5xf32>
  func.return
}

// -----

func.func @range_rank(%ctx: !hip.context, %y: memref<2x3xf32>, %s: f32) {
  hip.range(%ctx, %s, %s) outs(%y : memref<2x3xf32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.range' op output must have rank 1, got memref<2x3xf32>
  func.return
}

// -----

func.func @range_bool(%ctx: !hip.context, %y: memref<4xi1>, %s: i1) {
  hip.range(%ctx, %s, %s) outs(%y : memref<4xi1>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.range' op output must have an integer or float element type, got i1
  func.return
}

// -----

func.func @range_scalar_type(%ctx: !hip.context, %y: memref<?xi64>, %s: f32, %d: i64) {
  hip.range(%ctx, %s, %d) outs(%y : memref<?xi64>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.range' op scalar operand #0 must be i64, got f32
  func.return
}

// -----

func.func @fill_scalar_type(%ctx: !hip.context, %y: memref<4xf16>, %v: f32) {
  hip.fill(%ctx, %v) outs(%y : memref<4xf16>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.fill' op scalar operand #0 must be f16, got f32
  func.return
}

// -----

func.func @nonzero_indices_rank(%ctx: !hip.context, %x: memref<4xf32>, %i: memref<4xi64>, %n: memref<i64>) {
  hip.nonzero(%ctx) ins(%x : memref<4xf32>) outs(%i, %n : memref<4xi64>, memref<i64>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.nonzero' op indices output must have rank 2, got memref<4xi64>
  func.return
}

// -----

func.func @nonzero_rows(%ctx: !hip.context, %x: memref<4x4xf32>, %i: memref<1x16xi64>, %n: memref<i64>) {
  hip.nonzero(%ctx) ins(%x : memref<4x4xf32>) outs(%i, %n : memref<1x16xi64>, memref<i64>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.nonzero' op indices output must have 2 rows (the input rank), got 1
  func.return
}

// -----

func.func @nonzero_indices_type(%ctx: !hip.context, %x: memref<4xf32>, %i: memref<1x4xi32>, %n: memref<i64>) {
  hip.nonzero(%ctx) ins(%x : memref<4xf32>) outs(%i, %n : memref<1x4xi32>, memref<i64>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.nonzero' op indices output must have i64 elements, got i32
  func.return
}

// -----

func.func @nonzero_count_rank(%ctx: !hip.context, %x: memref<4xf32>, %i: memref<1x4xi64>, %n: memref<1xi64>) {
  hip.nonzero(%ctx) ins(%x : memref<4xf32>) outs(%i, %n : memref<1x4xi64>, memref<1xi64>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.nonzero' op count output must have rank 0, got memref<1xi64>
  func.return
}

// -----

func.func @nonzero_count_type(%ctx: !hip.context, %x: memref<4xf32>, %i: memref<1x4xi64>, %n: memref<f32>) {
  hip.nonzero(%ctx) ins(%x : memref<4xf32>) outs(%i, %n : memref<1x4xi64>, memref<f32>)
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.nonzero' op count output must have i32 or i64 elements, got f32
  func.return
}

// -----

func.func @im2col_rank(%ctx: !hip.context, %x: memref<1x2x4x4xf32>, %y: memref<1x18x4x4xf32>) {
  hip.im2col(%ctx) ins(%x : memref<1x2x4x4xf32>) outs(%y : memref<1x18x4x4xf32>) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.im2col' op output must have rank 3, got memref<1x18x4x4xf32>
  func.return
}

// -----

func.func @im2col_window(%ctx: !hip.context, %x: memref<1x2x4x4xf32>, %y: memref<1x6x16xf32>) {
  hip.im2col(%ctx) ins(%x : memref<1x2x4x4xf32>) outs(%y : memref<1x6x16xf32>) {kernel_shape = array<i64: 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.im2col' op an input of rank 4 takes 2 kernel extents, strides and dilations and 4 pads
  func.return
}

// -----

func.func @im2col_stride(%ctx: !hip.context, %x: memref<1x2x4x4xf32>, %y: memref<1x18x16xf32>) {
  hip.im2col(%ctx) ins(%x : memref<1x2x4x4xf32>) outs(%y : memref<1x18x16xf32>) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 0, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>}
  // CHECK: {{.*}}invalid_ops.mlir:[[# @LINE - 1]]:3: error: 'hip.im2col' op kernel extents, strides and dilations must be positive
  func.return
}
