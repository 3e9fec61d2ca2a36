// RUN: xhip-opt %s -p onnx-fold-constants --split-input-file --verify-diagnostics | filecheck %s
// RUN: not xhip-opt %s -p onnx-fold-constants 2>&1 | filecheck %s --check-prefix=EXIT
// RUN: not xhip-opt %s -p onnx-fold-constants{max-result-elements=0} 2>&1 | filecheck %s --check-prefix=OPTION
// A declared result above the limit is never evaluated, so it cannot fail here:
// RUN: xhip-opt %s -p onnx-fold-constants{max-result-elements=2} --split-input-file | filecheck %s --check-prefix=UNEVALUATED

// A constant op the reference evaluator cannot run would fail at run time
// too: the error names the op's line and what the evaluator said.
func.func @bad_reshape() -> tensor<4xf32> {
  %x = "onnx.Constant"() {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>} : () -> tensor<6xf32>
  %shape = "onnx.Constant"() {value = dense<[4]> : tensor<1xi64>} : () -> tensor<1xi64>
  %y = "onnx.Reshape"(%x, %shape) : (tensor<6xf32>, tensor<1xi64>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 3]]:3: error: onnx-fold-constants: cannot evaluate 'onnx.Reshape' on its constant operands: {{.*}}
// EXIT: {{.*}}invalid.mlir:[[# @LINE - 4]]:3: error: onnx-fold-constants: cannot evaluate 'onnx.Reshape' on its constant operands: {{.*}}
// EXIT-NOT: Traceback
// OPTION: error: onnx-fold-constants: max-result-elements must be >= 1, got 0
// UNEVALUATED-LABEL: func.func @bad_reshape
// UNEVALUATED:         "onnx.Reshape"

// -----

// The evaluated shape disagrees with the declared result type: the IR is wrong,
// and folding must not silently retype it.
func.func @bad_declared_shape() -> tensor<1x4xi64> {
  %x = "onnx.Constant"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  %shape = "onnx.Constant"() {value = dense<[4, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %y = "onnx.Reshape"(%x, %shape) : (tensor<2x2xi64>, tensor<2xi64>) -> tensor<1x4xi64>
  func.return %y : tensor<1x4xi64>
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 3]]:3: error: onnx-fold-constants: result #0 evaluates to shape [4, 1], but the IR declares tensor<1x4xi64>
// UNEVALUATED-LABEL: func.func @bad_declared_shape
// UNEVALUATED:         "onnx.Reshape"
