// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file | filecheck %s

// The seed RFC's Problem 1: Max(lhs [4,1], rhs [4,8]) must get a [4,8]
// destination. Fully dynamic operands get the select-on-1 broadcast form,
// never integer max and never one operand's dims.
func.func @max_dynamic(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %result = "onnx.Max"(%lhs, %rhs) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %result : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @max_dynamic
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[LHS:.*]]: tensor<?x?xf32>, %[[RHS:.*]]: tensor<?x?xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[LHS_M:.*]] = tensor.dim %[[LHS]], %[[C0]]
// CHECK-DAG:     %[[LHS_N:.*]] = tensor.dim %[[LHS]], %[[C1]]
// CHECK-DAG:     %[[RHS_M:.*]] = tensor.dim %[[RHS]], %[[C0]]
// CHECK-DAG:     %[[RHS_N:.*]] = tensor.dim %[[RHS]], %[[C1]]
// CHECK:         %[[M_ONE:.*]] = arith.cmpi eq, %[[LHS_M]], %{{.*}} : index
// CHECK-NEXT:    %[[M:.*]] = arith.select %[[M_ONE]], %[[RHS_M]], %[[LHS_M]] : index
// CHECK-NEXT:    %[[N_ONE:.*]] = arith.cmpi eq, %[[LHS_N]], %{{.*}} : index
// CHECK-NEXT:    %[[N:.*]] = arith.select %[[N_ONE]], %[[RHS_N]], %[[LHS_N]] : index
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.max(%[[CTX]]) ins(%[[LHS]], %[[RHS]] : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[INIT]] : tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     arith.maxui
// CHECK-NOT:     arith.maxsi

// -----

// Static [4,1] with [4,8]: a static [4,8] destination, no index arithmetic;
// the result is cast back to the declared (dynamic) result type.
func.func @max_static(%lhs: tensor<4x1xf32>, %rhs: tensor<4x8xf32>) -> tensor<?x?xf32> {
  %result = "onnx.Max"(%lhs, %rhs) : (tensor<4x1xf32>, tensor<4x8xf32>) -> tensor<?x?xf32>
  func.return %result : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @max_static
// CHECK-NOT:     arith.select
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.max(%{{.*}}) ins(%{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<4x8xf32>) outs(%[[INIT]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[CAST:.*]] = tensor.cast %[[R]] : tensor<4x8xf32> to tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[CAST]]

// -----

// Variadic Min of three operands is one op; a dynamic dim against a static
// 5 takes the 5; rank-0 operands contribute nothing.
func.func @min_variadic(%a: tensor<?x1xf32>, %b: tensor<5xf32>, %c: tensor<f32>) -> tensor<?x5xf32> {
  %r = "onnx.Min"(%a, %b, %c) : (tensor<?x1xf32>, tensor<5xf32>, tensor<f32>) -> tensor<?x5xf32>
  func.return %r : tensor<?x5xf32>
}
// CHECK-LABEL: func.func @min_variadic
// CHECK:         %[[D0:.*]] = tensor.dim %a, %{{.*}} : tensor<?x1xf32>
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[D0]]) : tensor<?x5xf32>
// CHECK-NEXT:    hip.min(%{{.*}}) ins(%a, %b, %c : tensor<?x1xf32>, tensor<5xf32>, tensor<f32>) outs(%[[INIT]] : tensor<?x5xf32>) -> tensor<?x5xf32>

// -----

// A one-input Max is the input itself.
func.func @max_single(%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = "onnx.Max"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK-LABEL: func.func @max_single
// CHECK-NEXT:    func.return %a : tensor<?xf32>

// -----

// Comparisons produce i1; unary ops keep the shape; Where broadcasts three operands.
func.func @compare_select(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %lt = "onnx.Less"(%a, %b) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xi1>
  %e = "onnx.Exp"(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %w = "onnx.Where"(%lt, %e, %b) : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  func.return %w : tensor<?x4xf32>
}
// CHECK-LABEL: func.func @compare_select
// CHECK:         %[[D0:.*]] = tensor.dim %a
// CHECK:         %[[LT_INIT:.*]] = tensor.empty(%[[D0]]) : tensor<?x4xi1>
// CHECK-NEXT:    %[[LT:.*]] = hip.less(%{{.*}}) ins(%a, %b : tensor<?x4xf32>, tensor<4xf32>) outs(%[[LT_INIT]] : tensor<?x4xi1>) -> tensor<?x4xi1>
// CHECK:         %[[E:.*]] = hip.exp(%{{.*}}) ins(%a : tensor<?x4xf32>)
// CHECK:         hip.where(%{{.*}}) ins(%[[LT]], %[[E]], %b : tensor<?x4xi1>, tensor<?x4xf32>, tensor<4xf32>)

// -----

// Integer shape arithmetic on host-known values folds to constants and
// never reaches the device; Cast between integer types of a host value too.
func.func @host_shape_arith() -> tensor<2xi64> {
  %a = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %b = "onnx.Constant"() {value = dense<4> : tensor<i64>} : () -> tensor<i64>
  %m = "onnx.Mul"(%a, %b) : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  %c = "onnx.Cast"(%m) <{to = i32}> : (tensor<2xi64>) -> tensor<2xi32>
  %d = "onnx.Cast"(%c) <{to = i64}> : (tensor<2xi32>) -> tensor<2xi64>
  func.return %d : tensor<2xi64>
}
// CHECK-LABEL: func.func @host_shape_arith
// CHECK-NOT:     = hip.
// CHECK:         %[[K:.*]] = arith.constant dense<[8, 12]> : tensor<2xi64>
// CHECK-NEXT:    func.return %[[K]] : tensor<2xi64>

// -----

// IsNaN: an i1 destination of the input's shape. GPT-2's attention zeroes NaN
// probabilities with it (Softmax -> IsNaN -> Where).
func.func @isnan_where(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %zero = "onnx.Constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %nan = "onnx.IsNaN"(%x) : (tensor<?x4xf32>) -> tensor<?x4xi1>
  %r = "onnx.Where"(%nan, %zero, %x) : (tensor<?x4xi1>, tensor<f32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}
// CHECK-LABEL: func.func @isnan_where
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x4xf32>)
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[MASK_INIT:.*]] = tensor.empty(%[[D0]]) : tensor<?x4xi1>
// CHECK-NEXT:    %[[MASK:.*]] = hip.isnan(%[[CTX]]) ins(%[[X]] : tensor<?x4xf32>) outs(%[[MASK_INIT]] : tensor<?x4xi1>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[D0]]) : tensor<?x4xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.where(%[[CTX]]) ins(%[[MASK]], %[[ZERO]], %[[X]] : tensor<?x4xi1>, tensor<f32>, tensor<?x4xf32>) outs(%[[INIT]] : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    func.return %[[R]]
