// RUN: xhip-opt %s | filecheck %s

// Runtime dims never contradict a shape rule: a `?` result dim, or a `?` operand dim that
// broadcasts against a static one, verifies (the errors are in invalid.mlir).
func.func @dynamic_dims_verify(%a: tensor<?x4xf32>, %b: tensor<4xf32>, %c: tensor<?x?xf32>) -> (tensor<?x4xf32>, tensor<?x?xf32>) {
  %0 = "onnx.Add"(%a, %b) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %1 = "onnx.Mul"(%c, %0) : (tensor<?x?xf32>, tensor<?x4xf32>) -> tensor<?x?xf32>
  func.return %0, %1 : tensor<?x4xf32>, tensor<?x?xf32>
}
// CHECK-LABEL: func.func @dynamic_dims_verify
// CHECK:         "onnx.Mul"(%c, %0) : (tensor<?x?xf32>, tensor<?x4xf32>) -> tensor<?x?xf32>
