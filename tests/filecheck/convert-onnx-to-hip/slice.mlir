// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file | filecheck %s
// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file | filecheck %s --check-prefix=HOST

// Bounds computed from Shape of another input: x[:, 1 : dim(y, 1) - 1] is
// host index arithmetic on tensor.dim values: no tensor.extract and no
// device op for the bounds.
func.func @bounds_from_shape(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %shape = "onnx.Shape"(%y) <{start = -1 : si64}> : (tensor<?x?xf32>) -> tensor<1xi64>
  %one = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %end = "onnx.Sub"(%shape, %one) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %r = "onnx.Slice"(%x, %one, %end, %one, %none) : (tensor<?x?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// The whole function reads no tensor element and launches nothing but the view.
// HOST-LABEL: func.func @bounds_from_shape
// HOST-NOT:     tensor.extract {{.*}}
// HOST-NOT:     = hip.
// HOST:         tensor.extract_slice
// HOST-NOT:     tensor.extract {{.*}}
// HOST-NOT:     = hip.
// HOST:         func.return
// CHECK-LABEL: func.func @bounds_from_shape
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?x?xf32>, %[[Y:.*]]: tensor<?x?xf32>)
// CHECK-DAG:     %[[X0:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[X1:.*]] = tensor.dim %[[X]], %[[C1:.*]] :
// CHECK-DAG:     %[[Y1:.*]] = tensor.dim %[[Y]], %{{.*}}
// CHECK-NOT:     tensor.extract
// CHECK-NOT:     hip.
// CHECK:         %[[END:.*]] = arith.subi %[[Y1]], %{{.*}} : index
// CHECK:         %[[FIRST:.*]] = arith.minsi %{{.*}}, %[[X1]] : index
// CHECK:         %[[LEN:.*]] = arith.subi %{{.*}}, %[[FIRST]] : index
// CHECK-NEXT:    %[[N:.*]] = arith.maxsi %[[LEN]], %{{.*}} : index
// CHECK-NEXT:    %[[R:.*]] = tensor.extract_slice %[[X]][0, %[[FIRST]]] [%[[X0]], %[[N]]] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// Bounds from an opaque input: the host needs their values, read with
// tensor.extract (a later pass decides how they become host-visible).
func.func @bounds_from_input(%x: tensor<?xf32>, %starts: tensor<1xi64>, %ends: tensor<1xi64>) -> tensor<?xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %r = "onnx.Slice"(%x, %starts, %ends, %none, %none) : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK-LABEL: func.func @bounds_from_input
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?xf32>, %[[STARTS:.*]]: tensor<1xi64>, %[[ENDS:.*]]: tensor<1xi64>)
// CHECK:         %[[S:.*]] = tensor.extract %[[STARTS]][%{{.*}}] : tensor<1xi64>
// CHECK-NEXT:    %[[SI:.*]] = arith.index_cast %[[S]] : i64 to index
// CHECK-NEXT:    %[[E:.*]] = tensor.extract %[[ENDS]][%{{.*}}] : tensor<1xi64>
// CHECK-NEXT:    %[[EI:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK-NOT:     hip.
// CHECK:         tensor.extract_slice %[[X]][%{{.*}}] [%{{.*}}] [1] : tensor<?xf32> to tensor<?xf32>

// -----

// A negative step walks backwards: the slice kernel, with the first index and
// step of every dim as scalars (the 0 that reads the dim is the first index too).
func.func @reverse(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %start = "onnx.Constant"() {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %end = "onnx.Constant"() {value = dense<-9223372036854775808> : tensor<1xi64>} : () -> tensor<1xi64>
  %axes = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = "onnx.Slice"(%x, %start, %end, %axes, %start) : (tensor<?x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}
// CHECK-LABEL: func.func @reverse
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x8xf32>)
// CHECK:         %[[F0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D:.*]] = tensor.dim %[[X]], %[[F0]]
// CHECK-DAG:     %[[F1:.*]] = arith.constant 7 : index
// CHECK-DAG:     %[[S0:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[S1:.*]] = arith.constant -1 : index
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[D]]) : tensor<?x8xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.slice(%[[CTX]], %[[F0]], %[[F1]], %[[S0]], %[[S1]]) ins(%[[X]] : tensor<?x8xf32>) outs(%[[INIT]] : tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// A step known only at run time also needs the kernel.
func.func @runtime_step(%x: tensor<?xf32>, %step: tensor<1xi64>) -> tensor<?xf32> {
  %start = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %end = "onnx.Constant"() {value = dense<9223372036854775807> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = "onnx.NoValue"() {value} : () -> none
  %r = "onnx.Slice"(%x, %start, %end, %none, %step) : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
// CHECK-LABEL: func.func @runtime_step
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?xf32>, %[[STEP:.*]]: tensor<1xi64>)
// CHECK:         %[[S:.*]] = tensor.extract %[[STEP]][%{{.*}}] : tensor<1xi64>
// CHECK-NEXT:    %[[SI:.*]] = arith.index_cast %[[S]] : i64 to index
// CHECK:         %[[Q:.*]] = arith.ceildivsi %{{.*}}, %[[SI]] : index
// CHECK-NEXT:    %[[N:.*]] = arith.maxsi %[[Q]], %{{.*}} : index
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.slice(%[[CTX]], %{{.*}}, %[[SI]]) ins(%[[X]] : tensor<?xf32>) outs(%[[INIT]] : tensor<?xf32>) -> tensor<?xf32>
// CHECK-NOT:     tensor.extract_slice

// -----

// Static positive steps and a negative axis: extract_slice with the stride.
func.func @strided(%x: tensor<?x10xf32>) -> tensor<?x4xf32> {
  %start = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %end = "onnx.Constant"() {value = dense<9> : tensor<1xi64>} : () -> tensor<1xi64>
  %axes = "onnx.Constant"() {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %steps = "onnx.Constant"() {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = "onnx.Slice"(%x, %start, %end, %axes, %steps) : (tensor<?x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}
// CHECK-LABEL: func.func @strided
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?x10xf32>)
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[R:.*]] = tensor.extract_slice %[[X]][0, 1] [%[[D]], 4] [1, 2] : tensor<?x10xf32> to tensor<?x4xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// GPT-2's position steps (exporter output): positions shifted by one with a
// Concat, then two Slices whose ends come from Shape (seq, and seq + 1 from an
// Add). Every bound folds: both windows and the difference have extents
// [batch, seq], the very tensor.dim values, with no min/max/select left.
func.func @position_steps(%pos: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %zero = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %one = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %one_scalar = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %last = "onnx.Constant"() {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %seq = "onnx.Shape"(%pos) <{start = 1 : si64, end = 2 : si64}> : (tensor<?x?xi64>) -> tensor<1xi64>
  %first = "onnx.Slice"(%pos, %zero, %one, %one, %one) : (tensor<?x?xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x1xi64>
  %before = "onnx.Sub"(%first, %one_scalar) : (tensor<?x1xi64>, tensor<i64>) -> tensor<?x1xi64>
  %cat = "onnx.Concat"(%before, %pos) <{axis = -1 : si64}> : (tensor<?x1xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  %seq_plus_one = "onnx.Add"(%seq, %one) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %previous = "onnx.Slice"(%cat, %zero, %seq, %last, %one) : (tensor<?x?xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xi64>
  %current = "onnx.Slice"(%cat, %one, %seq_plus_one, %last, %one) : (tensor<?x?xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xi64>
  %steps = "onnx.Sub"(%current, %previous) : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  func.return %steps : tensor<?x?xi64>
}
// CHECK-LABEL: func.func @position_steps
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[POS:.*]]: tensor<?x?xi64>)
// CHECK-DAG:     %[[BATCH:.*]] = tensor.dim %[[POS]], %{{.*}}
// CHECK-DAG:     %[[SEQ:.*]] = tensor.dim %[[POS]], %{{.*}}
// CHECK:         %[[CAT:.*]] = hip.concat
// CHECK-NEXT:    %[[PREVIOUS:.*]] = tensor.extract_slice %[[CAT]][0, 0] [%[[BATCH]], %[[SEQ]]] [1, 1] : tensor<?x?xi64> to tensor<?x?xi64>
// CHECK-NEXT:    %[[CURRENT:.*]] = tensor.extract_slice %[[CAT]][0, 1] [%[[BATCH]], %[[SEQ]]] [1, 1] : tensor<?x?xi64> to tensor<?x?xi64>
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]]) : tensor<?x?xi64>
// CHECK-NEXT:    %[[STEPS:.*]] = hip.sub(%[[CTX]]) ins(%[[CURRENT]], %[[PREVIOUS]] : tensor<?x?xi64>, tensor<?x?xi64>) outs(%[[INIT]] : tensor<?x?xi64>) -> tensor<?x?xi64>
// CHECK-NEXT:    func.return %[[STEPS]]
