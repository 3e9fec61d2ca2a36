// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A rank-changing reshape with runtime dims is valid MLIR (xDSL 0.75 rejects it).
func.func @f(%a: tensor<?x4xf32>, %s: tensor<3xi64>) -> tensor<?x2x2xf32> {
  %r = tensor.reshape %a(%s) : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<?x2x2xf32>
  func.return %r : tensor<?x2x2xf32>
}
// CHECK: func.func @f
// CHECK: tensor.reshape %a(%s) : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<?x2x2xf32>
// -----
func.func @g(%a: tensor<?x4xf32>, %s: tensor<2xi64>) -> tensor<?x2x2xf32> {
  %r = tensor.reshape %a(%s) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x2x2xf32>
  func.return %r : tensor<?x2x2xf32>
}
// CHECK: {{.*}}reshape.mlir:[[# @LINE - 3]]:3: error: shape operand has 2 entries for a rank-3 result
// -----
func.func @h(%a: tensor<3x4xf32>, %s: tensor<2xi64>) -> tensor<2x5xf32> {
  %r = tensor.reshape %a(%s) : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x5xf32>
  func.return %r : tensor<2x5xf32>
}
// CHECK: {{.*}}reshape.mlir:[[# @LINE - 3]]:3: error: source and result tensor should have the same number of elements
// -----
func.func @i(%a: tensor<3x4xf32>, %s: tensor<2xi64>) -> tensor<2x6xi32> {
  %r = tensor.reshape %a(%s) : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x6xi32>
  func.return %r : tensor<2x6xi32>
}
// CHECK: {{.*}}reshape.mlir:[[# @LINE - 3]]:3: error: element types of source and result tensor types should be the same
