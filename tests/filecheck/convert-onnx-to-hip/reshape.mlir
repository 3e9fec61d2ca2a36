// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file | filecheck %s

// Multi-head split as exporters write it: the target is Concat(Unsqueeze(
// Gather(Shape(x), i)), [12, 64]). Every element is host-known, so the
// reshape is an expand_shape whose output_shape names the input's own dims.
func.func @split_heads(%x: tensor<?x?x768xf32>) -> tensor<?x?x12x64xf32> {
  %shape = "onnx.Shape"(%x) : (tensor<?x?x768xf32>) -> tensor<3xi64>
  %zero = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %one = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %axes = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %b = "onnx.Gather"(%shape, %zero) <{axis = 0 : si64}> : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %s = "onnx.Gather"(%shape, %one) <{axis = 0 : si64}> : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %b1 = "onnx.Unsqueeze"(%b, %axes) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %s1 = "onnx.Unsqueeze"(%s, %axes) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %heads = "onnx.Constant"() {value = dense<[12, 64]> : tensor<2xi64>} : () -> tensor<2xi64>
  %target = "onnx.Concat"(%b1, %s1, %heads) <{axis = 0 : si64}> : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  %r = "onnx.Reshape"(%x, %target) : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<?x?x12x64xf32>
  func.return %r : tensor<?x?x12x64xf32>
}
// CHECK-LABEL: func.func @split_heads
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?x?x768xf32>)
// CHECK-DAG:     %[[B:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?x768xf32>
// CHECK-DAG:     %[[S:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?x768xf32>
// CHECK-NOT:     tensor.extract
// CHECK-NOT:     hip.
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[X]] {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [%[[B]], %[[S]], 12, 64] : tensor<?x?x768xf32> into tensor<?x?x12x64xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// Merging heads back: the target is Concat(Slice(Shape(x), 0, 2), [768]).
func.func @merge_heads(%x: tensor<?x?x12x64xf32>) -> tensor<?x?x768xf32> {
  %shape = "onnx.Shape"(%x) <{end = 2 : si64}> : (tensor<?x?x12x64xf32>) -> tensor<2xi64>
  %width = "onnx.Constant"() {value = dense<768> : tensor<1xi64>} : () -> tensor<1xi64>
  %target = "onnx.Concat"(%shape, %width) <{axis = 0 : si64}> : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
  %r = "onnx.Reshape"(%x, %target) : (tensor<?x?x12x64xf32>, tensor<3xi64>) -> tensor<?x?x768xf32>
  func.return %r : tensor<?x?x768xf32>
}
// CHECK-LABEL: func.func @merge_heads
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?x?x12x64xf32>)
// CHECK-NEXT:    %[[R:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<?x?x12x64xf32> into tensor<?x?x768xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// [-1, 12, 64] from [b, s, 768]: neither a pure collapse nor a pure expand.
// The inferred extent (b*s*768)/768 is rebuilt as the product b*s.
func.func @collapse_then_expand(%x: tensor<?x?x768xf32>) -> tensor<?x12x64xf32> {
  %target = "onnx.Constant"() {value = dense<[-1, 12, 64]> : tensor<3xi64>} : () -> tensor<3xi64>
  %r = "onnx.Reshape"(%x, %target) : (tensor<?x?x768xf32>, tensor<3xi64>) -> tensor<?x12x64xf32>
  func.return %r : tensor<?x12x64xf32>
}
// CHECK-LABEL: func.func @collapse_then_expand
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?x?x768xf32>)
// CHECK-DAG:     %[[B:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[S:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK:         %[[BS:.*]] = arith.muli %[[B]], %[[S]] : index
// CHECK-NEXT:    %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<?x?x768xf32> into tensor<?x768xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0 : i64], [1 : i64, 2 : i64]] output_shape [%[[BS]], 12, 64] : tensor<?x768xf32> into tensor<?x12x64xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     arith.divsi

// -----

// A Reshape to the input's own Shape: every runtime dim is proven unchanged,
// so no op is left.
func.func @identity(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %shape = "onnx.Shape"(%x) : (tensor<?x?xf32>) -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %shape) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @identity
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?x?xf32>)
// CHECK-NEXT:    func.return %[[X]] : tensor<?x?xf32>

// -----

// Same type, target from an opaque input: the elements are read with
// tensor.extract and the Reshape stays a reshape.
func.func @opaque_target(%x: tensor<?x?xf32>, %target: tensor<2xi64>) -> tensor<?x?xf32> {
  %r = "onnx.Reshape"(%x, %target) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @opaque_target
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?x?xf32>, %[[T:.*]]: tensor<2xi64>)
// CHECK:         %[[T0:.*]] = tensor.extract %[[T]][%{{.*}}] : tensor<2xi64>
// CHECK:         %[[T1:.*]] = tensor.extract %[[T]][%{{.*}}] : tensor<2xi64>
// CHECK:         %[[SHAPE:.*]] = tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xindex>
// CHECK-NEXT:    %[[R:.*]] = tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// Reordered runtime dims ([b, s] -> [s, b]) are not unchanged dims, so the
// reshape is not removed; both products are b*s, so it is a collapse to
// [b*s] and an expand to [s, b], not a transpose.
func.func @reordered(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %shape = "onnx.Shape"(%x) : (tensor<?x?xf32>) -> tensor<2xi64>
  %perm = "onnx.Constant"() {value = dense<[1, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %target = "onnx.Gather"(%shape, %perm) <{axis = 0 : si64}> : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %target) <{allowzero = 1 : si64}> : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @reordered
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?x?xf32>)
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0 : i64, 1 : i64]] : tensor<?x?xf32> into tensor<?xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0 : i64, 1 : i64]] output_shape [%[[D1]], %[[D0]]] : tensor<?xf32> into tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// Static shapes regroup freely: [2, 3] -> [3, 2] goes through [6].
func.func @static_regroup(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %target = "onnx.Constant"() {value = dense<[3, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %target) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}
// CHECK-LABEL: func.func @static_regroup
// CHECK-NEXT:    %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0 : i64, 1 : i64]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

func.func @flatten(%x: tensor<?x?x12x64xf32>) -> tensor<?x768xf32> {
  %r = "onnx.Flatten"(%x) <{axis = 2 : si64}> : (tensor<?x?x12x64xf32>) -> tensor<?x768xf32>
  func.return %r : tensor<?x768xf32>
}
// CHECK-LABEL: func.func @flatten
// CHECK-NEXT:    %[[R:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64, 3 : i64]] : tensor<?x?x12x64xf32> into tensor<?x768xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

func.func @squeeze(%x: tensor<?x1x?xf32>) -> tensor<?x?xf32> {
  %axes = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %r = "onnx.Squeeze"(%x, %axes) : (tensor<?x1x?xf32>, tensor<1xi64>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @squeeze
// CHECK-NEXT:    %[[R:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64]] : tensor<?x1x?xf32> into tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

func.func @unsqueeze(%x: tensor<?xf32>) -> tensor<1x?x1xf32> {
  %axes = "onnx.Constant"() {value = dense<[0, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.Unsqueeze"(%x, %axes) : (tensor<?xf32>, tensor<2xi64>) -> tensor<1x?x1xf32>
  func.return %r : tensor<1x?x1xf32>
}
// CHECK-LABEL: func.func @unsqueeze
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?xf32>)
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[R:.*]] = tensor.expand_shape %[[X]] {{\[}}[0 : i64, 1 : i64, 2 : i64]] output_shape [1, %[[D]], 1] : tensor<?xf32> into tensor<1x?x1xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// Rank 0 <-> rank 1: one element on both sides, so static unit types.
func.func @rank0(%x: tensor<f32>, %y: tensor<?xf32>) -> (tensor<1xf32>, tensor<f32>) {
  %axes = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %up = "onnx.Unsqueeze"(%x, %axes) : (tensor<f32>, tensor<1xi64>) -> tensor<1xf32>
  %empty = "onnx.Constant"() {value = dense<> : tensor<0xi64>} : () -> tensor<0xi64>
  %down = "onnx.Reshape"(%y, %empty) : (tensor<?xf32>, tensor<0xi64>) -> tensor<f32>
  func.return %up, %down : tensor<1xf32>, tensor<f32>
}
// CHECK-LABEL: func.func @rank0
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<f32>, %[[Y:.*]]: tensor<?xf32>)
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant dense<1> : tensor<1xindex>
// CHECK-NEXT:    %[[UP:.*]] = tensor.reshape %[[X]](%[[ONE]]) : (tensor<f32>, tensor<1xindex>) -> tensor<1xf32>
// CHECK-NEXT:    %[[Y1:.*]] = tensor.cast %[[Y]] : tensor<?xf32> to tensor<1xf32>
// CHECK-NEXT:    %[[NONE:.*]] = arith.constant dense<> : tensor<0xindex>
// CHECK-NEXT:    %[[DOWN:.*]] = tensor.reshape %[[Y1]](%[[NONE]]) : (tensor<1xf32>, tensor<0xindex>) -> tensor<f32>
// CHECK-NEXT:    func.return %[[UP]], %[[DOWN]]

// -----

// A host vector reshaped stays a host vector: the Reshape of Shape(x) costs
// nothing until a device op needs the tensor (here the return).
func.func @host_vector(%x: tensor<?x4xf32>) -> tensor<1x2xi64> {
  %shape = "onnx.Shape"(%x) : (tensor<?x4xf32>) -> tensor<2xi64>
  %target = "onnx.Constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %r = "onnx.Reshape"(%shape, %target) : (tensor<2xi64>, tensor<2xi64>) -> tensor<1x2xi64>
  func.return %r : tensor<1x2xi64>
}
// CHECK-LABEL: func.func @host_vector
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?x4xf32>)
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[D64:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : i64
// CHECK-NEXT:    %[[V:.*]] = tensor.from_elements %[[D64]], %[[C4]] : tensor<1x2xi64>
// CHECK-NEXT:    func.return %[[V]]

// -----

// GPT-2's key transpose (exporter output): [batch, 2, seq, 32] to [-1, seq, 32]
// and back to [batch, 2, 32, seq], targets sliced from Shape. With allowzero = 0
// a runtime 0 copies the input dim, so the first target keeps its select on
// seq == 0 and stays a tensor.reshape; in the second, the select on batch == 0
// picks the first result's inferred extent, which is 0 whenever batch is, so the
// result is sized by batch's own tensor.dim (one SSA value per extent).
func.func @key_transpose(%k: tensor<?x2x?x32xf32>) -> tensor<?x2x32x?xf32> {
  %minus_one = "onnx.Constant"() {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %minus_two = "onnx.Constant"() {value = dense<-2> : tensor<1xi64>} : () -> tensor<1xi64>
  %to_end = "onnx.Constant"() {value = dense<9223372036854775807> : tensor<1xi64>} : () -> tensor<1xi64>
  %from_start = "onnx.Constant"() {value = dense<-9223372036854775808> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = "onnx.NoValue"() {value} : () -> none
  %shape = "onnx.Shape"(%k) : (tensor<?x2x?x32xf32>) -> tensor<4xi64>
  %head = "onnx.Slice"(%shape, %minus_one, %to_end, %none, %none) : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<1xi64>
  %seq = "onnx.Slice"(%shape, %minus_two, %minus_one, %none, %none) : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<1xi64>
  %lead = "onnx.Slice"(%shape, %from_start, %minus_two, %none, %none) : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<2xi64>
  %flat_shape = "onnx.Concat"(%minus_one, %seq, %head) <{axis = 0 : si64}> : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %flat = "onnx.Reshape"(%k, %flat_shape) <{allowzero = 0 : si64}> : (tensor<?x2x?x32xf32>, tensor<3xi64>) -> tensor<?x?x32xf32>
  %flat_t = "onnx.Transpose"(%flat) <{perm = [0, 2, 1]}> : (tensor<?x?x32xf32>) -> tensor<?x32x?xf32>
  %kt_shape = "onnx.Concat"(%lead, %head, %seq) <{axis = 0 : si64}> : (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %kt = "onnx.Reshape"(%flat_t, %kt_shape) <{allowzero = 0 : si64}> : (tensor<?x32x?xf32>, tensor<4xi64>) -> tensor<?x2x32x?xf32>
  func.return %kt : tensor<?x2x32x?xf32>
}
// CHECK-LABEL: func.func @key_transpose
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[K:.*]]: tensor<?x2x?x32xf32>)
// CHECK-DAG:     %[[BATCH:.*]] = tensor.dim %[[K]], %{{.*}}
// CHECK-DAG:     %[[SEQ:.*]] = tensor.dim %[[K]], %{{.*}}
// CHECK:         %[[SEQ_IS_0:.*]] = arith.cmpi eq, %[[SEQ]], %{{.*}} : index
// CHECK-NEXT:    %[[FLAT_SEQ:.*]] = arith.select %[[SEQ_IS_0]], %{{.*}}, %[[SEQ]] : index
// CHECK:         tensor.reshape %[[K]]
// CHECK:         hip.transpose
// CHECK-NOT:     arith.select
// CHECK:         %[[KT_SHAPE:.*]] = tensor.from_elements %[[BATCH]], %{{.*}}, %{{.*}}, %[[SEQ]] : tensor<4xindex>
// CHECK-NEXT:    %[[KT:.*]] = tensor.reshape %{{.*}}(%[[KT_SHAPE]]) : (tensor<?x32x?xf32>, tensor<4xindex>) -> tensor<?x2x32x?xf32>
// CHECK-NEXT:    func.return %[[KT]]
