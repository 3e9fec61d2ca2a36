// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file | filecheck %s
// RUN: xhip-opt %s -p 'hip-add-context-arg,convert-onnx-to-hip{conv-as-matmul=false}' --split-input-file | filecheck %s --check-prefix=DIRECT

// A padded, strided 3x3 Conv of one group with a bias over run-time N, H and W: the windows'
// columns (hip.im2col, [N, C * 9, OH * OW]) times W viewed as [M, C * 9] is y [N, M, OH * OW],
// viewed as [N, M, OH, OW], plus b viewed as [M, 1, 1]. OH = (H + 1 + 1 - 3) / 2 + 1.
func.func @strided(%x: tensor<?x3x?x?xf32>) -> tensor<?x4x?x?xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x3x3x3xf32>} : () -> tensor<4x3x3x3xf32>
  %b = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %y = "onnx.Conv"(%x, %w, %b) <{group = 1 : si64, pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x?x?xf32>
  func.return %y : tensor<?x4x?x?xf32>
}
// CHECK-LABEL: func.func @strided
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x3x?x?xf32>)
// CHECK-DAG:     %[[N:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[H:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[WD:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK:         %[[WM:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64, 3 : i64]] : tensor<4x3x3x3xf32> into tensor<4x27xf32>
// CHECK:         %[[P:.*]] = arith.muli %[[OH:.*]], %[[OW:.*]] : index
// CHECK-NEXT:    %[[CI:.*]] = tensor.empty(%[[N]], %[[P]]) : tensor<?x27x?xf32>
// CHECK-NEXT:    %[[COLS:.*]] = hip.im2col(%[[CTX]]) ins(%[[X]] : tensor<?x3x?x?xf32>) outs(%[[CI]] : tensor<?x27x?xf32>)
// CHECK-SAME:      {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:    %[[MI:.*]] = tensor.empty(%[[N]], %[[P]]) : tensor<?x4x?xf32>
// CHECK-NEXT:    %[[MM:.*]] = hip.matmul(%[[CTX]]) ins(%[[WM]], %[[COLS]] : tensor<4x27xf32>, tensor<?x27x?xf32>) outs(%[[MI]] : tensor<?x4x?xf32>)
// CHECK-NEXT:    %[[Y4:.*]] = tensor.expand_shape %[[MM]] {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [%[[N]], 4, %[[OH]], %[[OW]]]
// CHECK:         hip.add(%[[CTX]]) ins(%[[Y4]], %{{.*}} : tensor<?x4x?x?xf32>, tensor<4x1x1xf32>)
// CHECK-NOT:     hip.conv
// DIRECT-LABEL: func.func @strided
// DIRECT-NOT:    hip.im2col
// DIRECT:        hip.conv(%{{.*}}) ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
// DIRECT-SAME:     {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64}

// -----

// A 1-d dilated Conv without a bias: 3 taps of 2 channels are 6 rows; no add.
func.func @dilated_1d(%x: tensor<2x2x10xf32>) -> tensor<2x5x6xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %w = "onnx.Constant"() {value = dense<0.25> : tensor<5x2x3xf32>} : () -> tensor<5x2x3xf32>
  %y = "onnx.Conv"(%x, %w, %none) <{dilations = [2]}> : (tensor<2x2x10xf32>, tensor<5x2x3xf32>, none) -> tensor<2x5x6xf32>
  func.return %y : tensor<2x5x6xf32>
}
// CHECK-LABEL: func.func @dilated_1d
// CHECK:         %[[COLS:.*]] = hip.im2col(%{{.*}}) ins(%{{.*}} : tensor<2x2x10xf32>) outs(%{{.*}} : tensor<2x6x6xf32>)
// CHECK-SAME:      {kernel_shape = array<i64: 3>, strides = array<i64: 1>, dilations = array<i64: 2>, pads = array<i64: 0, 0>}
// CHECK:         %[[MM:.*]] = hip.matmul(%{{.*}}) ins(%{{.*}}, %[[COLS]] : tensor<5x6xf32>, tensor<2x6x6xf32>) outs(%{{.*}} : tensor<2x5x6xf32>)
// CHECK-NOT:     hip.add
// CHECK:         func.return %[[MM]]

// -----

// A grouped (here depthwise) Conv reads each input element once per tap: it stays on the
// direct kernel either way.
func.func @depthwise(%x: tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<3x1x3x3xf32>} : () -> tensor<3x1x3x3xf32>
  %y = "onnx.Conv"(%x, %w, %none) <{group = 3 : si64, pads = [1, 1, 1, 1]}> : (tensor<?x3x8x8xf32>, tensor<3x1x3x3xf32>, none) -> tensor<?x3x8x8xf32>
  func.return %y : tensor<?x3x8x8xf32>
}
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT:     hip.im2col
// CHECK:         hip.conv(%{{.*}}) {{.*}} group = 3 : i64
// DIRECT-LABEL: func.func @depthwise
// DIRECT:        hip.conv(%{{.*}}) {{.*}} group = 3 : i64
