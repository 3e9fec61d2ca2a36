// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file --verify-diagnostics | filecheck %s

// MatMul, Gemm, Softmax, LayerNormalization and Reduce*: every destination is a
// tensor.empty sized by the op's shape rule, which the hip op's reification
// shares, and the hip op takes the ONNX operands unchanged. The last chunks are
// the located errors of models the converters reject.

// Static 2-D MatMul: a static destination and no index arithmetic.
func.func @matmul_static(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %r = "onnx.MatMul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  func.return %r : tensor<4x16xf32>
}
// CHECK-LABEL: func.func @matmul_static
// CHECK-NOT:     arith.
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.matmul(%ctx) ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[INIT]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// Batch dims broadcast (the RFC's bug class: never taken from A by position):
// ? with ? is the select-on-1 form, ? with 1 is the ?, rows from A, columns from B.
func.func @matmul_batch_broadcast(%a: tensor<?x?x4x8xf32>, %b: tensor<?x1x8x5xf32>) -> tensor<?x?x4x5xf32> {
  %r = "onnx.MatMul"(%a, %b) : (tensor<?x?x4x8xf32>, tensor<?x1x8x5xf32>) -> tensor<?x?x4x5xf32>
  func.return %r : tensor<?x?x4x5xf32>
}
// CHECK-LABEL: func.func @matmul_batch_broadcast
// CHECK-DAG:     %[[A0:.*]] = tensor.dim %a, %{{.*}} : tensor<?x?x4x8xf32>
// CHECK-DAG:     %[[A1:.*]] = tensor.dim %a, %{{.*}} : tensor<?x?x4x8xf32>
// CHECK-DAG:     %[[B0:.*]] = tensor.dim %b, %{{.*}} : tensor<?x1x8x5xf32>
// CHECK:         %[[ONE:.*]] = arith.cmpi eq, %[[A0]], %{{.*}} : index
// CHECK-NEXT:    %[[BATCH:.*]] = arith.select %[[ONE]], %[[B0]], %[[A0]] : index
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[BATCH]], %[[A1]]) : tensor<?x?x4x5xf32>
// CHECK-NEXT:    hip.matmul(%ctx) ins(%a, %b : tensor<?x?x4x8xf32>, tensor<?x1x8x5xf32>) outs(%[[INIT]] : tensor<?x?x4x5xf32>)

// -----

// Rank-1 operands are promoted and the added dim dropped: a vector on the left
// keeps B's batch and columns, on the right A's batch and rows, on both sides a scalar.
func.func @matmul_vectors(%v: tensor<8xf32>, %b: tensor<?x8x?xf32>, %a: tensor<?x?x8xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<f32>) {
  %l = "onnx.MatMul"(%v, %b) : (tensor<8xf32>, tensor<?x8x?xf32>) -> tensor<?x?xf32>
  %r = "onnx.MatMul"(%a, %v) : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?xf32>
  %d = "onnx.MatMul"(%v, %v) : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  func.return %l, %r, %d : tensor<?x?xf32>, tensor<?x?xf32>, tensor<f32>
}
// CHECK-LABEL: func.func @matmul_vectors
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[B0:.*]] = tensor.dim %b, %[[C0]]
// CHECK-DAG:     %[[B2:.*]] = tensor.dim %b, %[[C2]]
// CHECK-DAG:     %[[A0:.*]] = tensor.dim %a, %[[C0]]
// CHECK-DAG:     %[[A1:.*]] = tensor.dim %a, %[[C1]]
// CHECK:         %[[L_INIT:.*]] = tensor.empty(%[[B0]], %[[B2]]) : tensor<?x?xf32>
// CHECK-NEXT:    %[[L:.*]] = hip.matmul(%ctx) ins(%v, %b : tensor<8xf32>, tensor<?x8x?xf32>) outs(%[[L_INIT]] : tensor<?x?xf32>)
// CHECK-NEXT:    %[[R_INIT:.*]] = tensor.empty(%[[A0]], %[[A1]]) : tensor<?x?xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.matmul(%ctx) ins(%a, %v : tensor<?x?x8xf32>, tensor<8xf32>) outs(%[[R_INIT]] : tensor<?x?xf32>)
// CHECK-NEXT:    %[[D_INIT:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[D:.*]] = hip.matmul(%ctx) ins(%v, %v : tensor<8xf32>, tensor<8xf32>) outs(%[[D_INIT]] : tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    func.return %[[L]], %[[R]], %[[D]]

// -----

// The model may declare a dim the rule leaves symbolic; the destination takes it,
// and the return casts back to the declared type where the rule is more static.
func.func @matmul_declared(%a: tensor<?x8xf32>, %b: tensor<8x?xf32>) -> tensor<?x?xf32> {
  %r = "onnx.MatMul"(%a, %b) : (tensor<?x8xf32>, tensor<8x?xf32>) -> tensor<3x?xf32>
  %s = "onnx.MatMul"(%r, %b) : (tensor<3x?xf32>, tensor<8x?xf32>) -> tensor<?x?xf32>
  func.return %s : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @matmul_declared
// CHECK:         %[[N:.*]] = tensor.dim %b
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<3x?xf32>
// CHECK:         %[[S_INIT:.*]] = tensor.empty(%[[N]]) : tensor<3x?xf32>
// CHECK-NEXT:    %[[S:.*]] = hip.matmul(%ctx) ins(%{{.*}}, %b : tensor<3x?xf32>, tensor<8x?xf32>) outs(%[[S_INIT]] : tensor<3x?xf32>)
// CHECK-NEXT:    %[[CAST:.*]] = tensor.cast %[[S]] : tensor<3x?xf32> to tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[CAST]]

// -----

// A Transpose of a weight (last two dims swapped) is read through: MatMul gets
// the weight with trans_b, Gemm a flipped trans flag, and the transpose is gone
// (no launch, no transposed copy). A Transpose of a computed value stays.
func.func @transposed_weights(%x: tensor<?x?x2xf32>, %a: tensor<?x2xf32>, %k: tensor<?x3x2xf32>) -> (tensor<?x?x3xf32>, tensor<?x3xf32>, tensor<3x?xf32>, tensor<?x2x3xf32>, tensor<?x?x3xf32>) {
  %w = "onnx.Constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %wt = "onnx.Transpose"(%w) <{perm = [1, 0]}> : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %logits = "onnx.MatMul"(%x, %wt) : (tensor<?x?x2xf32>, tensor<2x3xf32>) -> tensor<?x?x3xf32>
  %g = "onnx.Gemm"(%a, %wt, %none) : (tensor<?x2xf32>, tensor<2x3xf32>, none) -> tensor<?x3xf32>
  %g_a = "onnx.Gemm"(%wt, %a, %none) <{transA = 1 : si64, transB = 1 : si64}> : (tensor<2x3xf32>, tensor<?x2xf32>, none) -> tensor<3x?xf32>
  %kt = "onnx.Transpose"(%k) <{perm = [0, 2, 1]}> : (tensor<?x3x2xf32>) -> tensor<?x2x3xf32>
  %scores = "onnx.MatMul"(%x, %kt) : (tensor<?x?x2xf32>, tensor<?x2x3xf32>) -> tensor<?x?x3xf32>
  func.return %logits, %g, %g_a, %kt, %scores : tensor<?x?x3xf32>, tensor<?x3xf32>, tensor<3x?xf32>, tensor<?x2x3xf32>, tensor<?x?x3xf32>
}
// CHECK-LABEL: func.func @transposed_weights
// CHECK:         %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<3x2xf32>
// CHECK-NOT:     hip.transpose
// CHECK:         hip.matmul(%ctx) ins(%x, %[[W]] : tensor<?x?x2xf32>, tensor<3x2xf32>) outs(%{{.*}} : tensor<?x?x3xf32>) {trans_b = true} -> tensor<?x?x3xf32>
// CHECK-NOT:     hip.transpose
// CHECK:         hip.gemm(%ctx) ins(%a, %[[W]] : tensor<?x2xf32>, tensor<3x2xf32>) outs(%{{.*}} : tensor<?x3xf32>) {trans_b = true} -> tensor<?x3xf32>
// CHECK-NOT:     hip.transpose
// CHECK:         hip.gemm(%ctx) ins(%[[W]], %a : tensor<3x2xf32>, tensor<?x2xf32>) outs(%{{.*}} : tensor<3x?xf32>) {trans_b = true} -> tensor<3x?xf32>
// CHECK:         %[[KT:.*]] = hip.transpose(%ctx) ins(%k : tensor<?x3x2xf32>)
// CHECK:         hip.matmul(%ctx) ins(%x, %[[KT]] : tensor<?x?x2xf32>, tensor<?x2x3xf32>) outs(%{{.*}} : tensor<?x?x3xf32>) -> tensor<?x?x3xf32>

// -----

// Gemm with every transA/transB: M is A's dim 0 (1 when transposed), N is B's
// dim 1 (0 when transposed); C is passed through and broadcast by the kernel.
func.func @gemm_no_trans(%a: tensor<?x8xf32>, %b: tensor<8x?xf32>, %c: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = "onnx.Gemm"(%a, %b, %c) : (tensor<?x8xf32>, tensor<8x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @gemm_no_trans
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[M:.*]] = tensor.dim %a, %[[C0]] : tensor<?x8xf32>
// CHECK-DAG:     %[[N:.*]] = tensor.dim %b, %[[C1]] : tensor<8x?xf32>
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK-NEXT:    hip.gemm(%ctx) ins(%a, %b, %c : tensor<?x8xf32>, tensor<8x?xf32>, tensor<?xf32>) outs(%[[INIT]] : tensor<?x?xf32>) -> tensor<?x?xf32>

// -----

func.func @gemm_trans_a(%a: tensor<8x?xf32>, %b: tensor<8x?xf32>) -> tensor<?x?xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %r = "onnx.Gemm"(%a, %b, %none) <{transA = 1 : si64, alpha = 5.000000e-01 : f32}> : (tensor<8x?xf32>, tensor<8x?xf32>, none) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @gemm_trans_a
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[M:.*]] = tensor.dim %a, %[[C1]] : tensor<8x?xf32>
// CHECK-DAG:     %[[N:.*]] = tensor.dim %b, %[[C1]] : tensor<8x?xf32>
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK-NEXT:    hip.gemm(%ctx) ins(%a, %b : tensor<8x?xf32>, tensor<8x?xf32>) outs(%[[INIT]] : tensor<?x?xf32>) {alpha = 5.000000e-01 : f32, trans_a = true} -> tensor<?x?xf32>

// -----

func.func @gemm_trans_b(%a: tensor<?x8xf32>, %b: tensor<?x8xf32>, %c: tensor<1x1xf32>) -> tensor<?x?xf32> {
  %r = "onnx.Gemm"(%a, %b, %c) <{transB = 1 : si64, beta = 0.000000e+00 : f32}> : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<1x1xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[M:.*]] = tensor.dim %a, %[[C0]] : tensor<?x8xf32>
// CHECK-DAG:     %[[N:.*]] = tensor.dim %b, %[[C0]] : tensor<?x8xf32>
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK-NEXT:    hip.gemm(%ctx) ins(%a, %b, %c : tensor<?x8xf32>, tensor<?x8xf32>, tensor<1x1xf32>) outs(%[[INIT]] : tensor<?x?xf32>) {beta = 0.000000e+00 : f32, trans_b = true} -> tensor<?x?xf32>

// -----

// Both transposed and static: [16, 4] from A [8, 16] and B [4, 8]; the model's
// dynamic result type gets a cast.
func.func @gemm_trans_both(%a: tensor<8x16xf32>, %b: tensor<4x8xf32>, %c: tensor<16x1xf32>) -> tensor<?x?xf32> {
  %r = "onnx.Gemm"(%a, %b, %c) <{transA = 1 : si64, transB = 1 : si64}> : (tensor<8x16xf32>, tensor<4x8xf32>, tensor<16x1xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @gemm_trans_both
// CHECK-NOT:     tensor.dim
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<16x4xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.gemm(%ctx) ins(%a, %b, %c : tensor<8x16xf32>, tensor<4x8xf32>, tensor<16x1xf32>) outs(%[[INIT]] : tensor<16x4xf32>) {trans_a = true, trans_b = true} -> tensor<16x4xf32>
// CHECK-NEXT:    tensor.cast %[[R]] : tensor<16x4xf32> to tensor<?x?xf32>

// -----

// Softmax keeps its axis (negative or not; -1 is the default and not printed).
func.func @softmax_axes(%x: tensor<?x?x64xf32>) -> (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>) {
  %last = "onnx.Softmax"(%x) : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %one = "onnx.Softmax"(%x) <{axis = 1 : si64}> : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %neg = "onnx.Softmax"(%x) <{axis = -3 : si64}> : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  func.return %last, %one, %neg : tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>
}
// CHECK-LABEL: func.func @softmax_axes
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %x, %{{.*}}
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %x, %{{.*}}
// CHECK:         %[[I0:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?x64xf32>
// CHECK-NEXT:    hip.softmax(%ctx) ins(%x : tensor<?x?x64xf32>) outs(%[[I0]] : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT:    %[[I1:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?x64xf32>
// CHECK-NEXT:    hip.softmax(%ctx) ins(%x : tensor<?x?x64xf32>) outs(%[[I1]] : tensor<?x?x64xf32>) {axis = 1 : i64} -> tensor<?x?x64xf32>
// CHECK-NEXT:    %[[I2:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?x64xf32>
// CHECK-NEXT:    hip.softmax(%ctx) ins(%x : tensor<?x?x64xf32>) outs(%[[I2]] : tensor<?x?x64xf32>) {axis = -3 : i64} -> tensor<?x?x64xf32>

// -----

// LayerNormalization: Y only (the unused Mean/InvStdDev get no tensor); the bias
// is optional.
func.func @layer_norm(%x: tensor<?x?x64xf32>, %scale: tensor<64xf32>, %bias: tensor<64xf32>) -> (tensor<?x?x64xf32>, tensor<?x?x64xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  %y, %mean, %inv = "onnx.LayerNormalization"(%x, %scale, %bias) <{axis = -1 : si64, epsilon = 1.000000e-02 : f32}> : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<?x?x64xf32>, none, none)
  %y2, %mean2, %inv2 = "onnx.LayerNormalization"(%x, %scale, %none) <{axis = 2 : si64, epsilon = 1.000000e-03 : f32}> : (tensor<?x?x64xf32>, tensor<64xf32>, none) -> (tensor<?x?x64xf32>, tensor<?x?x1xf32>, tensor<?x?x1xf32>)
  func.return %y, %y2 : tensor<?x?x64xf32>, tensor<?x?x64xf32>
}
// CHECK-LABEL: func.func @layer_norm
// CHECK:         %[[I0:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x64xf32>
// CHECK-NEXT:    hip.layer_norm(%ctx) ins(%x, %scale, %bias : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%[[I0]] : tensor<?x?x64xf32>) {epsilon = 1.000000e-02 : f32} -> tensor<?x?x64xf32>
// CHECK-NEXT:    %[[I1:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x64xf32>
// CHECK-NEXT:    hip.layer_norm(%ctx) ins(%x, %scale : tensor<?x?x64xf32>, tensor<64xf32>) outs(%[[I1]] : tensor<?x?x64xf32>) {axis = 2 : i64, epsilon = 1.000000e-03 : f32} -> tensor<?x?x64xf32>
// CHECK-NOT:     tensor.empty

// -----

// LayerNormalization's Mean and InvStdDev, when used, are computed as ONNX's
// function body does, in the stash type (f32 for f16 X), over axes [axis, rank).
func.func @layer_norm_stats(%x: tensor<2x3x4xf16>, %scale: tensor<3x4xf16>) -> (tensor<2x1x1xf32>, tensor<2x1x1xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  %y, %mean, %inv = "onnx.LayerNormalization"(%x, %scale, %none) <{axis = 1 : si64}> : (tensor<2x3x4xf16>, tensor<3x4xf16>, none) -> (tensor<2x3x4xf16>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  func.return %mean, %inv : tensor<2x1x1xf32>, tensor<2x1x1xf32>
}
// CHECK-LABEL: func.func @layer_norm_stats
// CHECK:         %[[X32:.*]] = hip.cast(%ctx) ins(%x : tensor<2x3x4xf16>) outs(%{{.*}} : tensor<2x3x4xf32>)
// CHECK:         %[[MEAN:.*]] = hip.reduce_mean(%ctx) ins(%[[X32]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x1x1xf32>) {axes = array<i64: 1, 2>}
// CHECK:         %[[D:.*]] = hip.sub(%ctx) ins(%[[X32]], %[[MEAN]] : tensor<2x3x4xf32>, tensor<2x1x1xf32>)
// CHECK:         %[[DD:.*]] = hip.mul(%ctx) ins(%[[D]], %[[D]] : tensor<2x3x4xf32>, tensor<2x3x4xf32>)
// CHECK:         %[[VAR:.*]] = hip.reduce_mean(%ctx) ins(%[[DD]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x1x1xf32>) {axes = array<i64: 1, 2>}
// CHECK:         %[[EPS:.*]] = arith.constant dense<1.000000e-05> : tensor<f32>
// CHECK:         %[[VE:.*]] = hip.add(%ctx) ins(%[[VAR]], %[[EPS]] : tensor<2x1x1xf32>, tensor<f32>)
// CHECK:         %[[SD:.*]] = hip.sqrt(%ctx) ins(%[[VE]] : tensor<2x1x1xf32>)
// CHECK:         %[[INV:.*]] = hip.reciprocal(%ctx) ins(%[[SD]] : tensor<2x1x1xf32>)
// CHECK:         func.return %[[MEAN]], %[[INV]]

// -----

// Reduce* with constant axes (the opset-18 input form): keepdims keeps unit dims,
// negative and repeated axes are normalized once for the hip op.
func.func @reduce_axes(%x: tensor<?x?x8xf32>) -> (tensor<?x1x1xf32>, tensor<?xf32>) {
  %axes = "onnx.Constant"() {value = dense<[1, -1, 2]> : tensor<3xi64>} : () -> tensor<3xi64>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<?x?x8xf32>, tensor<3xi64>) -> tensor<?x1x1xf32>
  %sum = "onnx.ReduceSum"(%x, %axes) <{keepdims = 0 : si64}> : (tensor<?x?x8xf32>, tensor<3xi64>) -> tensor<?xf32>
  func.return %mean, %sum : tensor<?x1x1xf32>, tensor<?xf32>
}
// CHECK-LABEL: func.func @reduce_axes
// CHECK:         %[[D0:.*]] = tensor.dim %x, %{{.*}}
// CHECK-NOT:     tensor.extract
// CHECK:         %[[I0:.*]] = tensor.empty(%[[D0]]) : tensor<?x1x1xf32>
// CHECK-NEXT:    hip.reduce_mean(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%[[I0]] : tensor<?x1x1xf32>) {axes = array<i64: 1, 2>} -> tensor<?x1x1xf32>
// CHECK-NEXT:    %[[I1:.*]] = tensor.empty(%[[D0]]) : tensor<?xf32>
// CHECK-NEXT:    hip.reduce_sum(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%[[I1]] : tensor<?xf32>) {axes = array<i64: 1, 2>, keepdims = false} -> tensor<?xf32>

// -----

// No axes: every axis is reduced, unless noop_with_empty_axes makes the op the
// identity (an empty axes tensor counts as no axes).
func.func @reduce_all_or_nothing(%x: tensor<?x?x8xf32>) -> (tensor<1x1x1xf32>, tensor<f32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  %empty = "onnx.Constant"() {value = dense<> : tensor<0xi64>} : () -> tensor<0xi64>
  %all = "onnx.ReduceMax"(%x, %none) : (tensor<?x?x8xf32>, none) -> tensor<1x1x1xf32>
  %scalar = "onnx.ReduceSum"(%x, %empty) <{keepdims = 0 : si64}> : (tensor<?x?x8xf32>, tensor<0xi64>) -> tensor<f32>
  %same = "onnx.ReduceMean"(%x, %none) <{noop_with_empty_axes = 1 : si64}> : (tensor<?x?x8xf32>, none) -> tensor<?x?x8xf32>
  %same2 = "onnx.ReduceSum"(%x, %empty) <{noop_with_empty_axes = 1 : si64}> : (tensor<?x?x8xf32>, tensor<0xi64>) -> tensor<?x?x8xf32>
  func.return %all, %scalar, %same, %same2 : tensor<1x1x1xf32>, tensor<f32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>
}
// CHECK-LABEL: func.func @reduce_all_or_nothing
// CHECK:         %[[I0:.*]] = tensor.empty() : tensor<1x1x1xf32>
// CHECK-NEXT:    %[[ALL:.*]] = hip.reduce_max(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%[[I0]] : tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
// CHECK-NEXT:    %[[I1:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[SCALAR:.*]] = hip.reduce_sum(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%[[I1]] : tensor<f32>) {keepdims = false} -> tensor<f32>
// CHECK-NOT:     hip.reduce
// CHECK:         func.return %[[ALL]], %[[SCALAR]], %x, %x

// -----

// ReduceMax of bools (opset 20) is "any": hip reductions are numeric, so the
// bools are reduced as ui8 (an empty axis gives 0, false) and cast back.
func.func @reduce_max_bool(%x: tensor<4x?xi1>) -> tensor<4x1xi1> {
  %axes = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %any = "onnx.ReduceMax"(%x, %axes) : (tensor<4x?xi1>, tensor<1xi64>) -> tensor<4x1xi1>
  func.return %any : tensor<4x1xi1>
}
// CHECK-LABEL: func.func @reduce_max_bool
// CHECK:         %[[BYTES:.*]] = hip.cast(%ctx) ins(%x : tensor<4x?xi1>) outs(%{{.*}} : tensor<4x?xui8>)
// CHECK:         %[[MAX:.*]] = hip.reduce_max(%ctx) ins(%[[BYTES]] : tensor<4x?xui8>) outs(%{{.*}} : tensor<4x1xui8>) {axes = array<i64: 1>}
// CHECK:         %[[ANY:.*]] = hip.cast(%ctx) ins(%[[MAX]] : tensor<4x1xui8>) outs(%{{.*}} : tensor<4x1xi1>)
// CHECK:         func.return %[[ANY]]

// -----

// Axes computed on the host from a shape (Shape -> Sub) are constants after folding:
// Shape(x)[0:1] - 1 = [1].
func.func @reduce_host_axes(%x: tensor<2x?x8xf32>) -> tensor<2x1x8xf32> {
  %shape = "onnx.Shape"(%x) <{start = 0 : si64, end = 1 : si64}> : (tensor<2x?x8xf32>) -> tensor<1xi64>
  %one = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %axes = "onnx.Sub"(%shape, %one) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %r = "onnx.ReduceMax"(%x, %axes) : (tensor<2x?x8xf32>, tensor<1xi64>) -> tensor<2x1x8xf32>
  func.return %r : tensor<2x1x8xf32>
}
// CHECK-LABEL: func.func @reduce_host_axes
// CHECK-NOT:     hip.sub
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x1x8xf32>
// CHECK-NEXT:    hip.reduce_max(%ctx) ins(%x : tensor<2x?x8xf32>) outs(%[[INIT]] : tensor<2x1x8xf32>) {axes = array<i64: 1>} -> tensor<2x1x8xf32>

// -----

func.func @matmul_contraction(%a: tensor<?x8xf32>, %b: tensor<7x?xf32>) -> tensor<?x?xf32> {
  %r = "onnx.MatMul"(%a, %b) {onnx_node_name = "proj"} : (tensor<?x8xf32>, tensor<7x?xf32>) -> tensor<?x?xf32>
  // CHECK: {{.*}}linalg.mlir:[[# @LINE - 1]]:3: error: MatMul contraction dims differ: 8 vs 7
  func.return %r : tensor<?x?xf32>
}

// -----

func.func @gemm_c(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>, %c: tensor<4xf32>) -> tensor<4x5xf32> {
  %r = "onnx.Gemm"(%a, %b, %c) : (tensor<4x8xf32>, tensor<8x5xf32>, tensor<4xf32>) -> tensor<4x5xf32>
  // CHECK: {{.*}}linalg.mlir:[[# @LINE - 1]]:3: error: Gemm C [4] does not broadcast to [4, 5]
  func.return %r : tensor<4x5xf32>
}

// -----

func.func @reduce_runtime_axes(%x: tensor<?x8xf32>, %axes: tensor<1xi64>) -> tensor<?xf32> {
  %r = "onnx.ReduceSum"(%x, %axes) <{keepdims = 0 : si64}> : (tensor<?x8xf32>, tensor<1xi64>) -> tensor<?xf32>
  // CHECK: {{.*}}linalg.mlir:[[# @LINE - 1]]:3: error: onnx.ReduceSum axes must be constant
  func.return %r : tensor<?xf32>
}

// -----

func.func @reduce_axis_range(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %axes = "onnx.Constant"() {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = "onnx.ReduceMean"(%x, %axes) : (tensor<?x8xf32>, tensor<1xi64>) -> tensor<?x8xf32>
  // CHECK: {{.*}}linalg.mlir:[[# @LINE - 1]]:3: error: reduction axis 2 is out of range [-2, 1] for rank 2
  func.return %r : tensor<?x8xf32>
}

// -----

// CumSum: the scalar axis input becomes the `axis` property; the destination has
// the input's shape. GPT-2 numbers positions with it (Not -> Cast -> CumSum).
func.func @cumsum(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %axis = "onnx.Constant"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %r = "onnx.CumSum"(%x, %axis) <{exclusive = 1 : si64, reverse = 1 : si64}> : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi64>
  func.return %r : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @cumsum
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %x, %{{.*}}
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %x, %{{.*}}
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?xi64>
// CHECK-NEXT:    %[[R:.*]] = hip.cumsum(%ctx) ins(%x : tensor<?x?xi64>) outs(%[[INIT]] : tensor<?x?xi64>) {axis = -1 : i64, exclusive = true, reverse = true} -> tensor<?x?xi64>
// CHECK-NEXT:    func.return %[[R]]

// -----

// An axis computed on the host from a shape (Shape(x)[0:1] - 1 = [1]) is a
// constant after folding; the defaults of exclusive and reverse stay elided.
func.func @cumsum_host_axis(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %shape = "onnx.Shape"(%x) <{start = 0 : si64, end = 1 : si64}> : (tensor<2x?xf32>) -> tensor<1xi64>
  %one = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %axis = "onnx.Sub"(%shape, %one) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %r = "onnx.CumSum"(%x, %axis) : (tensor<2x?xf32>, tensor<1xi64>) -> tensor<2x?xf32>
  func.return %r : tensor<2x?xf32>
}
// CHECK-LABEL: func.func @cumsum_host_axis
// CHECK-NOT:     hip.sub
// CHECK:         %[[INIT:.*]] = tensor.empty(%{{.*}}) : tensor<2x?xf32>
// CHECK-NEXT:    hip.cumsum(%ctx) ins(%x : tensor<2x?xf32>) outs(%[[INIT]] : tensor<2x?xf32>) {axis = 1 : i64} -> tensor<2x?xf32>

// -----

func.func @cumsum_runtime_axis(%x: tensor<?x8xf32>, %axis: tensor<i32>) -> tensor<?x8xf32> {
  %r = "onnx.CumSum"(%x, %axis) {onnx_node_name = "positions"} : (tensor<?x8xf32>, tensor<i32>) -> tensor<?x8xf32>
  // CHECK: {{.*}}linalg.mlir:[[# @LINE - 1]]:3: error: CumSum axis must be constant
  func.return %r : tensor<?x8xf32>
}

// -----

func.func @cumsum_axis_range(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %axis = "onnx.Constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %r = "onnx.CumSum"(%x, %axis) : (tensor<?x8xf32>, tensor<i64>) -> tensor<?x8xf32>
  // CHECK: {{.*}}linalg.mlir:[[# @LINE - 1]]:3: error: CumSum axis 2 is out of range [-2, 1] for rank 2
  func.return %r : tensor<?x8xf32>
}
