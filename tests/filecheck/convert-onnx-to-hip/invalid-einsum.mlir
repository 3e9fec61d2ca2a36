// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file --verify-diagnostics | filecheck %s

// A label repeated within one term takes a diagonal: its two extents must be one.
func.func @diagonal(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  %s = "onnx.Einsum"(%x) <{equation = "ii->i"}> : (tensor<4x5xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
// CHECK: {{.*}}invalid-einsum.mlir:[[# @LINE - 3]]:3: error: Einsum label 'i' is repeated in one term over extents [4, 5], which are not known to be equal

// -----

// Two run-time extents that nothing ties together (no shared onnx.dim_params symbol).
func.func @diagonal_unknown(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = "onnx.Einsum"(%x) <{equation = "ii->i"}> : (tensor<?x?xf32>) -> tensor<?xf32>
  func.return %s : tensor<?xf32>
}
// CHECK: {{.*}}invalid-einsum.mlir:[[# @LINE - 3]]:3: error: Einsum label 'i' is repeated in one term over extents [?, ?], which are not known to be equal

// -----

// A term with fewer labels than its operand has dims and no "..." to take the rest.
func.func @rank(%x: tensor<2x3x4xf32>) -> tensor<2xf32> {
  %s = "onnx.Einsum"(%x) <{equation = "ij->i"}> : (tensor<2x3x4xf32>) -> tensor<2xf32>
  func.return %s : tensor<2xf32>
}
// CHECK: {{.*}}invalid-einsum.mlir:[[# @LINE - 3]]:3: error: Einsum equation 'ij->i' does not match the inputs' ranks [3]

// -----

// An output label no input has.
func.func @unknown(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %s = "onnx.Einsum"(%x) <{equation = "ij->k"}> : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return %s : tensor<2xf32>
}
// CHECK: {{.*}}invalid-einsum.mlir:[[# @LINE - 3]]:3: error: Einsum output 'k' names labels no input has, or one twice
