// The onnx verifiers check what the ONNX spec makes structural: operand counts,
// attribute types, type constraints, axes and permutations against known ranks.
// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @perm_not_a_permutation(%x: tensor<2x3x4xf32>) {
  %0 = "onnx.Transpose"(%x) <{perm = [0, 2, 2]}> : (tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Transpose: perm [0, 2, 2] is not a permutation of 0..2

// -----

func.func @perm_wrong_length(%x: tensor<2x3x4xf32>) {
  %0 = "onnx.Transpose"(%x) <{perm = [1, 0]}> : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Transpose: perm [1, 0] is not a permutation of 0..2

// -----

func.func @mixed_element_types(%x: tensor<2xf32>, %y: tensor<2xf16>) {
  %0 = "onnx.Add"(%x, %y) : (tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Add: a, b, c must have one element type, got f16, f32

// -----

func.func @compare_result_not_bool(%x: tensor<2xf32>) {
  %0 = "onnx.Less"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Less: 'c' must be tensor(bool), got tensor<2xf32>

// -----

func.func @where_condition_not_bool(%c: tensor<2xi32>, %x: tensor<2xf32>) {
  %0 = "onnx.Where"(%c, %x, %x) : (tensor<2xi32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Where: 'condition' must be tensor(bool), got tensor<2xi32>

// -----

func.func @reshape_shape_not_int64(%x: tensor<6xf32>, %s: tensor<2xi32>) {
  %0 = "onnx.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Reshape: 'shape' must be tensor(int64), got tensor<2xi32>

// -----

func.func @cast_result_is_not_to(%x: tensor<2xf32>) {
  %0 = "onnx.Cast"(%x) <{to = f16}> : (tensor<2xf32>) -> tensor<2xi64>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Cast: result element type i64 is not 'to' (f16)

// -----

func.func @softmax_axis_out_of_range(%x: tensor<2x3xf32>) {
  %0 = "onnx.Softmax"(%x) <{axis = 2 : si64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Softmax: axis 2 is out of range [-2, 1] for rank 2

// -----

func.func @flatten_axis_out_of_range(%x: tensor<2x3xf32>) {
  %0 = "onnx.Flatten"(%x) <{axis = -3 : si64}> : (tensor<2x3xf32>) -> tensor<1x6xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Flatten: axis -3 is out of range [-2, 2] for rank 2

// -----

func.func @softmax_axis_is_float(%x: tensor<2x3xf32>) {
  %0 = "onnx.Softmax"(%x) <{axis = 1.0 : f32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 1.000000e+00 : f32 should be of base attribute integer

// -----

func.func @concat_needs_axis(%x: tensor<2xf32>) {
  %0 = "onnx.Concat"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: property 'axis' expected in operation 'onnx.Concat'

// -----

func.func @concat_needs_inputs() {
  %0 = "onnx.Concat"() <{axis = 0 : si64}> : () -> tensor<4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Concat needs at least one value in 'inputs'

// -----

func.func @gemm_missing_c(%a: tensor<2x2xf32>) {
  %0 = "onnx.Gemm"(%a, %a) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: Expected 3 operands, but got 2

// -----

func.func @gemm_rank_3(%a: tensor<2x2x2xf32>, %b: tensor<2x2xf32>, %c: none) {
  %0 = "onnx.Gemm"(%a, %b, %c) : (tensor<2x2x2xf32>, tensor<2x2xf32>, none) -> tensor<2x2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Gemm: 'a' must be rank 2, got rank 3

// -----

func.func @gemm_trans_flag(%a: tensor<2x2xf32>, %c: none) {
  %0 = "onnx.Gemm"(%a, %a, %c) <{transA = 2 : si64}> : (tensor<2x2xf32>, tensor<2x2xf32>, none) -> tensor<2x2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Gemm: transA must be 0 or 1, got 2

// -----

func.func @required_input_is_none(%a: tensor<2x2xf32>, %c: none) {
  %0 = "onnx.MatMul"(%a, %c) : (tensor<2x2xf32>, none) -> tensor<2x2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: operand 'b' at position 1 does not verify: Unexpected attribute none

// -----

func.func @split_count(%x: tensor<4xf32>, %none: none) {
  %0, %1 = "onnx.Split"(%x, %none) <{num_outputs = 3 : si64}> : (tensor<4xf32>, none) -> (tensor<2xf32>, tensor<2xf32>)
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Split: num_outputs is 3 but the op has 2 results

// -----

func.func @split_twice(%x: tensor<4xf32>, %s: tensor<2xi64>) {
  %0, %1 = "onnx.Split"(%x, %s) <{num_outputs = 2 : si64}> : (tensor<4xf32>, tensor<2xi64>) -> (tensor<2xf32>, tensor<2xf32>)
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Split: give either the 'split' input or num_outputs, not both

// -----

func.func @gelu_approximate(%x: tensor<4xf32>) {
  %0 = "onnx.Gelu"(%x) <{approximate = "fast"}> : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Gelu: approximate must be "none" or "tanh", got "fast"

// -----

func.func @constant_type(%x: tensor<4xf32>) {
  %0 = "onnx.Constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Constant: result type tensor<3xf32> differs from value type tensor<2xf32>

// -----

func.func @constant_of_shape_value(%s: tensor<1xi64>) {
  %0 = "onnx.ConstantOfShape"(%s) <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : (tensor<1xi64>) -> tensor<?xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.ConstantOfShape: value must hold one element, got 2

// -----

func.func @range_not_scalar(%s: tensor<1xi64>) {
  %0 = "onnx.Range"(%s, %s, %s) : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi64>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Range: 'start' must be a scalar, got rank 1

// -----

func.func @main_graph() {
  func.return
}
"onnx.EntryPoint"() <{func = @missing}> : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: onnx.EntryPoint: no function named @missing

// -----

func.func @isnan_int(%x: tensor<2xi32>) {
  %0 = "onnx.IsNaN"(%x) : (tensor<2xi32>) -> tensor<2xi1>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.IsNaN: 'x' must be a float tensor, got tensor<2xi32>

// -----

func.func @isnan_result_not_bool(%x: tensor<2xf32>) {
  %0 = "onnx.IsNaN"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.IsNaN: 'y' must be tensor(bool), got tensor<2xf32>

// -----

func.func @cumsum_axis_not_index(%x: tensor<2x3xf32>, %a: tensor<f32>) {
  %0 = "onnx.CumSum"(%x, %a) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.CumSum: 'axis' must be tensor(int32) or tensor(int64), got tensor<f32>

// -----

func.func @cumsum_axis_not_scalar(%x: tensor<2x3xf32>, %a: tensor<2xi64>) {
  %0 = "onnx.CumSum"(%x, %a) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.CumSum: 'axis' must be a scalar, got tensor<2xi64>

// -----

func.func @cumsum_flag(%x: tensor<2x3xf32>, %a: tensor<i64>) {
  %0 = "onnx.CumSum"(%x, %a) <{reverse = 2 : si64}> : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.CumSum: reverse must be 0 or 1, got 2

// -----

func.func @cumsum_result_type(%x: tensor<2x3xi32>, %a: tensor<i64>) {
  %0 = "onnx.CumSum"(%x, %a) : (tensor<2x3xi32>, tensor<i64>) -> tensor<2x3xi64>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.CumSum: x, y must have one element type, got i32, i64

// -----

// Static result dims are checked with the op's shape rule (xhip.shapes, the converter's):
// operands that do not broadcast, a result that disagrees with its operands. Runtime
// dims (`?`) never contradict.
func.func @add_does_not_broadcast(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  %0 = "onnx.Add"(%a, %b) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Add: operands: cannot broadcast [4] with [5] (extents 4 and 5 at result dim 0)

// -----

func.func @matmul_result_disagrees(%a: tensor<?x8xf32>, %b: tensor<8x3xf32>) {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x8xf32>, tensor<8x3xf32>) -> tensor<?x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.MatMul: result #0 has shape [?, 4] but the operands give [?, 3]

// -----

func.func @gather_result_rank(%d: tensor<10x4xf32>, %i: tensor<?x2xi64>) {
  %0 = "onnx.Gather"(%d, %i) <{axis = 0 : si64}> : (tensor<10x4xf32>, tensor<?x2xi64>) -> tensor<?x4xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Gather: result #0 has shape [?, 4] but the operands give [?, 2, 4]

// -----

func.func @concat_result_extent(%a: tensor<2x3xf32>, %b: tensor<2x?xf32>) {
  %0 = "onnx.Concat"(%a, %b) <{axis = 0 : si64}> : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<5x3xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: onnx.Concat: result #0 has shape [5, 3] but the operands give [4, 3]
