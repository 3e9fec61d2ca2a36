// Every onnx op in generic form: printing reproduces the input (ONNX attributes as
// properties with onnx-mlir's spellings, optional inputs as `none` values), and the
// printed text parses again, in custom and in generic form.
// RUN: xhip-opt %s | filecheck %s
// RUN: xhip-opt %s | xhip-opt | filecheck %s
// RUN: %roundtrip | filecheck %s

builtin.module {
// CHECK: builtin.module {
  func.func @elementwise(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %p: tensor<?x3xi1>, %q: tensor<3xi1>) {
// CHECK-LABEL: func.func @elementwise(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %p: tensor<?x3xi1>, %q: tensor<3xi1>) {
    %0 = "onnx.Add"(%x, %y) {onnx_node_name = "add"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %0 = "onnx.Add"(%x, %y) {onnx_node_name = "add"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = "onnx.Sub"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %1 = "onnx.Sub"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %2 = "onnx.Mul"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %2 = "onnx.Mul"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %3 = "onnx.Div"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %3 = "onnx.Div"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %4 = "onnx.Pow"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %4 = "onnx.Pow"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %5 = "onnx.Max"(%x, %y, %x) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %5 = "onnx.Max"(%x, %y, %x) : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %6 = "onnx.Min"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %6 = "onnx.Min"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %7 = "onnx.Equal"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %7 = "onnx.Equal"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %8 = "onnx.Less"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %8 = "onnx.Less"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %9 = "onnx.Greater"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %9 = "onnx.Greater"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %10 = "onnx.LessOrEqual"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %10 = "onnx.LessOrEqual"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %11 = "onnx.GreaterOrEqual"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %11 = "onnx.GreaterOrEqual"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %12 = "onnx.And"(%p, %q) : (tensor<?x3xi1>, tensor<3xi1>) -> tensor<?x3xi1>
// CHECK-NEXT: %12 = "onnx.And"(%p, %q) : (tensor<?x3xi1>, tensor<3xi1>) -> tensor<?x3xi1>
    %13 = "onnx.Or"(%p, %q) : (tensor<?x3xi1>, tensor<3xi1>) -> tensor<?x3xi1>
// CHECK-NEXT: %13 = "onnx.Or"(%p, %q) : (tensor<?x3xi1>, tensor<3xi1>) -> tensor<?x3xi1>
    %14 = "onnx.Not"(%p) : (tensor<?x3xi1>) -> tensor<?x3xi1>
// CHECK-NEXT: %14 = "onnx.Not"(%p) : (tensor<?x3xi1>) -> tensor<?x3xi1>
    %15 = "onnx.Where"(%p, %x, %y) : (tensor<?x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %15 = "onnx.Where"(%p, %x, %y) : (tensor<?x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %16 = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %16 = "onnx.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %17 = "onnx.Sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %17 = "onnx.Sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %18 = "onnx.Tanh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %18 = "onnx.Tanh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %19 = "onnx.Erf"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %19 = "onnx.Erf"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %20 = "onnx.Sqrt"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %20 = "onnx.Sqrt"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %21 = "onnx.Exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %21 = "onnx.Exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %22 = "onnx.Log"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %22 = "onnx.Log"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %23 = "onnx.Neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %23 = "onnx.Neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %24 = "onnx.Abs"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %24 = "onnx.Abs"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %25 = "onnx.Reciprocal"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %25 = "onnx.Reciprocal"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %sign = "onnx.Sign"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %sign = "onnx.Sign"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %ceil = "onnx.Ceil"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %ceil = "onnx.Ceil"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %floor = "onnx.Floor"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %floor = "onnx.Floor"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %round = "onnx.Round"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %round = "onnx.Round"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %26 = "onnx.Identity"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %26 = "onnx.Identity"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %27 = "onnx.Cast"(%x) <{saturate = 1 : si64, to = f16}> : (tensor<2x3xf32>) -> tensor<2x3xf16>
// CHECK-NEXT: %27 = "onnx.Cast"(%x) <{saturate = 1 : si64, to = f16}> : (tensor<2x3xf32>) -> tensor<2x3xf16>
    %28 = "onnx.Cast"(%p) <{to = i64}> : (tensor<?x3xi1>) -> tensor<?x3xi64>
// CHECK-NEXT: %28 = "onnx.Cast"(%p) <{to = i64}> : (tensor<?x3xi1>) -> tensor<?x3xi64>
    %29 = "onnx.Gelu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %29 = "onnx.Gelu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %30 = "onnx.Gelu"(%x) <{approximate = "tanh"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %30 = "onnx.Gelu"(%x) <{approximate = "tanh"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %31 = "onnx.IsNaN"(%x) {onnx_node_name = "isnan"} : (tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %31 = "onnx.IsNaN"(%x) {onnx_node_name = "isnan"} : (tensor<2x3xf32>) -> tensor<2x3xi1>
    %32 = "onnx.Sin"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %32 = "onnx.Sin"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %33 = "onnx.Cos"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %33 = "onnx.Cos"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    func.return
// CHECK-NEXT: func.return
  }
// CHECK-NEXT: }
  func.func @linalg(%a: tensor<?x?x64xf32>, %w: tensor<64x64xf32>, %m: tensor<4x64xf32>, %bias: tensor<64xf32>) {
// CHECK-LABEL: func.func @linalg(%a: tensor<?x?x64xf32>, %w: tensor<64x64xf32>, %m: tensor<4x64xf32>, %bias: tensor<64xf32>) {
    %none = "onnx.NoValue"() {value} : () -> none
// CHECK-NEXT: %none = "onnx.NoValue"() {value} : () -> none
    %0 = "onnx.MatMul"(%a, %w) {onnx_node_name = "q_proj"} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT: %0 = "onnx.MatMul"(%a, %w) {onnx_node_name = "q_proj"} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
    %1 = "onnx.Gemm"(%m, %w, %bias) <{alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, transA = 0 : si64, transB = 1 : si64}> : (tensor<4x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
// CHECK-NEXT: %1 = "onnx.Gemm"(%m, %w, %bias) <{alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, transA = 0 : si64, transB = 1 : si64}> : (tensor<4x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
    %2 = "onnx.Gemm"(%m, %w, %none) : (tensor<4x64xf32>, tensor<64x64xf32>, none) -> tensor<4x64xf32>
// CHECK-NEXT: %2 = "onnx.Gemm"(%m, %w, %none) : (tensor<4x64xf32>, tensor<64x64xf32>, none) -> tensor<4x64xf32>
    %3 = "onnx.Softmax"(%a) <{axis = -1 : si64}> {onnx_node_name = "softmax"} : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT: %3 = "onnx.Softmax"(%a) <{axis = -1 : si64}> {onnx_node_name = "softmax"} : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    %4, %5, %6 = "onnx.LayerNormalization"(%a, %bias, %bias) <{axis = -1 : si64, epsilon = 9.99999974E-6 : f32, stash_type = 1 : si64}> : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<?x?x64xf32>, tensor<?x?x1xf32>, tensor<?x?x1xf32>)
// onnx-mlir's 9.99999974E-6 is the f32 nearest 1e-5; xDSL prints that value as 1.000000e-05.
// CHECK-NEXT: %4, %5, %6 = "onnx.LayerNormalization"(%a, %bias, %bias) <{axis = -1 : si64, epsilon = 1.000000e-05 : f32, stash_type = 1 : si64}> : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<?x?x64xf32>, tensor<?x?x1xf32>, tensor<?x?x1xf32>)
    %7, %8, %9 = "onnx.LayerNormalization"(%a, %bias, %none) : (tensor<?x?x64xf32>, tensor<64xf32>, none) -> (tensor<?x?x64xf32>, none, none)
// CHECK-NEXT: %7, %8, %9 = "onnx.LayerNormalization"(%a, %bias, %none) : (tensor<?x?x64xf32>, tensor<64xf32>, none) -> (tensor<?x?x64xf32>, none, none)
    func.return
// CHECK-NEXT: func.return
  }
// CHECK-NEXT: }
  func.func @shapes(%d: tensor<2x?x4xf32>, %i: tensor<3xi64>, %s: tensor<i64>, %u: tensor<*xf32>, %j: tensor<2x1xi32>) -> tensor<2x?x4xf32> {
// CHECK-LABEL: func.func @shapes(%d: tensor<2x?x4xf32>, %i: tensor<3xi64>, %s: tensor<i64>, %u: tensor<*xf32>, %j: tensor<2x1xi32>) -> tensor<2x?x4xf32> {
    %none = "onnx.NoValue"() {value} : () -> none
// CHECK-NEXT: %none = "onnx.NoValue"() {value} : () -> none
    %0 = "onnx.ReduceMean"(%d, %i) <{keepdims = 0 : si64}> : (tensor<2x?x4xf32>, tensor<3xi64>) -> tensor<f32>
// CHECK-NEXT: %0 = "onnx.ReduceMean"(%d, %i) <{keepdims = 0 : si64}> : (tensor<2x?x4xf32>, tensor<3xi64>) -> tensor<f32>
    %1 = "onnx.ReduceSum"(%d, %none) <{keepdims = 1 : si64, noop_with_empty_axes = 1 : si64}> : (tensor<2x?x4xf32>, none) -> tensor<2x?x4xf32>
// CHECK-NEXT: %1 = "onnx.ReduceSum"(%d, %none) <{keepdims = 1 : si64, noop_with_empty_axes = 1 : si64}> : (tensor<2x?x4xf32>, none) -> tensor<2x?x4xf32>
    %2 = "onnx.ReduceMax"(%u, %i) : (tensor<*xf32>, tensor<3xi64>) -> tensor<*xf32>
// CHECK-NEXT: %2 = "onnx.ReduceMax"(%u, %i) : (tensor<*xf32>, tensor<3xi64>) -> tensor<*xf32>
    %3 = "onnx.Transpose"(%d) <{perm = [0, 2, 1]}> {onnx_node_name = "k_transpose"} : (tensor<2x?x4xf32>) -> tensor<2x4x?xf32>
// CHECK-NEXT: %3 = "onnx.Transpose"(%d) <{perm = [0, 2, 1]}> {onnx_node_name = "k_transpose"} : (tensor<2x?x4xf32>) -> tensor<2x4x?xf32>
    %4 = "onnx.Transpose"(%u) : (tensor<*xf32>) -> tensor<*xf32>
// CHECK-NEXT: %4 = "onnx.Transpose"(%u) : (tensor<*xf32>) -> tensor<*xf32>
    %5 = "onnx.Reshape"(%d, %i) <{allowzero = 0 : si64}> : (tensor<2x?x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK-NEXT: %5 = "onnx.Reshape"(%d, %i) <{allowzero = 0 : si64}> : (tensor<2x?x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
    %6 = "onnx.Flatten"(%d) <{axis = 3 : si64}> : (tensor<2x?x4xf32>) -> tensor<?x1xf32>
// CHECK-NEXT: %6 = "onnx.Flatten"(%d) <{axis = 3 : si64}> : (tensor<2x?x4xf32>) -> tensor<?x1xf32>
    %7 = "onnx.Squeeze"(%d, %none) : (tensor<2x?x4xf32>, none) -> tensor<*xf32>
// CHECK-NEXT: %7 = "onnx.Squeeze"(%d, %none) : (tensor<2x?x4xf32>, none) -> tensor<*xf32>
    %8 = "onnx.Unsqueeze"(%d, %i) : (tensor<2x?x4xf32>, tensor<3xi64>) -> tensor<*xf32>
// CHECK-NEXT: %8 = "onnx.Unsqueeze"(%d, %i) : (tensor<2x?x4xf32>, tensor<3xi64>) -> tensor<*xf32>
    %9 = "onnx.Concat"(%d, %d) <{axis = -2 : si64}> : (tensor<2x?x4xf32>, tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
// CHECK-NEXT: %9 = "onnx.Concat"(%d, %d) <{axis = -2 : si64}> : (tensor<2x?x4xf32>, tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
    %10, %11 = "onnx.Split"(%d, %none) <{axis = 2 : si64, num_outputs = 2 : si64}> : (tensor<2x?x4xf32>, none) -> (tensor<2x?x2xf32>, tensor<2x?x2xf32>)
// CHECK-NEXT: %10, %11 = "onnx.Split"(%d, %none) <{axis = 2 : si64, num_outputs = 2 : si64}> : (tensor<2x?x4xf32>, none) -> (tensor<2x?x2xf32>, tensor<2x?x2xf32>)
    %12, %13, %14 = "onnx.Split"(%d, %i) : (tensor<2x?x4xf32>, tensor<3xi64>) -> (tensor<?x?x4xf32>, tensor<?x?x4xf32>, tensor<?x?x4xf32>)
// CHECK-NEXT: %12, %13, %14 = "onnx.Split"(%d, %i) : (tensor<2x?x4xf32>, tensor<3xi64>) -> (tensor<?x?x4xf32>, tensor<?x?x4xf32>, tensor<?x?x4xf32>)
    %15 = "onnx.Slice"(%d, %i, %i, %i, %none) : (tensor<2x?x4xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, none) -> tensor<?x?x?xf32>
// CHECK-NEXT: %15 = "onnx.Slice"(%d, %i, %i, %i, %none) : (tensor<2x?x4xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, none) -> tensor<?x?x?xf32>
    %16 = "onnx.Gather"(%d, %j) <{axis = 1 : si64}> : (tensor<2x?x4xf32>, tensor<2x1xi32>) -> tensor<2x2x1x4xf32>
// CHECK-NEXT: %16 = "onnx.Gather"(%d, %j) <{axis = 1 : si64}> : (tensor<2x?x4xf32>, tensor<2x1xi32>) -> tensor<2x2x1x4xf32>
    %17 = "onnx.GatherND"(%d, %i) <{batch_dims = 0 : si64}> : (tensor<2x?x4xf32>, tensor<3xi64>) -> tensor<f32>
// CHECK-NEXT: %17 = "onnx.GatherND"(%d, %i) <{batch_dims = 0 : si64}> : (tensor<2x?x4xf32>, tensor<3xi64>) -> tensor<f32>
    %18 = "onnx.Expand"(%d, %i) : (tensor<2x?x4xf32>, tensor<3xi64>) -> tensor<2x?x4xf32>
// CHECK-NEXT: %18 = "onnx.Expand"(%d, %i) : (tensor<2x?x4xf32>, tensor<3xi64>) -> tensor<2x?x4xf32>
    %19 = "onnx.Shape"(%d) : (tensor<2x?x4xf32>) -> tensor<3xi64>
// CHECK-NEXT: %19 = "onnx.Shape"(%d) : (tensor<2x?x4xf32>) -> tensor<3xi64>
    %20 = "onnx.Shape"(%d) <{end = -1 : si64, start = 1 : si64}> : (tensor<2x?x4xf32>) -> tensor<1xi64>
// CHECK-NEXT: %20 = "onnx.Shape"(%d) <{end = -1 : si64, start = 1 : si64}> : (tensor<2x?x4xf32>) -> tensor<1xi64>
    %21 = "onnx.ConstantOfShape"(%19) : (tensor<3xi64>) -> tensor<2x?x4xf32>
// CHECK-NEXT: %21 = "onnx.ConstantOfShape"(%19) : (tensor<3xi64>) -> tensor<2x?x4xf32>
    %22 = "onnx.ConstantOfShape"(%19) <{value = dense<7> : tensor<1xi64>}> : (tensor<3xi64>) -> tensor<?x?x?xi64>
// CHECK-NEXT: %22 = "onnx.ConstantOfShape"(%19) <{value = dense<7> : tensor<1xi64>}> : (tensor<3xi64>) -> tensor<?x?x?xi64>
    %23 = "onnx.Range"(%s, %s, %s) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
// CHECK-NEXT: %23 = "onnx.Range"(%s, %s, %s) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
    %24 = "onnx.NonZero"(%d) : (tensor<2x?x4xf32>) -> tensor<3x?xi64>
// CHECK-NEXT: %24 = "onnx.NonZero"(%d) : (tensor<2x?x4xf32>) -> tensor<3x?xi64>
    %25 = "onnx.Constant"() {value = dense<1.250000e-01> : tensor<f32>} : () -> tensor<f32>
// CHECK-NEXT: %25 = "onnx.Constant"() {value = dense<1.250000e-01> : tensor<f32>} : () -> tensor<f32>
    %26 = "onnx.Constant"() {value = dense<[1, -2, 3]> : tensor<3xi64>} : () -> tensor<3xi64>
// CHECK-NEXT: %26 = "onnx.Constant"() {value = dense<[1, -2, 3]> : tensor<3xi64>} : () -> tensor<3xi64>
    %27 = "onnx.CumSum"(%d, %s) : (tensor<2x?x4xf32>, tensor<i64>) -> tensor<2x?x4xf32>
// CHECK-NEXT: %27 = "onnx.CumSum"(%d, %s) : (tensor<2x?x4xf32>, tensor<i64>) -> tensor<2x?x4xf32>
    %28 = "onnx.CumSum"(%d, %s) <{exclusive = 1 : si64, reverse = 1 : si64}> : (tensor<2x?x4xf32>, tensor<i64>) -> tensor<2x?x4xf32>
// CHECK-NEXT: %28 = "onnx.CumSum"(%d, %s) <{exclusive = 1 : si64, reverse = 1 : si64}> : (tensor<2x?x4xf32>, tensor<i64>) -> tensor<2x?x4xf32>
    %29 = "onnx.GatherElements"(%j, %j) <{axis = -1 : si64}> : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
// CHECK-NEXT: %29 = "onnx.GatherElements"(%j, %j) <{axis = -1 : si64}> : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %30 = "onnx.Trilu"(%d, %s) <{upper = 0 : si64}> : (tensor<2x?x4xf32>, tensor<i64>) -> tensor<2x?x4xf32>
// CHECK-NEXT: %30 = "onnx.Trilu"(%d, %s) <{upper = 0 : si64}> : (tensor<2x?x4xf32>, tensor<i64>) -> tensor<2x?x4xf32>
    %31 = "onnx.Trilu"(%d, %none) : (tensor<2x?x4xf32>, none) -> tensor<2x?x4xf32>
// CHECK-NEXT: %31 = "onnx.Trilu"(%d, %none) : (tensor<2x?x4xf32>, none) -> tensor<2x?x4xf32>
    func.return %d : tensor<2x?x4xf32>
// CHECK-NEXT: func.return %d : tensor<2x?x4xf32>
  }
// CHECK-NEXT: }
  func.func @vision(%x: tensor<2x3x8x8xf32>, %c: tensor<3xf32>, %s: tensor<f32>, %p: tensor<8xi64>, %r: tensor<4xi64>, %a: tensor<2xi64>, %v: tensor<2x3xf32>, %cw: tensor<3x3x3x3xf32>) {
// CHECK-LABEL: func.func @vision(%x: tensor<2x3x8x8xf32>, %c: tensor<3xf32>, %s: tensor<f32>, %p: tensor<8xi64>, %r: tensor<4xi64>, %a: tensor<2xi64>, %v: tensor<2x3xf32>, %cw: tensor<3x3x3x3xf32>) {
    %none = "onnx.NoValue"() {value} : () -> none
// CHECK-NEXT: %none = "onnx.NoValue"() {value} : () -> none
    %0 = "onnx.Clip"(%x, %s, %s) : (tensor<2x3x8x8xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: %0 = "onnx.Clip"(%x, %s, %s) : (tensor<2x3x8x8xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3x8x8xf32>
    %1 = "onnx.Clip"(%x, %none, %s) : (tensor<2x3x8x8xf32>, none, tensor<f32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: %1 = "onnx.Clip"(%x, %none, %s) : (tensor<2x3x8x8xf32>, none, tensor<f32>) -> tensor<2x3x8x8xf32>
    %2 = "onnx.Tile"(%x, %r) : (tensor<2x3x8x8xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
// CHECK-NEXT: %2 = "onnx.Tile"(%x, %r) : (tensor<2x3x8x8xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
    %3 = "onnx.Pad"(%x, %p, %s, %none) <{mode = "reflect"}> : (tensor<2x3x8x8xf32>, tensor<8xi64>, tensor<f32>, none) -> tensor<?x?x?x?xf32>
// CHECK-NEXT: %3 = "onnx.Pad"(%x, %p, %s, %none) <{mode = "reflect"}> : (tensor<2x3x8x8xf32>, tensor<8xi64>, tensor<f32>, none) -> tensor<?x?x?x?xf32>
    %4 = "onnx.Pad"(%x, %p, %none, %none) : (tensor<2x3x8x8xf32>, tensor<8xi64>, none, none) -> tensor<?x?x?x?xf32>
// CHECK-NEXT: %4 = "onnx.Pad"(%x, %p, %none, %none) : (tensor<2x3x8x8xf32>, tensor<8xi64>, none, none) -> tensor<?x?x?x?xf32>
    %5, %6, %7 = "onnx.BatchNormalization"(%x, %c, %c, %c, %c) <{epsilon = 1.000000e-03 : f32}> : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x8x8xf32>, none, none)
// CHECK-NEXT: %5, %6, %7 = "onnx.BatchNormalization"(%x, %c, %c, %c, %c) <{epsilon = 1.000000e-03 : f32}> : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x8x8xf32>, none, none)
    %8 = "onnx.InstanceNormalization"(%x, %c, %c) : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: %8 = "onnx.InstanceNormalization"(%x, %c, %c) : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
    %gn = "onnx.GroupNormalization"(%x, %c, %c) <{num_groups = 3 : si64}> : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: %gn = "onnx.GroupNormalization"(%x, %c, %c) <{num_groups = 3 : si64}> : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
    %9 = "onnx.GlobalAveragePool"(%x) : (tensor<2x3x8x8xf32>) -> tensor<2x3x1x1xf32>
// CHECK-NEXT: %9 = "onnx.GlobalAveragePool"(%x) : (tensor<2x3x8x8xf32>) -> tensor<2x3x1x1xf32>
    %10 = "onnx.GlobalMaxPool"(%x) : (tensor<2x3x8x8xf32>) -> tensor<2x3x1x1xf32>
// CHECK-NEXT: %10 = "onnx.GlobalMaxPool"(%x) : (tensor<2x3x8x8xf32>) -> tensor<2x3x1x1xf32>
    %mp, %mi = "onnx.MaxPool"(%x) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<2x3x8x8xf32>) -> (tensor<2x3x4x4xf32>, none)
// CHECK-NEXT: %mp, %mi = "onnx.MaxPool"(%x) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<2x3x8x8xf32>) -> (tensor<2x3x4x4xf32>, none)
    %ap = "onnx.AveragePool"(%x) <{auto_pad = "SAME_UPPER", count_include_pad = 1 : si64, kernel_shape = [2, 2]}> : (tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: %ap = "onnx.AveragePool"(%x) <{auto_pad = "SAME_UPPER", count_include_pad = 1 : si64, kernel_shape = [2, 2]}> : (tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
    %lp = "onnx.LpPool"(%x) <{kernel_shape = [2, 2], p = 3 : si64}> : (tensor<2x3x8x8xf32>) -> tensor<2x3x7x7xf32>
// CHECK-NEXT: %lp = "onnx.LpPool"(%x) <{kernel_shape = [2, 2], p = 3 : si64}> : (tensor<2x3x8x8xf32>) -> tensor<2x3x7x7xf32>
    %cv = "onnx.Conv"(%x, %cw, %c) <{group = 1 : si64, pads = [1, 1, 1, 1]}> : (tensor<2x3x8x8xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: %cv = "onnx.Conv"(%x, %cw, %c) <{group = 1 : si64, pads = [1, 1, 1, 1]}> : (tensor<2x3x8x8xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
    %ct = "onnx.ConvTranspose"(%x, %cw, %none) <{output_padding = [1, 1], strides = [2, 2]}> : (tensor<2x3x8x8xf32>, tensor<3x3x3x3xf32>, none) -> tensor<2x3x18x18xf32>
// CHECK-NEXT: %ct = "onnx.ConvTranspose"(%x, %cw, %none) <{output_padding = [1, 1], strides = [2, 2]}> : (tensor<2x3x8x8xf32>, tensor<3x3x3x3xf32>, none) -> tensor<2x3x18x18xf32>
    %rs = "onnx.Resize"(%x, %none, %none, %r) <{coordinate_transformation_mode = "align_corners", mode = "linear"}> : (tensor<2x3x8x8xf32>, none, none, tensor<4xi64>) -> tensor<?x?x?x?xf32>
// CHECK-NEXT: %rs = "onnx.Resize"(%x, %none, %none, %r) <{coordinate_transformation_mode = "align_corners", mode = "linear"}> : (tensor<2x3x8x8xf32>, none, none, tensor<4xi64>) -> tensor<?x?x?x?xf32>
    %es = "onnx.Einsum"(%x) <{equation = "nchw->nhwc"}> : (tensor<2x3x8x8xf32>) -> tensor<2x8x8x3xf32>
// CHECK-NEXT: %es = "onnx.Einsum"(%x) <{equation = "nchw->nhwc"}> : (tensor<2x3x8x8xf32>) -> tensor<2x8x8x3xf32>
    %11 = "onnx.ArgMax"(%x) <{axis = 1 : si64, keepdims = 0 : si64}> : (tensor<2x3x8x8xf32>) -> tensor<2x8x8xi64>
// CHECK-NEXT: %11 = "onnx.ArgMax"(%x) <{axis = 1 : si64, keepdims = 0 : si64}> : (tensor<2x3x8x8xf32>) -> tensor<2x8x8xi64>
    %12 = "onnx.ArgMin"(%v) <{select_last_index = 1 : si64}> : (tensor<2x3xf32>) -> tensor<1x3xi64>
// CHECK-NEXT: %12 = "onnx.ArgMin"(%v) <{select_last_index = 1 : si64}> : (tensor<2x3xf32>) -> tensor<1x3xi64>
    %13 = "onnx.ReduceMin"(%x, %a) : (tensor<2x3x8x8xf32>, tensor<2xi64>) -> tensor<*xf32>
// CHECK-NEXT: %13 = "onnx.ReduceMin"(%x, %a) : (tensor<2x3x8x8xf32>, tensor<2xi64>) -> tensor<*xf32>
    %14 = "onnx.ReduceProd"(%v, %none) <{keepdims = 0 : si64}> : (tensor<2x3xf32>, none) -> tensor<f32>
// CHECK-NEXT: %14 = "onnx.ReduceProd"(%v, %none) <{keepdims = 0 : si64}> : (tensor<2x3xf32>, none) -> tensor<f32>
    %15 = "onnx.ReduceL1"(%x, %a) : (tensor<2x3x8x8xf32>, tensor<2xi64>) -> tensor<*xf32>
// CHECK-NEXT: %15 = "onnx.ReduceL1"(%x, %a) : (tensor<2x3x8x8xf32>, tensor<2xi64>) -> tensor<*xf32>
    %16 = "onnx.ReduceL2"(%x, %a) : (tensor<2x3x8x8xf32>, tensor<2xi64>) -> tensor<*xf32>
// CHECK-NEXT: %16 = "onnx.ReduceL2"(%x, %a) : (tensor<2x3x8x8xf32>, tensor<2xi64>) -> tensor<*xf32>
    %17 = "onnx.ReduceSumSquare"(%x, %a) : (tensor<2x3x8x8xf32>, tensor<2xi64>) -> tensor<*xf32>
// CHECK-NEXT: %17 = "onnx.ReduceSumSquare"(%x, %a) : (tensor<2x3x8x8xf32>, tensor<2xi64>) -> tensor<*xf32>
    %18 = "onnx.ReduceLogSumExp"(%x, %a) <{noop_with_empty_axes = 1 : si64}> : (tensor<2x3x8x8xf32>, tensor<2xi64>) -> tensor<*xf32>
// CHECK-NEXT: %18 = "onnx.ReduceLogSumExp"(%x, %a) <{noop_with_empty_axes = 1 : si64}> : (tensor<2x3x8x8xf32>, tensor<2xi64>) -> tensor<*xf32>
    func.return
// CHECK-NEXT: func.return
  }
// CHECK-NEXT: }
  "onnx.EntryPoint"() <{func = @shapes}> : () -> ()
// CHECK-NEXT: "onnx.EntryPoint"() <{func = @shapes}> : () -> ()
}
// CHECK-NEXT: }
