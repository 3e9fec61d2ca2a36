// RUN: xhip-opt %s --split-input-file -p onnx-merge-sibling-matmuls | filecheck %s
// RUN: xhip-opt %s --split-input-file -p onnx-merge-sibling-matmuls,onnx-merge-sibling-matmuls | filecheck %s

// The seed attention's projections: X @ Wq, X @ Wk, X @ Wv become X @ [Wq | Wk | Wv]
// and a Split in place of the first; the three weights are gone.

func.func @projections(%x: tensor<?x?x2xf32>) -> (tensor<?x?x2xf32>, tensor<?x?x1xf32>, tensor<?x?x2xf32>) {
  %wq = "onnx.Constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %wk = "onnx.Constant"() {value = dense<[[5.0], [6.0]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %wv = "onnx.Constant"() {value = dense<[[7.0, 8.0], [9.0, 10.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %q = "onnx.MatMul"(%x, %wq) {onnx_node_name = "q_proj"} : (tensor<?x?x2xf32>, tensor<2x2xf32>) -> tensor<?x?x2xf32>
  %k = "onnx.MatMul"(%x, %wk) {onnx_node_name = "k_proj"} : (tensor<?x?x2xf32>, tensor<2x1xf32>) -> tensor<?x?x1xf32>
  %v = "onnx.MatMul"(%x, %wv) {onnx_node_name = "v_proj"} : (tensor<?x?x2xf32>, tensor<2x2xf32>) -> tensor<?x?x2xf32>
  %rq = "onnx.Relu"(%q) : (tensor<?x?x2xf32>) -> tensor<?x?x2xf32>
  %rk = "onnx.Relu"(%k) : (tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %rv = "onnx.Relu"(%v) : (tensor<?x?x2xf32>) -> tensor<?x?x2xf32>
  func.return %rq, %rk, %rv : tensor<?x?x2xf32>, tensor<?x?x1xf32>, tensor<?x?x2xf32>
}
// CHECK-LABEL: func.func @projections
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x2xf32>)
// CHECK-NEXT:    %[[W:.*]] = "onnx.Constant"() {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00, 5.000000e+00, 7.000000e+00, 8.000000e+00], [3.000000e+00, 4.000000e+00, 6.000000e+00, 9.000000e+00, 1.000000e+01]]> : tensor<2x5xf32>}
// CHECK-NEXT:    %[[SIZES:.*]] = "onnx.Constant"() {value = dense<[2, 1, 2]> : tensor<3xi64>}
// CHECK-NEXT:    %[[Y:.*]] = "onnx.MatMul"(%[[X]], %[[W]]) {onnx_node_name = "q_proj+k_proj+v_proj"} : (tensor<?x?x2xf32>, tensor<2x5xf32>) -> tensor<?x?x5xf32>
// CHECK-NEXT:    %[[Q:.*]], %[[K:.*]], %[[V:.*]] = "onnx.Split"(%[[Y]], %[[SIZES]]) <{axis = -1 : si64}> {onnx_node_name = "q_proj+k_proj+v_proj"} : (tensor<?x?x5xf32>, tensor<3xi64>) -> (tensor<?x?x2xf32>, tensor<?x?x1xf32>, tensor<?x?x2xf32>)
// CHECK-NEXT:    "onnx.Relu"(%[[Q]])
// CHECK-NEXT:    "onnx.Relu"(%[[K]])
// CHECK-NEXT:    "onnx.Relu"(%[[V]])

// -----

// Projections, each with an Add of a bias that is no constant: the MatMuls merge, the
// Adds stay and read their part. A rank-1 input merges too.

func.func @with_bias(%x: tensor<3x2xf32>, %b: tensor<2xf32>, %r: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %w0 = "onnx.Constant"() {value = dense<1.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %w1 = "onnx.Constant"() {value = dense<2.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %m0 = "onnx.MatMul"(%x, %w0) : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %a0 = "onnx.Add"(%m0, %b) : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %m1 = "onnx.MatMul"(%x, %w1) : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %a1 = "onnx.Add"(%m1, %b) : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %w2 = "onnx.Constant"() {value = dense<3.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %w3 = "onnx.Constant"() {value = dense<4.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %v0 = "onnx.MatMul"(%r, %w2) : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
  %v1 = "onnx.MatMul"(%r, %w3) : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
  %s = "onnx.Add"(%v0, %v1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %a0, %a1, %s, %s : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>
}
// CHECK-LABEL: func.func @with_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<2xf32>, %[[R:.*]]: tensor<2xf32>)
// CHECK:         %[[Y:.*]] = "onnx.MatMul"(%[[X]], %{{.*}}) : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %[[P0:.*]], %[[P1:.*]] = "onnx.Split"(%[[Y]], %{{.*}}) <{axis = -1 : si64}>
// CHECK-NEXT:    "onnx.Add"(%[[P0]], %[[B]])
// CHECK-NEXT:    "onnx.Add"(%[[P1]], %[[B]])
// CHECK:         %[[YR:.*]] = "onnx.MatMul"(%[[R]], %{{.*}}) : (tensor<2xf32>, tensor<2x4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    "onnx.Split"(%[[YR]], %{{.*}}) <{axis = -1 : si64}> : (tensor<4xf32>, tensor<2xi64>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK-NOT:     "onnx.MatMul"

// -----

// Left alone: one MatMul per input, weights of other row counts or element types, a
// weight another op reads too, and a computed B.

func.func @not_merged(%x: tensor<4x2xf32>, %y: tensor<4x3xf32>, %c: tensor<2x2xf32>, %h: tensor<4x2xf16>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<2x2xf32>, tensor<4x2xf32>, tensor<4x2xf16>) {
  %w0 = "onnx.Constant"() {value = dense<1.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %w1 = "onnx.Constant"() {value = dense<2.0> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  %w2 = "onnx.Constant"() {value = dense<3.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %m0 = "onnx.MatMul"(%x, %w0) : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %m1 = "onnx.MatMul"(%y, %w1) : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %m2 = "onnx.MatMul"(%x, %w2) : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %shared = "onnx.Add"(%w2, %c) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %m3 = "onnx.MatMul"(%x, %c) : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %w4 = "onnx.Constant"() {value = dense<4.0> : tensor<2x2xf16>} : () -> tensor<2x2xf16>
  %m4 = "onnx.MatMul"(%h, %w4) : (tensor<4x2xf16>, tensor<2x2xf16>) -> tensor<4x2xf16>
  func.return %m0, %m1, %m2, %shared, %m3, %m4 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<2x2xf32>, tensor<4x2xf32>, tensor<4x2xf16>
}
// CHECK-LABEL: func.func @not_merged
// CHECK-NOT:     "onnx.Split"
// CHECK-COUNT-5: "onnx.MatMul"
// CHECK-NOT:     "onnx.Split"

// -----

// Left alone: products that a Reshape (Llama's heads) or the return would copy out of
// the merged one; the other two still merge.

func.func @copies_a_window(%x: tensor<4x2xf32>) -> (tensor<8xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %shape = "onnx.Constant"() {value = dense<8> : tensor<1xi64>} : () -> tensor<1xi64>
  %w0 = "onnx.Constant"() {value = dense<1.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %w1 = "onnx.Constant"() {value = dense<2.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %w2 = "onnx.Constant"() {value = dense<3.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %w3 = "onnx.Constant"() {value = dense<4.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %m0 = "onnx.MatMul"(%x, %w0) : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %heads = "onnx.Reshape"(%m0, %shape) : (tensor<4x2xf32>, tensor<1xi64>) -> tensor<8xf32>
  %m1 = "onnx.MatMul"(%x, %w1) : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %m2 = "onnx.MatMul"(%x, %w2) : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %m3 = "onnx.MatMul"(%x, %w3) : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %gated = "onnx.Mul"(%m2, %m3) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  func.return %heads, %m1, %gated : tensor<8xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}
// CHECK-LABEL: func.func @copies_a_window
// CHECK:         %[[M0:.*]] = "onnx.MatMul"(%{{.*}}, %{{.*}}) : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    "onnx.Reshape"(%[[M0]], %{{.*}})
// CHECK-NEXT:    %[[M1:.*]] = "onnx.MatMul"(%{{.*}}, %{{.*}}) : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
// CHECK:         %[[Y:.*]] = "onnx.MatMul"(%{{.*}}, %{{.*}}) : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %[[G:.*]], %[[U:.*]] = "onnx.Split"(%[[Y]], %{{.*}})
// CHECK-NEXT:    "onnx.Mul"(%[[G]], %[[U]])
// CHECK-NEXT:    func.return %{{.*}}, %[[M1]], %{{.*}}

// -----

// A Reshape that only splits a product's last dim into heads ([.., 4] -> [.., 2, 2]:
// Llama's Q, K and V) reads its window as a strided view: those products merge.

func.func @split_into_heads(%x: tensor<?x3x2xf32>) -> (tensor<?x3x2x2xf32>, tensor<?x3x2x2xf32>) {
  %shape = "onnx.Constant"() {value = dense<[0, 3, 2, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %wq = "onnx.Constant"() {value = dense<1.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
  %wk = "onnx.Constant"() {value = dense<2.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
  %q = "onnx.MatMul"(%x, %wq) : (tensor<?x3x2xf32>, tensor<2x4xf32>) -> tensor<?x3x4xf32>
  %qh = "onnx.Reshape"(%q, %shape) : (tensor<?x3x4xf32>, tensor<4xi64>) -> tensor<?x3x2x2xf32>
  %k = "onnx.MatMul"(%x, %wk) : (tensor<?x3x2xf32>, tensor<2x4xf32>) -> tensor<?x3x4xf32>
  %kh = "onnx.Reshape"(%k, %shape) : (tensor<?x3x4xf32>, tensor<4xi64>) -> tensor<?x3x2x2xf32>
  func.return %qh, %kh : tensor<?x3x2x2xf32>, tensor<?x3x2x2xf32>
}
// CHECK-LABEL: func.func @split_into_heads
// CHECK:         %[[Y:.*]] = "onnx.MatMul"(%x, %{{.*}}) : (tensor<?x3x2xf32>, tensor<2x8xf32>) -> tensor<?x3x8xf32>
// CHECK-NEXT:    %[[Q:.*]], %[[K:.*]] = "onnx.Split"(%[[Y]], %{{.*}})
// CHECK:         "onnx.Reshape"(%[[Q]], %{{.*}})
// CHECK:         "onnx.Reshape"(%[[K]], %{{.*}})

// -----

// BERT's projections, each with the Add of a constant bias, each sum split into heads:
// one MatMul by the weights side by side, one Add of the biases side by side, then the
// Split; the Reshapes read their window of the sum.

func.func @constant_biases(%x: tensor<?x3x2xf32>) -> (tensor<?x3x2x2xf32>, tensor<?x3x2x2xf32>) {
  %shape = "onnx.Constant"() {value = dense<[0, 3, 2, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %wq = "onnx.Constant"() {value = dense<1.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
  %bq = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %wk = "onnx.Constant"() {value = dense<2.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
  %bk = "onnx.Constant"() {value = dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %q = "onnx.MatMul"(%x, %wq) : (tensor<?x3x2xf32>, tensor<2x4xf32>) -> tensor<?x3x4xf32>
  %qb = "onnx.Add"(%q, %bq) : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  %qh = "onnx.Reshape"(%qb, %shape) : (tensor<?x3x4xf32>, tensor<4xi64>) -> tensor<?x3x2x2xf32>
  %k = "onnx.MatMul"(%x, %wk) : (tensor<?x3x2xf32>, tensor<2x4xf32>) -> tensor<?x3x4xf32>
  %kb = "onnx.Add"(%bk, %k) : (tensor<4xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  %kh = "onnx.Reshape"(%kb, %shape) : (tensor<?x3x4xf32>, tensor<4xi64>) -> tensor<?x3x2x2xf32>
  func.return %qh, %kh : tensor<?x3x2x2xf32>, tensor<?x3x2x2xf32>
}
// CHECK-LABEL: func.func @constant_biases
// CHECK:         %[[Y:.*]] = "onnx.MatMul"(%x, %{{.*}}) : (tensor<?x3x2xf32>, tensor<2x8xf32>) -> tensor<?x3x8xf32>
// CHECK-NEXT:    %[[BIAS:.*]] = "onnx.Constant"() {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<8xf32>}
// CHECK-NEXT:    %[[SUM:.*]] = "onnx.Add"(%[[Y]], %[[BIAS]]) : (tensor<?x3x8xf32>, tensor<8xf32>) -> tensor<?x3x8xf32>
// CHECK-NEXT:    %[[Q:.*]], %[[K:.*]] = "onnx.Split"(%[[SUM]], %{{.*}})
// CHECK-NOT:     "onnx.Add"
// CHECK:         "onnx.Reshape"(%[[Q]], %{{.*}})
// CHECK:         "onnx.Reshape"(%[[K]], %{{.*}})
