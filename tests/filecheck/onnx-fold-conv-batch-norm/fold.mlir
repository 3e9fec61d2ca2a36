// RUN: xhip-opt %s --split-input-file -p onnx-fold-conv-batch-norm | filecheck %s
// RUN: xhip-opt %s --split-input-file -p onnx-fold-conv-batch-norm,onnx-fold-conv-batch-norm | filecheck %s

// Two filters, no bias: W' = W * a and B' = bias - mean * a, a = scale / sqrt(var + eps).
// Filter 0: a = 2 / sqrt(3 + 1) = 1, W' = 1, B' = 1 - 1 * 1 = 0; filter 1: a = 4 / sqrt(3 + 1)
// = 2, W' = 3 * 2 = 6, B' = 0.5 - 2 * 2 = -3.5. The old constants and the NoValue go.

func.func @fold(%x: tensor<?x1x?x?xf32>) -> tensor<?x2x?x?xf32> {
  %w = "onnx.Constant"() {value = dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %scale = "onnx.Constant"() {value = dense<[2.0, 4.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %bias = "onnx.Constant"() {value = dense<[1.0, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "onnx.Constant"() {value = dense<[3.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "conv"} : (tensor<?x1x?x?xf32>, tensor<2x1x1x1xf32>, none) -> tensor<?x2x?x?xf32>
  %y, %rm, %rv = "onnx.BatchNormalization"(%c, %scale, %bias, %mean, %var) <{epsilon = 1.000000e+00 : f32}> {onnx_node_name = "bn"} : (tensor<?x2x?x?xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<?x2x?x?xf32>, none, none)
  func.return %y : tensor<?x2x?x?xf32>
}
// CHECK-LABEL: func.func @fold
// CHECK-SAME:    (%[[X:.*]]: tensor<?x1x?x?xf32>)
// CHECK-NEXT:    %[[W:.*]] = "onnx.Constant"() {value = dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}6.000000e+00]]]]> : tensor<2x1x1x1xf32>}
// CHECK-NEXT:    %[[B:.*]] = "onnx.Constant"() {value = dense<[0.000000e+00, -3.500000e+00]> : tensor<2xf32>}
// CHECK-NEXT:    %[[Y:.*]] = "onnx.Conv"(%[[X]], %[[W]], %[[B]]) {onnx_node_name = "conv+bn"}
// CHECK-NEXT:    func.return %[[Y]]

// -----

// The Conv's result is also returned: both stay.

func.func @conv_read_twice(%x: tensor<?x1x?x?xf32>) -> (tensor<?x2x?x?xf32>, tensor<?x2x?x?xf32>) {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %p = "onnx.Constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<?x1x?x?xf32>, tensor<2x1x1x1xf32>, none) -> tensor<?x2x?x?xf32>
  %y, %rm, %rv = "onnx.BatchNormalization"(%c, %p, %p, %p, %p) : (tensor<?x2x?x?xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<?x2x?x?xf32>, none, none)
  func.return %y, %c : tensor<?x2x?x?xf32>, tensor<?x2x?x?xf32>
}
// CHECK-LABEL: func.func @conv_read_twice
// CHECK:         "onnx.Conv"
// CHECK:         "onnx.BatchNormalization"
