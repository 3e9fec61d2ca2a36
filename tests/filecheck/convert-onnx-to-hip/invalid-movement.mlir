// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file --verify-diagnostics | filecheck %s

// The converter needs ranks; an unranked operand is named, not guessed.
func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  %r = "onnx.Transpose"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: unranked operand tensor<*xf32> is not supported: its rank must be known

// -----

// Slice axes pick dims, so they must be known when compiling.
func.func @slice_runtime_axes(%x: tensor<?x?xf32>, %axes: tensor<1xi64>) -> tensor<?x?xf32> {
  %b = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = "onnx.NoValue"() {value} : () -> none
  %r = "onnx.Slice"(%x, %b, %b, %axes, %none) : (tensor<?x?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: Slice axes must be constant

// -----

func.func @slice_zero_step(%x: tensor<?xf32>) -> tensor<?xf32> {
  %b = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = "onnx.NoValue"() {value} : () -> none
  %r = "onnx.Slice"(%x, %b, %b, %none, %b) : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: Slice step must not be 0

// -----

func.func @squeeze_runtime_axes(%x: tensor<?x1xf32>, %axes: tensor<1xi64>) -> tensor<?xf32> {
  %r = "onnx.Squeeze"(%x, %axes) : (tensor<?x1xf32>, tensor<1xi64>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: Squeeze axes must be constant

// -----

func.func @unsqueeze_runtime_axes(%x: tensor<?xf32>, %axes: tensor<1xi64>) -> tensor<?x1xf32> {
  %r = "onnx.Unsqueeze"(%x, %axes) : (tensor<?xf32>, tensor<1xi64>) -> tensor<?x1xf32>
  func.return %r : tensor<?x1xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: Unsqueeze axes must be constant

// -----

func.func @range_zero_delta() -> tensor<?xi64> {
  %c = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %r = "onnx.Range"(%c, %c, %c) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  func.return %r : tensor<?xi64>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: Range delta must not be 0

// -----

// The number of shape elements is the result rank: it must be static.
func.func @expand_unknown_rank(%x: tensor<?xf32>, %shape: tensor<?xi64>) -> tensor<*xf32> {
  %r = "onnx.Expand"(%x, %shape) : (tensor<?xf32>, tensor<?xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: a shape or index operand must have a static number of elements

// -----

func.func @reshape_two_inferred(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  %t = "onnx.Constant"() {value = dense<[-1, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %t) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: Reshape target [-1, -1] has more than one -1

// -----

// The model's declared result type contradicts the Reshape target.
func.func @reshape_declared_rank(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  %t = "onnx.Constant"() {value = dense<[4, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %t) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: result has rank 2 but the model declares tensor<?xf32>

// -----

func.func @split_sizes(%x: tensor<?x10xf32>) -> (tensor<?x3xf32>, tensor<?x4xf32>) {
  %sizes = "onnx.Constant"() {value = dense<[3, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %a, %b = "onnx.Split"(%x, %sizes) <{axis = 1 : si64}> : (tensor<?x10xf32>, tensor<2xi64>) -> (tensor<?x3xf32>, tensor<?x4xf32>)
  func.return %a, %b : tensor<?x3xf32>, tensor<?x4xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: Split sizes [3, 4] sum to 7, not the axis extent 10

// -----

func.func @concat_ranks(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %r = "onnx.Concat"(%a, %b) <{axis = 0 : si64}> : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: Concat operands differ in rank: [?, 4], [4]

// -----

func.func @constant_of_shape_negative() -> tensor<?xf32> {
  %shape = "onnx.Constant"() {value = dense<-2> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = "onnx.ConstantOfShape"(%shape) : (tensor<1xi64>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: ConstantOfShape shape [-2] has a negative extent

// -----

func.func @gather_elements_rank(%x: tensor<?x?xf32>, %ids: tensor<?xi64>) -> tensor<?xf32> {
  %r = "onnx.GatherElements"(%x, %ids) <{axis = 1 : si64}> : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: GatherElements data [?, ?] and indices [?] differ in rank

// -----

func.func @gather_elements_axis(%x: tensor<?x?xf32>, %ids: tensor<?x?xi64>) -> tensor<?x?xf32> {
  %r = "onnx.GatherElements"(%x, %ids) <{axis = 2 : si64}> : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: onnx.GatherElements: axis 2 is out of range [-2, 1] for rank 2

// -----

func.func @trilu_rank(%x: tensor<?xf32>) -> tensor<?xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %r = "onnx.Trilu"(%x, %none) : (tensor<?xf32>, none) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: Trilu needs rank >= 2, got rank 1

// -----

func.func @gather_nd_depth(%x: tensor<?x?xf32>, %ids: tensor<?x?xi64>) -> tensor<*xf32> {
  %r = "onnx.GatherND"(%x, %ids) : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: GatherND needs a static last dim of indices (the index tuple width)

// -----

// The split input has one size per result.
func.func @split_count(%x: tensor<?x10xf32>) -> (tensor<?x3xf32>, tensor<?x7xf32>, tensor<?x0xf32>) {
  %sizes = "onnx.Constant"() {value = dense<[3, 7]> : tensor<2xi64>} : () -> tensor<2xi64>
  %a, %b, %c = "onnx.Split"(%x, %sizes) <{axis = 1 : si64}> : (tensor<?x10xf32>, tensor<2xi64>) -> (tensor<?x3xf32>, tensor<?x7xf32>, tensor<?x0xf32>)
  func.return %a, %b, %c : tensor<?x3xf32>, tensor<?x7xf32>, tensor<?x0xf32>
}
// CHECK: {{.*}}invalid-movement.mlir:[[# @LINE - 3]]:3: error: Split makes 2 parts but the op has 3 results
