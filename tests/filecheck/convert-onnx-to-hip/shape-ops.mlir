// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file | filecheck %s

// Shape's elements are its operand's dims (honouring start/end). They reach
// the device only when a device op consumes them: here ConstantOfShape sizes
// its tensor.empty with them directly, and fills with the default 0.0 f32.
func.func @constant_of_shape(%x: tensor<?x?x8xf32>) -> tensor<?x8xf32> {
  %shape = "onnx.Shape"(%x) <{start = -2 : si64}> : (tensor<?x?x8xf32>) -> tensor<2xi64>
  %r = "onnx.ConstantOfShape"(%shape) : (tensor<2xi64>) -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}
// CHECK-LABEL: func.func @constant_of_shape
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x?x8xf32>)
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[D]]) : tensor<?x8xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.fill(%[[CTX]], %[[ZERO]]) outs(%[[INIT]] : tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// A small integer ConstantOfShape of a static shape is a host vector; the
// return materializes it as one dense constant.
func.func @constant_of_shape_host() -> tensor<3xi64> {
  %shape = "onnx.Constant"() {value = dense<3> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = "onnx.ConstantOfShape"(%shape) <{value = dense<7> : tensor<1xi64>}> : (tensor<1xi64>) -> tensor<3xi64>
  func.return %r : tensor<3xi64>
}
// CHECK-LABEL: func.func @constant_of_shape_host
// CHECK-NEXT:    %[[R:.*]] = arith.constant dense<7> : tensor<3xi64>
// CHECK-NEXT:    func.return %[[R]]

// -----

// Float and large constants keep their dense attribute; small integer vectors
// become host values, materialized where a device op reads them.
func.func @constants(%data: tensor<?x4xf32>) -> (tensor<2xf32>, tensor<2x4xf32>) {
  %f = "onnx.Constant"() {value = dense<[1.5, 2.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %ids = "onnx.Constant"() {value = dense<[3, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %g = "onnx.Gather"(%data, %ids) <{axis = 0 : si64}> : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  func.return %f, %g : tensor<2xf32>, tensor<2x4xf32>
}
// CHECK-LABEL: func.func @constants
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[DATA:.*]]: tensor<?x4xf32>)
// CHECK-NEXT:    %[[F:.*]] = arith.constant dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[IDS:.*]] = arith.constant dense<[3, 0]> : tensor<2xi64>
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT:    %[[G:.*]] = hip.gather(%[[CTX]]) ins(%[[DATA]], %[[IDS]] : tensor<?x4xf32>, tensor<2xi64>) outs(%[[INIT]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[F]], %[[G]]

// -----

// Shape of a rank-0 value is an empty vector.
func.func @shape_of_scalar(%x: tensor<f32>) -> tensor<0xi64> {
  %r = "onnx.Shape"(%x) : (tensor<f32>) -> tensor<0xi64>
  func.return %r : tensor<0xi64>
}
// CHECK-LABEL: func.func @shape_of_scalar
// CHECK-NEXT:    %[[R:.*]] = arith.constant dense<> : tensor<0xi64>
// CHECK-NEXT:    func.return %[[R]]

// -----

// Integer Range with constant bounds is a host vector.
func.func @range_host() -> tensor<4xi64> {
  %start = "onnx.Constant"() {value = dense<10> : tensor<i64>} : () -> tensor<i64>
  %limit = "onnx.Constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
  %delta = "onnx.Constant"() {value = dense<-2> : tensor<i64>} : () -> tensor<i64>
  %r = "onnx.Range"(%start, %limit, %delta) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  func.return %r : tensor<4xi64>
}
// CHECK-LABEL: func.func @range_host
// CHECK-NEXT:    %[[R:.*]] = arith.constant dense<[10, 8, 6, 4]> : tensor<4xi64>
// CHECK-NEXT:    func.return %[[R]]

// -----

// Range(0, dim(x, 1), 1), the position ids of a transformer: the length is
// the dim itself, the scalars are the start and the delta.
func.func @range_positions(%x: tensor<?x?xf32>) -> tensor<?xi64> {
  %shape = "onnx.Shape"(%x) <{start = 1 : si64, end = 2 : si64}> : (tensor<?x?xf32>) -> tensor<1xi64>
  %axes = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %limit = "onnx.Squeeze"(%shape, %axes) : (tensor<1xi64>, tensor<1xi64>) -> tensor<i64>
  %start = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %delta = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = "onnx.Range"(%start, %limit, %delta) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  func.return %r : tensor<?xi64>
}
// CHECK-LABEL: func.func @range_positions
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x?xf32>)
// CHECK:         %[[S:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[START:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[DELTA:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[S]]) : tensor<?xi64>
// CHECK-NEXT:    %[[R:.*]] = hip.range(%[[CTX]], %[[START]], %[[DELTA]]) outs(%[[INIT]] : tensor<?xi64>) -> tensor<?xi64>
// CHECK-NEXT:    func.return %[[R]]

// -----

// Range bounds from an opaque input are read with tensor.extract.
func.func @range_runtime(%limit: tensor<i32>) -> tensor<?xi32> {
  %start = "onnx.Constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %delta = "onnx.Constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %r = "onnx.Range"(%start, %limit, %delta) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  func.return %r : tensor<?xi32>
}
// CHECK-LABEL: func.func @range_runtime
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[LIMIT:.*]]: tensor<i32>)
// CHECK-NEXT:    %[[L:.*]] = tensor.extract %[[LIMIT]][] : tensor<i32>
// CHECK-NEXT:    %[[LI:.*]] = arith.index_cast %[[L]] : i32 to index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[DIFF:.*]] = arith.subi %[[LI]], %[[C1]] : index
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[Q:.*]] = arith.ceildivsi %[[DIFF]], %[[C3]] : index
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[N:.*]] = arith.maxsi %[[Q]], %[[C0]] : index
// CHECK-NEXT:    %[[START:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[DELTA:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?xi32>
// CHECK-NEXT:    %[[R:.*]] = hip.range(%[[CTX]], %[[START]], %[[DELTA]]) outs(%[[INIT]] : tensor<?xi32>) -> tensor<?xi32>

// -----

// Float Range with constant bounds: the length is computed when compiling.
func.func @range_float() -> tensor<4xf32> {
  %start = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %limit = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %delta = "onnx.Constant"() {value = dense<0.4> : tensor<f32>} : () -> tensor<f32>
  %r = "onnx.Range"(%start, %limit, %delta) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func @range_float
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context)
// CHECK-NEXT:    %[[START:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:    %[[DELTA:.*]] = arith.constant 4.000000e-01 : f32
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.range(%[[CTX]], %[[START]], %[[DELTA]]) outs(%[[INIT]] : tensor<4xf32>) -> tensor<4xf32>

// -----

// NonZero: capacity-sized indices and a count; the count, read with
// tensor.extract, sizes the slice that is the op's result (seed RFC).
func.func @nonzero(%x: tensor<?x?xi64>) -> tensor<2x?xi64> {
  %r = "onnx.NonZero"(%x) : (tensor<?x?xi64>) -> tensor<2x?xi64>
  func.return %r : tensor<2x?xi64>
}
// CHECK-LABEL: func.func @nonzero
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x?xi64>)
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK:         %[[CAP:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK-NEXT:    %[[IDX_INIT:.*]] = tensor.empty(%[[CAP]]) : tensor<2x?xi64>
// CHECK-NEXT:    %[[COUNT_INIT:.*]] = tensor.empty() : tensor<i64>
// CHECK-NEXT:    %[[IDX:.*]], %[[COUNT:.*]] = hip.nonzero(%[[CTX]]) ins(%[[X]] : tensor<?x?xi64>) outs(%[[IDX_INIT]], %[[COUNT_INIT]] : tensor<2x?xi64>, tensor<i64>) -> tensor<2x?xi64>, tensor<i64>
// CHECK-NEXT:    %[[C:.*]] = tensor.extract %[[COUNT]][] : tensor<i64>
// CHECK-NEXT:    %[[N:.*]] = arith.index_cast %[[C]] : i64 to index
// CHECK-NEXT:    %[[VALID:.*]] = tensor.extract_slice %[[IDX]][0, 0] [2, %[[N]]] [1, 1] : tensor<2x?xi64> to tensor<2x?xi64>
// CHECK-NEXT:    func.return %[[VALID]]

// -----

// A float Range over runtime bounds: the host reads them and computes
// max(ceil((limit - start) / delta), 0) as onnxruntime does (subtract in f32, divide in f64).
func.func @range_runtime_float(%start: tensor<f32>, %limit: tensor<f32>, %delta: tensor<f32>) -> tensor<?xf32> {
  %r = "onnx.Range"(%start, %limit, %delta) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK-LABEL: func.func @range_runtime_float
// CHECK:         %[[START:.*]] = tensor.extract %start[] : tensor<f32>
// CHECK-NEXT:    %[[LIMIT:.*]] = tensor.extract %limit[] : tensor<f32>
// CHECK-NEXT:    %[[DELTA:.*]] = tensor.extract %delta[] : tensor<f32>
// CHECK-NEXT:    %[[DIFF:.*]] = arith.subf %[[LIMIT]], %[[START]] : f32
// CHECK-NEXT:    %[[WIDE:.*]] = arith.extf %[[DIFF]] : f32 to f64
// CHECK-NEXT:    %[[WIDE_DELTA:.*]] = arith.extf %[[DELTA]] : f32 to f64
// CHECK-NEXT:    %[[Q:.*]] = arith.divf %[[WIDE]], %[[WIDE_DELTA]] : f64
// CHECK-NEXT:    %[[CEIL:.*]] = math.ceil %[[Q]] : f64
// CHECK-NEXT:    %[[COUNT:.*]] = arith.fptosi %[[CEIL]] : f64 to i64
// CHECK-NEXT:    %[[N:.*]] = arith.index_cast %[[COUNT]] : i64 to index
// CHECK:         %[[LEN:.*]] = arith.maxsi %[[N]], %{{.*}} : index
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[LEN]]) : tensor<?xf32>
// CHECK-NEXT:    hip.range(%{{.*}}, %[[START]], %[[DELTA]]) outs(%[[INIT]] : tensor<?xf32>) -> tensor<?xf32>
