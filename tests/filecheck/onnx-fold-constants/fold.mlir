// RUN: xhip-opt %s -p onnx-fold-constants --split-input-file | filecheck %s
// RUN: xhip-opt %s -p onnx-fold-constants{max-result-elements=4} --split-input-file | filecheck %s --check-prefix=LIMIT

// A tied embedding: the lm_head's Transpose of the weight stays an op, since
// MatMul reads the weight transposed (hip.matmul {trans_b}): folding it would
// store the weight twice. The Gather reads the weight itself.
func.func @tied_embedding(%ids: tensor<2xi64>) -> (tensor<2x3xf32>, tensor<2x2xf32>) {
  %wte = "onnx.Constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  %emb = "onnx.Gather"(%wte, %ids) <{axis = 0 : si64}> : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  %t = "onnx.Transpose"(%wte) <{perm = [1, 0]}> {onnx_node_name = "lm_head_t"} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %logits = "onnx.MatMul"(%emb, %t) : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %logits, %emb : tensor<2x3xf32>, tensor<2x2xf32>
}
// CHECK-LABEL: func.func @tied_embedding
// CHECK-NEXT:    %[[WTE:.*]] = "onnx.Constant"() {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>}
// CHECK-NEXT:    %[[EMB:.*]] = "onnx.Gather"(%[[WTE]], %{{.*}})
// CHECK-NEXT:    %[[T:.*]] = "onnx.Transpose"(%[[WTE]]) <{perm = [1, 0]}> {onnx_node_name = "lm_head_t"}
// CHECK-NEXT:    "onnx.MatMul"(%[[EMB]], %[[T]])
// LIMIT-LABEL: func.func @tied_embedding
// LIMIT:         "onnx.Transpose"

// -----

// A weight's Transpose that Gemm reads (as A or B) stays too. One that another
// op also reads folds: that op needs the transposed values, so does the MatMul
// then; so does a Transpose that MatMul reads as A, or one that is not a swap
// of the last two dims.
func.func @read_through_or_folded(%x: tensor<2x2xf32>, %y: tensor<3x3x2xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2x2xf32>, tensor<3x2x2xf32>) {
  %w = "onnx.Constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %for_gemm = "onnx.Transpose"(%w) <{perm = [1, 0]}> {onnx_node_name = "for_gemm"} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %g = "onnx.Gemm"(%x, %for_gemm, %none) : (tensor<2x2xf32>, tensor<2x3xf32>, none) -> tensor<2x3xf32>
  %g_a = "onnx.Gemm"(%for_gemm, %x, %none) <{transA = 1 : si64}> : (tensor<2x3xf32>, tensor<2x2xf32>, none) -> tensor<3x2xf32>
  %shared = "onnx.Transpose"(%w) <{perm = [1, 0]}> {onnx_node_name = "shared"} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %m = "onnx.MatMul"(%x, %shared) : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %doubled = "onnx.Add"(%shared, %shared) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %as_a = "onnx.Transpose"(%w) <{perm = [1, 0]}> {onnx_node_name = "as_a"} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %w3 = "onnx.Constant"() {value = dense<1.0> : tensor<2x3x2xf32>} : () -> tensor<2x3x2xf32>
  %batch_first = "onnx.Transpose"(%w3) <{perm = [1, 0, 2]}> {onnx_node_name = "batch_first"} : (tensor<2x3x2xf32>) -> tensor<3x2x2xf32>
  %bm = "onnx.MatMul"(%x, %batch_first) : (tensor<2x2xf32>, tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
  %r = "onnx.MatMul"(%as_a, %y) : (tensor<2x3xf32>, tensor<3x3x2xf32>) -> tensor<3x2x2xf32>
  func.return %g, %g_a, %m, %doubled, %bm, %r : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2x2xf32>, tensor<3x2x2xf32>
}
// CHECK-LABEL: func.func @read_through_or_folded
// CHECK:         "onnx.Transpose"(%{{.*}}) <{perm = [1, 0]}> {onnx_node_name = "for_gemm"}
// CHECK-NOT:     "onnx.Transpose"
// CHECK:         "onnx.Constant"() {value = {{.*}}, onnx_node_name = "shared"}
// CHECK:         "onnx.Constant"() {value = {{.*}}, onnx_node_name = "as_a"}
// CHECK:         "onnx.Constant"() {value = {{.*}}, onnx_node_name = "batch_first"}

// -----

// Shape arithmetic on initializers folds as a chain in one sweep, and the
// constants that only fed it are erased: Shape, Gather, Mul, Cast and Concat
// compute the Reshape target [6, 1] of the weight, and the Reshape folds too.
func.func @shape_chain() -> tensor<6x1xf32> {
  %w = "onnx.Constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %s = "onnx.Shape"(%w) <{start = 0 : si64}> : (tensor<2x3xf32>) -> tensor<2xi64>
  %i0 = "onnx.Constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %i1 = "onnx.Constant"() {value = dense<[1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %rows = "onnx.Gather"(%s, %i0) <{axis = 0 : si64}> : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
  %cols = "onnx.Gather"(%s, %i1) <{axis = 0 : si64}> : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
  %n = "onnx.Mul"(%rows, %cols) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %one = "onnx.Constant"() {value = dense<1.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %one_i = "onnx.Cast"(%one) <{to = i64}> : (tensor<1xf32>) -> tensor<1xi64>
  %target = "onnx.Concat"(%n, %one_i) <{axis = 0 : si64}> : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = "onnx.Reshape"(%w, %target) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<6x1xf32>
  func.return %r : tensor<6x1xf32>
}
// CHECK-LABEL: func.func @shape_chain
// CHECK-NEXT:    %[[R:.*]] = "onnx.Constant"() {value = dense<{{\[\[}}1.000000e+00], [2.000000e+00], [3.000000e+00], [4.000000e+00], [5.000000e+00], [6.000000e+00]]> : tensor<6x1xf32>}
// CHECK-NEXT:    func.return %[[R]] : tensor<6x1xf32>
// LIMIT-LABEL: func.func @shape_chain
// LIMIT:         %{{.*}} = "onnx.Constant"() {value = dense<[6, 1]> : tensor<2xi64>}
// LIMIT:         "onnx.Reshape"

// -----

// Cast of a constant folds; an op with a non-constant operand (the Add) stays.
func.func @cast_and_mixed(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = "onnx.Constant"() {value = dense<[1, 0, 2]> : tensor<3xi64>} : () -> tensor<3xi64>
  %f = "onnx.Cast"(%c) <{to = f32}> : (tensor<3xi64>) -> tensor<3xf32>
  %y = "onnx.Add"(%x, %f) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
// CHECK-LABEL: func.func @cast_and_mixed
// CHECK-NEXT:    %[[F:.*]] = "onnx.Constant"() {value = dense<[1.000000e+00, 0.000000e+00, 2.000000e+00]> : tensor<3xf32>}
// CHECK-NEXT:    "onnx.Add"(%{{.*}}, %[[F]])

// -----

// A data-dependent shape folds too: NonZero's count is known once its input
// is, and its ONNX user takes the static type. A dynamic result that the
// function returns stays an op, since the return must keep the declared type.
func.func @nonzero(%x: tensor<2x?xi64>) -> (tensor<2x?xi64>, tensor<2x?xi64>) {
  %m = "onnx.Constant"() {value = dense<[[0, 1], [1, 1]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  %nz = "onnx.NonZero"(%m) : (tensor<2x2xi64>) -> tensor<2x?xi64>
  %y = "onnx.Add"(%x, %nz) : (tensor<2x?xi64>, tensor<2x?xi64>) -> tensor<2x?xi64>
  %returned = "onnx.NonZero"(%m) : (tensor<2x2xi64>) -> tensor<2x?xi64>
  func.return %y, %returned : tensor<2x?xi64>, tensor<2x?xi64>
}
// CHECK-LABEL: func.func @nonzero
// CHECK-NEXT:    %[[M:.*]] = "onnx.Constant"() {value = dense<{{\[\[}}0, 1], [1, 1]]> : tensor<2x2xi64>}
// CHECK-NEXT:    %[[NZ:.*]] = "onnx.Constant"() {value = dense<{{\[\[}}0, 1, 1], [1, 0, 1]]> : tensor<2x3xi64>}
// CHECK-NEXT:    "onnx.Add"(%{{.*}}, %[[NZ]]) : (tensor<2x?xi64>, tensor<2x3xi64>) -> tensor<2x?xi64>
// CHECK-NEXT:    "onnx.NonZero"(%[[M]])
