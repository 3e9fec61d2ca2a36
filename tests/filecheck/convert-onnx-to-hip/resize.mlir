// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file | filecheck %s

// Nearest 2x over run-time spatial dims: each output extent is the input's times 2 (index
// arithmetic, exact); N and C keep x's index (resized 0).
func.func @upsample(%x: tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %s = "onnx.Constant"() {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %y = "onnx.Resize"(%x, %none, %s, %none) <{mode = "nearest", coordinate_transformation_mode = "asymmetric"}> : (tensor<?x3x?x?xf32>, none, tensor<4xf32>, none) -> tensor<?x3x?x?xf32>
  func.return %y : tensor<?x3x?x?xf32>
}
// CHECK-LABEL: func.func @upsample
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x3x?x?xf32>)
// CHECK-DAG:     %[[N:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[H:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[W:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[H2:.*]] = arith.muli %[[H]], %{{.*}} : index
// CHECK-DAG:     %[[W2:.*]] = arith.muli %[[W]], %{{.*}} : index
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[N]], %[[H2]], %[[W2]]) : tensor<?x3x?x?xf32>
// CHECK-NEXT:    %[[Y:.*]] = hip.resize(%[[CTX]]) ins(%[[X]] : tensor<?x3x?x?xf32>) outs(%[[INIT]] : tensor<?x3x?x?xf32>)
// CHECK-SAME:      {mode = "nearest", coordinate_mode = "asymmetric", scales = array<f64: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>, resized = array<i64: 0, 0, 1, 1>, roi = array<f64>}
// CHECK-NEXT:    func.return %[[Y]]

// -----

// Linear to another tensor's run-time shape: the output takes its extents; the scales of
// the dims it resizes are 0 (O / D, worked out by the kernel), C (3 either way) keeps x's index.
func.func @to_shape(%x: tensor<?x3x?x?xf32>, %like: tensor<?x3x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %sizes = "onnx.Shape"(%like) : (tensor<?x3x?x?xf32>) -> tensor<4xi64>
  %y = "onnx.Resize"(%x, %none, %none, %sizes) <{mode = "linear", coordinate_transformation_mode = "pytorch_half_pixel"}> : (tensor<?x3x?x?xf32>, none, none, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  func.return %y : tensor<?x?x?x?xf32>
}
// CHECK-LABEL: func.func @to_shape
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x3x?x?xf32>, %[[LIKE:.*]]: tensor<?x3x?x?xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[LIKE]], %{{.*}}
// CHECK-NEXT:    %[[H:.*]] = tensor.dim %[[LIKE]], %{{.*}}
// CHECK-NEXT:    %[[W:.*]] = tensor.dim %[[LIKE]], %{{.*}}
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[N]], %[[H]], %[[W]]) : tensor<?x3x?x?xf32>
// CHECK-NEXT:    hip.resize(%[[CTX]]) ins(%[[X]] : tensor<?x3x?x?xf32>) outs(%[[INIT]] : tensor<?x3x?x?xf32>)
// CHECK-SAME:      {mode = "linear", coordinate_mode = "pytorch_half_pixel", scales = array<f64: 0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00>, resized = array<i64: 1, 0, 1, 1>, roi = array<f64>}

// -----

// antialias: the sizes over static extents give each resized dim its scale (O / D), from
// which the kernel's window of taps follows.
func.func @antialias(%x: tensor<1x3x8x6xf32>) -> tensor<1x3x4x2xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %sizes = "onnx.Constant"() {value = dense<[1, 3, 4, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %y = "onnx.Resize"(%x, %none, %none, %sizes) <{antialias = 1 : si64, mode = "cubic"}> : (tensor<1x3x8x6xf32>, none, none, tensor<4xi64>) -> tensor<1x3x4x2xf32>
  func.return %y : tensor<1x3x4x2xf32>
}
// CHECK-LABEL: func.func @antialias
// CHECK:         hip.resize(%{{.*}}) ins(%{{.*}} : tensor<1x3x8x6xf32>) outs(%{{.*}} : tensor<1x3x4x2xf32>)
// CHECK-SAME:    scales = array<f64: 1.000000e+00, 1.000000e+00, 5.000000e-01, 0.33333333333333331>
// CHECK-SAME:    antialias = true

