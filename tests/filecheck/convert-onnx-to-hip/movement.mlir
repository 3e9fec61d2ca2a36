// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip --split-input-file | filecheck %s

// Transpose with a perm, with the default (reversed) perm, and with the identity
// perm, which is the operand itself.
func.func @transpose(%x: tensor<?x?x64xf32>) -> (tensor<?x64x?xf32>, tensor<64x?x?xf32>, tensor<?x?x64xf32>) {
  %t = "onnx.Transpose"(%x) <{perm = [0, 2, 1]}> : (tensor<?x?x64xf32>) -> tensor<?x64x?xf32>
  %r = "onnx.Transpose"(%x) : (tensor<?x?x64xf32>) -> tensor<64x?x?xf32>
  %i = "onnx.Transpose"(%x) <{perm = [0, 1, 2]}> : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  func.return %t, %r, %i : tensor<?x64x?xf32>, tensor<64x?x?xf32>, tensor<?x?x64xf32>
}
// CHECK-LABEL: func.func @transpose
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x?x64xf32>)
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK:         %[[I1:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x64x?xf32>
// CHECK-NEXT:    %[[T:.*]] = hip.transpose(%[[CTX]]) ins(%[[X]] : tensor<?x?x64xf32>) outs(%[[I1]] : tensor<?x64x?xf32>) {perm = array<i64: 0, 2, 1>} -> tensor<?x64x?xf32>
// CHECK-NEXT:    %[[I2:.*]] = tensor.empty(%[[D1]], %[[D0]]) : tensor<64x?x?xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.transpose(%[[CTX]]) ins(%[[X]] : tensor<?x?x64xf32>) outs(%[[I2]] : tensor<64x?x?xf32>) {perm = array<i64: 2, 1, 0>} -> tensor<64x?x?xf32>
// CHECK-NEXT:    func.return %[[T]], %[[R]], %[[X]]

// -----

// The axis extent is the sum; the negative axis is normalized.
func.func @concat(%a: tensor<?x?xf32>, %b: tensor<?x3xf32>) -> tensor<?x?xf32> {
  %r = "onnx.Concat"(%a, %b) <{axis = -1 : si64}> : (tensor<?x?xf32>, tensor<?x3xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @concat
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x3xf32>)
// CHECK-DAG:     %[[M:.*]] = tensor.dim %[[A]], %{{.*}}
// CHECK-DAG:     %[[N:.*]] = tensor.dim %[[A]], %{{.*}}
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[N]], %[[C3]] : index
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[M]], %[[SUM]]) : tensor<?x?xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.concat(%[[CTX]]) ins(%[[A]], %[[B]] : tensor<?x?xf32>, tensor<?x3xf32>) outs(%[[INIT]] : tensor<?x?xf32>) {axis = 1 : i64} -> tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// num_outputs chunks, then explicit sizes from a constant split input: each part is a
// view of x (no copy, no buffer), at the running sum of the sizes before it.
func.func @split(%x: tensor<?x10xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x2xf32>, tensor<?x3xf32>, tensor<?x7xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  %a, %b, %c = "onnx.Split"(%x, %none) <{axis = 1 : si64, num_outputs = 3 : si64}> : (tensor<?x10xf32>, none) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x2xf32>)
  %sizes = "onnx.Constant"() {value = dense<[3, 7]> : tensor<2xi64>} : () -> tensor<2xi64>
  %d, %e = "onnx.Split"(%x, %sizes) <{axis = 1 : si64}> : (tensor<?x10xf32>, tensor<2xi64>) -> (tensor<?x3xf32>, tensor<?x7xf32>)
  func.return %a, %b, %c, %d, %e : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x2xf32>, tensor<?x3xf32>, tensor<?x7xf32>
}
// CHECK-LABEL: func.func @split
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x10xf32>)
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[A:.*]] = tensor.extract_slice %[[X]][0, 0] [%[[D]], 4] [1, 1] : tensor<?x10xf32> to tensor<?x4xf32>
// CHECK-NEXT:    %[[B:.*]] = tensor.extract_slice %[[X]][0, 4] [%[[D]], 4] [1, 1] : tensor<?x10xf32> to tensor<?x4xf32>
// CHECK-NEXT:    %[[C:.*]] = tensor.extract_slice %[[X]][0, 8] [%[[D]], 2] [1, 1] : tensor<?x10xf32> to tensor<?x2xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.extract_slice %[[X]][0, 0] [%[[D]], 3] [1, 1] : tensor<?x10xf32> to tensor<?x3xf32>
// CHECK-NEXT:    %[[F:.*]] = tensor.extract_slice %[[X]][0, 3] [%[[D]], 7] [1, 1] : tensor<?x10xf32> to tensor<?x7xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]], %[[E]], %[[F]]
// CHECK-NOT:     hip.split

// -----

func.func @gather(%data: tensor<?x?xf32>, %ids: tensor<?x?xi64>) -> tensor<?x?x?xf32> {
  %r = "onnx.Gather"(%data, %ids) <{axis = 0 : si64}> : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?x?xf32>
  func.return %r : tensor<?x?x?xf32>
}
// CHECK-LABEL: func.func @gather
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[DATA:.*]]: tensor<?x?xf32>, %[[IDS:.*]]: tensor<?x?xi64>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[W:.*]] = tensor.dim %[[DATA]], %[[C1]]
// CHECK-DAG:     %[[I0:.*]] = tensor.dim %[[IDS]], %[[C0]]
// CHECK-DAG:     %[[I1:.*]] = tensor.dim %[[IDS]], %[[C1]]
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[I0]], %[[I1]], %[[W]]) : tensor<?x?x?xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.gather(%[[CTX]]) ins(%[[DATA]], %[[IDS]] : tensor<?x?xf32>, tensor<?x?xi64>) outs(%[[INIT]] : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// GatherElements has the indices' shape; a negative axis becomes its positive spelling.
func.func @gather_elements(%data: tensor<?x?x8xf32>, %ids: tensor<?x3x8xi64>) -> tensor<?x3x8xf32> {
  %r = "onnx.GatherElements"(%data, %ids) <{axis = -2 : si64}> : (tensor<?x?x8xf32>, tensor<?x3x8xi64>) -> tensor<?x3x8xf32>
  func.return %r : tensor<?x3x8xf32>
}
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[DATA:.*]]: tensor<?x?x8xf32>, %[[IDS:.*]]: tensor<?x3x8xi64>)
// CHECK:         %[[N:.*]] = tensor.dim %[[IDS]], %{{.*}}
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?x3x8xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.gather_elements(%[[CTX]]) ins(%[[DATA]], %[[IDS]] : tensor<?x?x8xf32>, tensor<?x3x8xi64>) outs(%[[INIT]] : tensor<?x3x8xf32>) {axis = 1 : i64} -> tensor<?x3x8xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

// Trilu's diagonal is a host scalar: 0 when k is absent, its element read with
// tensor.extract otherwise; `upper` is copied (1, the default, is not printed).
func.func @trilu(%x: tensor<?x?x?xf32>, %k: tensor<i64>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  %upper = "onnx.Trilu"(%x, %none) : (tensor<?x?x?xf32>, none) -> tensor<?x?x?xf32>
  %lower = "onnx.Trilu"(%x, %k) <{upper = 0 : si64}> : (tensor<?x?x?xf32>, tensor<i64>) -> tensor<?x?x?xf32>
  func.return %upper, %lower : tensor<?x?x?xf32>, tensor<?x?x?xf32>
}
// CHECK-LABEL: func.func @trilu
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x?x?xf32>, %[[K:.*]]: tensor<i64>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         hip.trilu(%[[CTX]], %[[ZERO]]) ins(%[[X]] : tensor<?x?x?xf32>) outs(%{{.*}} : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
// CHECK-NEXT:    %[[RAW:.*]] = tensor.extract %[[K]][] : tensor<i64>
// CHECK-NEXT:    %[[OFFSET:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK:         hip.trilu(%[[CTX]], %[[OFFSET]]) ins(%[[X]] : tensor<?x?x?xf32>) outs(%{{.*}} : tensor<?x?x?xf32>) {upper = 0 : i64}

// -----

func.func @gather_nd(%data: tensor<?x?x8xf32>, %ids: tensor<?x2xi64>) -> tensor<?x8xf32> {
  %r = "onnx.GatherND"(%data, %ids) : (tensor<?x?x8xf32>, tensor<?x2xi64>) -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}
// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[DATA:.*]]: tensor<?x?x8xf32>, %[[IDS:.*]]: tensor<?x2xi64>)
// CHECK:         %[[N:.*]] = tensor.dim %[[IDS]], %{{.*}}
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.gather_nd(%[[CTX]]) ins(%[[DATA]], %[[IDS]] : tensor<?x?x8xf32>, tensor<?x2xi64>) outs(%[[INIT]] : tensor<?x8xf32>) -> tensor<?x8xf32>

// -----

// Expand to Shape(y): each extent is the target's unless that is 1 (then the
// input's), so the runtime's Expand contract sees a mismatched input; an Expand
// to all-ones leaves the operand itself.
func.func @expand(%x: tensor<?x1xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x1xf32>) {
  %shape = "onnx.Shape"(%y) : (tensor<?x?xf32>) -> tensor<2xi64>
  %r = "onnx.Expand"(%x, %shape) : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %ones = "onnx.Constant"() {value = dense<1> : tensor<2xi64>} : () -> tensor<2xi64>
  %same = "onnx.Expand"(%x, %ones) : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x1xf32>
  func.return %r, %same : tensor<?x?xf32>, tensor<?x1xf32>
}
// CHECK-LABEL: func.func @expand
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x1xf32>, %[[Y:.*]]: tensor<?x?xf32>)
// CHECK-DAG:     %[[X0:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[Y0:.*]] = tensor.dim %[[Y]], %{{.*}}
// CHECK-DAG:     %[[Y1:.*]] = tensor.dim %[[Y]], %{{.*}}
// CHECK:         %[[ONE:.*]] = arith.cmpi eq, %[[Y0]], %{{.*}} : index
// CHECK-NEXT:    %[[M:.*]] = arith.select %[[ONE]], %[[X0]], %[[Y0]] : index
// CHECK-NEXT:    %[[INIT:.*]] = tensor.empty(%[[M]], %[[Y1]]) : tensor<?x?xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.expand(%[[CTX]]) ins(%[[X]] : tensor<?x1xf32>) outs(%[[INIT]] : tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[R]], %[[X]]

// -----

// Shape vectors are host values: Concat, Gather, Slice and Split of
// them are index arithmetic and end up as one from_elements for the return.
func.func @host_shape_vectors(%x: tensor<?x?x4xf32>) -> tensor<4xi64> {
  %shape = "onnx.Shape"(%x) : (tensor<?x?x4xf32>) -> tensor<3xi64>
  %idx = "onnx.Constant"() {value = dense<[2, -3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %g = "onnx.Gather"(%shape, %idx) <{axis = 0 : si64}> : (tensor<3xi64>, tensor<2xi64>) -> tensor<2xi64>
  %st = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %en = "onnx.Constant"() {value = dense<3> : tensor<1xi64>} : () -> tensor<1xi64>
  %none = "onnx.NoValue"() {value} : () -> none
  %sl = "onnx.Slice"(%shape, %st, %en, %none, %none) : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<2xi64>
  %p, %q = "onnx.Split"(%sl, %none) <{num_outputs = 2 : si64}> : (tensor<2xi64>, none) -> (tensor<1xi64>, tensor<1xi64>)
  %c = "onnx.Concat"(%g, %q, %p) <{axis = 0 : si64}> : (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  func.return %c : tensor<4xi64>
}
// Shape(x) = [d0, d1, 4]; Gather [2, -3] -> [4, d0]; Slice [1:3] -> [d1, 4],
// split into [d1] and [4]; Concat -> [4, d0, 4, d1].
// CHECK-LABEL: func.func @host_shape_vectors
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?x?x4xf32>)
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NOT:     hip.
// CHECK:         %[[E0:.*]] = arith.constant 4 : i64
// CHECK-NEXT:    %[[E1:.*]] = arith.index_cast %[[D0]] : index to i64
// CHECK-NEXT:    %[[E2:.*]] = arith.constant 4 : i64
// CHECK-NEXT:    %[[E3:.*]] = arith.index_cast %[[D1]] : index to i64
// CHECK-NEXT:    %[[V:.*]] = tensor.from_elements %[[E0]], %[[E1]], %[[E2]], %[[E3]] : tensor<4xi64>
// CHECK-NEXT:    func.return %[[V]]
