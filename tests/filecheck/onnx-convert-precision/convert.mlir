// RUN: xhip-opt %s -p onnx-convert-precision --split-input-file | filecheck %s
// RUN: xhip-opt %s -p onnx-convert-precision{precision=bfloat16} --split-input-file | filecheck %s --check-prefix=BF16
// RUN: xhip-opt %s -p onnx-convert-precision{keep-fp32=Softmax} --split-input-file | filecheck %s --check-prefix=KEEP

// A layer: float32 input cast once where the function starts, the weight converted
// at compile time (its float32 original erased), LayerNormalization's output in half,
// the float32 output cast back before it is returned; integer shapes untouched.
func.func @layer(%x: tensor<2x4xf32>, %shape: tensor<2xi64>) -> tensor<2x4xf32> {
  %w = "onnx.Constant"() {value = dense<[[1.0, 2.0, 3.0, 4.0], [0.5, 0.25, 0.125, 65536.0], [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0]]> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %scale = "onnx.Constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %m = "onnx.MatMul"(%x, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %n, %mean, %inv = "onnx.LayerNormalization"(%m, %scale, %none) <{axis = -1 : si64}> : (tensor<2x4xf32>, tensor<4xf32>, none) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %s = "onnx.Softmax"(%n) <{axis = -1 : si64}> {onnx_node_name = "probs"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %r = "onnx.Reshape"(%s, %shape) : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}
// CHECK:       builtin.module attributes {hip.compute_precision = "float16"}
// CHECK-LABEL: func.func @layer
// CHECK-NEXT:    %[[X:.*]] = "onnx.Cast"(%x) <{to = f16}> : (tensor<2x4xf32>) -> tensor<2x4xf16>
// CHECK-NOT:     xf32>} : () -> tensor<4x4xf32>
// CHECK:         %[[W:.*]] = "onnx.Constant"() {value = dense<{{.*}}1.250000e-01, 6.550400e+04]{{.*}}> : tensor<4x4xf16>}
// CHECK:         %[[M:.*]] = "onnx.MatMul"(%[[X]], %[[W]]) : (tensor<2x4xf16>, tensor<4x4xf16>) -> tensor<2x4xf16>
// CHECK:         %[[N:.*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%[[M]], %{{.*}}, %{{.*}}) <{axis = -1 : si64}> : (tensor<2x4xf16>, tensor<4xf16>, none) -> (tensor<2x4xf16>, tensor<2x1xf32>, tensor<2x1xf32>)
// CHECK:         %[[S:.*]] = "onnx.Softmax"(%[[N]]) <{axis = -1 : si64}> {onnx_node_name = "probs"} : (tensor<2x4xf16>) -> tensor<2x4xf16>
// CHECK:         %[[R:.*]] = "onnx.Reshape"(%[[S]], %shape) : (tensor<2x4xf16>, tensor<2xi64>) -> tensor<2x4xf16>
// CHECK-NEXT:    %[[OUT:.*]] = "onnx.Cast"(%[[R]]) <{to = f32}> : (tensor<2x4xf16>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[OUT]] : tensor<2x4xf32>

// 65536 is beyond float16 (max 65504): it saturates to 65504 (0x7BFF). bfloat16 keeps float32's range.
// BF16:        "onnx.Constant"() {value = dense<{{.*}}6.553600e+04]{{.*}}> : tensor<4x4xbf16>}
// BF16:        "onnx.MatMul"{{.*}} -> tensor<2x4xbf16>

// keep-fp32 by op type: the softmax reads its operand cast back to float32, and its
// result (float32) is cast to half for the Reshape.
// KEEP-LABEL:  func.func @layer
// KEEP:          %[[N:.*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"{{.*}} -> (tensor<2x4xf16>, tensor<2x1xf32>, tensor<2x1xf32>)
// KEEP-NEXT:     %[[N32:.*]] = "onnx.Cast"(%[[N]]) <{to = f32}> : (tensor<2x4xf16>) -> tensor<2x4xf32>
// KEEP-NEXT:     %[[S:.*]] = "onnx.Softmax"(%[[N32]]) {{.*}} : (tensor<2x4xf32>) -> tensor<2x4xf32>
// KEEP-NEXT:     %[[S16:.*]] = "onnx.Cast"(%[[S]]) <{to = f16}> : (tensor<2x4xf32>) -> tensor<2x4xf16>
// KEEP-NEXT:     "onnx.Reshape"(%[[S16]], %shape)

// -----

// Casts to float32 in the model compute in half; a constant-of-shape's fill converts
// (float32's min, a mask value, is beyond float16: it saturates to -65504, so that a row
// whose keys are all masked stays uniform as in float32, not NaN).
func.func @casts(%ids: tensor<3xi64>, %shape: tensor<1xi64>) -> (tensor<3xf32>, tensor<3xf32>) {
  %f = "onnx.Cast"(%ids) <{to = f32}> : (tensor<3xi64>) -> tensor<3xf32>
  %fill = "onnx.ConstantOfShape"(%shape) <{value = dense<-3.4028234663852886e+38> : tensor<1xf32>}> : (tensor<1xi64>) -> tensor<3xf32>
  %sum = "onnx.Add"(%f, %fill) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %sum, %f : tensor<3xf32>, tensor<3xf32>
}
// CHECK-LABEL: func.func @casts
// CHECK-NEXT:    %[[F:.*]] = "onnx.Cast"(%ids) <{to = f16}> : (tensor<3xi64>) -> tensor<3xf16>
// CHECK-NEXT:    %[[F32:.*]] = "onnx.Cast"(%[[F]]) <{to = f32}> : (tensor<3xf16>) -> tensor<3xf32>
// CHECK-NEXT:    %[[FILL:.*]] = "onnx.ConstantOfShape"(%shape) <{value = dense<-6.550400e+04> : tensor<1xf16>}> : (tensor<1xi64>) -> tensor<3xf16>
// CHECK-NEXT:    %[[SUM:.*]] = "onnx.Add"(%[[F]], %[[FILL]]) : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
// CHECK-NEXT:    %[[SUM32:.*]] = "onnx.Cast"(%[[SUM]]) <{to = f32}>
// CHECK-NEXT:    func.return %[[SUM32]], %[[F32]]
