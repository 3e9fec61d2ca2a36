// RUN: not xhip-opt %s -p onnx-convert-precision{precision=float8} 2>&1 | filecheck %s

// One line, exit 1: the option's accepted values.
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
// CHECK: onnx-convert-precision: precision must be one of float16, bfloat16, got 'float8'
// CHECK-NOT: Traceback
