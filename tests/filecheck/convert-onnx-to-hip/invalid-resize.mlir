// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file --verify-diagnostics | filecheck %s

// A scale whose product index arithmetic cannot floor exactly, on a run-time dim.
func.func @inexact(%x: tensor<1x3x?x8xf32>) -> tensor<1x3x?x8xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %s = "onnx.Constant"() {value = dense<[1.0, 1.0, 0.6, 1.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %y = "onnx.Resize"(%x, %none, %s, %none) : (tensor<1x3x?x8xf32>, none, tensor<4xf32>, none) -> tensor<1x3x?x8xf32>
  func.return %y : tensor<1x3x?x8xf32>
}
// CHECK: {{.*}}invalid-resize.mlir:[[# @LINE - 3]]:3: error: Resize scale 0.6000000238418579 of dim 2 (known only at run time) gives an extent index arithmetic cannot floor exactly

// -----

// Scales computed at run time.
func.func @runtime_scales(%x: tensor<1x3x8x8xf32>, %s: tensor<4xf32>) -> tensor<?x?x?x?xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %y = "onnx.Resize"(%x, %none, %s, %none) : (tensor<1x3x8x8xf32>, none, tensor<4xf32>, none) -> tensor<?x?x?x?xf32>
  func.return %y : tensor<?x?x?x?xf32>
}
// CHECK: {{.*}}invalid-resize.mlir:[[# @LINE - 3]]:3: error: Resize scales must be constant

// -----

// antialias takes a resized dim's taps from its scale: sizes over a run-time extent leave the
// scale to run time.
func.func @antialias(%x: tensor<1x3x?x8xf32>) -> tensor<1x3x4x4xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %sizes = "onnx.Constant"() {value = dense<[1, 3, 4, 4]> : tensor<4xi64>} : () -> tensor<4xi64>
  %y = "onnx.Resize"(%x, %none, %none, %sizes) <{antialias = 1 : si64, mode = "linear"}> : (tensor<1x3x?x8xf32>, none, none, tensor<4xi64>) -> tensor<1x3x4x4xf32>
  func.return %y : tensor<1x3x4x4xf32>
}
// CHECK: {{.*}}invalid-resize.mlir:[[# @LINE - 3]]:3: error: Resize antialias needs each resized dim's scale when compiling: constant scales, or sizes over static extents
