// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip,canonicalize,cse --split-input-file | filecheck %s
// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip,canonicalize,cse,one-shot-bufferize --split-input-file | filecheck %s --check-prefix=BUF

// One SSA value per extent. Inputs that declare the same dim_param share the
// first one's tensor.dim (the runtime rejects feeds where they disagree), so an
// elementwise op on both needs no broadcast select and its destination is sized
// by input_ids' own dims.
func.func @two_inputs(%ids: tensor<?x?xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "input_ids"},
                      %mask: tensor<?x?xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "attention_mask"}) -> tensor<?x?xf32> {
  %y = "onnx.Mul"(%ids, %mask) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %y : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @two_inputs
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[IDS:.*]]: tensor<?x?xf32> {{.*}}, %[[MASK:.*]]: tensor<?x?xf32> {{.*}})
// CHECK-DAG:     %[[BATCH:.*]] = tensor.dim %[[IDS]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG:     %[[SEQ:.*]] = tensor.dim %[[IDS]], %{{.*}} : tensor<?x?xf32>
// CHECK-NOT:     tensor.dim
// CHECK-NOT:     arith.select
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]]) : tensor<?x?xf32>
// CHECK-NEXT:    hip.mul(%[[CTX]]) ins(%[[IDS]], %[[MASK]] : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[INIT]] : tensor<?x?xf32>)

// BUF-LABEL: func.func @two_inputs
// BUF-SAME:    (%{{.*}}: !hip.context, %[[IDS:.*]]: memref<?x?xf32> {{.*}}, %{{.*}}: memref<?x?xf32> {{.*}})
// BUF-DAG:     %[[BATCH:.*]] = memref.dim %[[IDS]], %{{.*}} : memref<?x?xf32>
// BUF-DAG:     %[[SEQ:.*]] = memref.dim %[[IDS]], %{{.*}} : memref<?x?xf32>
// BUF:         memref.alloc(%[[BATCH]], %[[SEQ]]) {{.*}} : memref<?x?xf32>

// -----

// A Reshape of one input to the Shape of another that declares the same
// symbols is the identity: its runtime target entries are the input's own dims.
func.func @reshape_to_other_shape(%x: tensor<?x?xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "x"},
                                  %mask: tensor<?x?xi64> {onnx.dim_params = "0:batch,1:seq", onnx.name = "mask"}) -> tensor<?x?xf32> {
  %shape = "onnx.Shape"(%mask) : (tensor<?x?xi64>) -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %shape) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %y = "onnx.Relu"(%r) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %y : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @reshape_to_other_shape
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x?xf32> {{.*}}, %{{.*}}: tensor<?x?xi64> {{.*}})
// CHECK-DAG:     %[[BATCH:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG:     %[[SEQ:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK-NOT:     arith.
// CHECK-NOT:     tensor.reshape
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]]) : tensor<?x?xf32>
// CHECK-NEXT:    hip.relu(%[[CTX]]) ins(%[[X]] : tensor<?x?xf32>) outs(%[[INIT]] : tensor<?x?xf32>)

// BUF-LABEL: func.func @reshape_to_other_shape

// -----

// One input with a repeated symbol ([n, n]): both axes are one value, so x plus
// its transpose broadcasts without a select.
func.func @square(%x: tensor<?x?xf32> {onnx.dim_params = "0:n,1:n", onnx.name = "x"}) -> tensor<?x?xf32> {
  %t = "onnx.Transpose"(%x) <{perm = [1, 0]}> : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = "onnx.Add"(%x, %t) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %y : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @square
// CHECK:         %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x?xf32>
// CHECK-NOT:     tensor.dim
// CHECK-NOT:     arith.select
// CHECK:         tensor.empty(%[[N]], %[[N]]) : tensor<?x?xf32>

// BUF-LABEL: func.func @square

// -----

// The transformer stack's head split and merge: Reshape [0, 0, 4, 64], Transpose,
// Softmax, Transpose back, Reshape [0, 0, 256]. The 0 entries copy the input's
// extents, so every destination, down to the residual Add's, is sized by X's own
// two dims: no select, no division, one pair of values for pool planning (cse
// even merges the Add's destination with the MatMul's, equal in type and sizes).
func.func @split_merge_heads(%x: tensor<?x?x256xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"},
                             %w: tensor<256x256xf32>) -> tensor<?x?x256xf32> {
  %heads = "onnx.Constant"() {value = dense<[0, 0, 4, 64]> : tensor<4xi64>} : () -> tensor<4xi64>
  %merged = "onnx.Constant"() {value = dense<[0, 0, 256]> : tensor<3xi64>} : () -> tensor<3xi64>
  %p = "onnx.MatMul"(%x, %w) : (tensor<?x?x256xf32>, tensor<256x256xf32>) -> tensor<?x?x256xf32>
  %h = "onnx.Reshape"(%p, %heads) : (tensor<?x?x256xf32>, tensor<4xi64>) -> tensor<?x?x4x64xf32>
  %t = "onnx.Transpose"(%h) <{perm = [0, 2, 1, 3]}> : (tensor<?x?x4x64xf32>) -> tensor<?x4x?x64xf32>
  %s = "onnx.Softmax"(%t) <{axis = -1 : si64}> : (tensor<?x4x?x64xf32>) -> tensor<?x4x?x64xf32>
  %b = "onnx.Transpose"(%s) <{perm = [0, 2, 1, 3]}> : (tensor<?x4x?x64xf32>) -> tensor<?x?x4x64xf32>
  %m = "onnx.Reshape"(%b, %merged) : (tensor<?x?x4x64xf32>, tensor<3xi64>) -> tensor<?x?x256xf32>
  %y = "onnx.Add"(%m, %x) : (tensor<?x?x256xf32>, tensor<?x?x256xf32>) -> tensor<?x?x256xf32>
  func.return %y : tensor<?x?x256xf32>
}
// CHECK-LABEL: func.func @split_merge_heads
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x?x256xf32> {{.*}}, %{{.*}}: tensor<256x256xf32>)
// CHECK-DAG:     %[[BATCH:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?x256xf32>
// CHECK-DAG:     %[[SEQ:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?x256xf32>
// CHECK-NOT:     arith.select
// CHECK-NOT:     arith.divsi
// CHECK:         %[[P_INIT:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]]) : tensor<?x?x256xf32>
// CHECK-NEXT:    %[[P:.*]] = hip.matmul(%[[CTX]]) ins(%[[X]], %{{.*}} : tensor<?x?x256xf32>, tensor<256x256xf32>) outs(%[[P_INIT]] : tensor<?x?x256xf32>)
// CHECK-NEXT:    %[[H:.*]] = tensor.expand_shape %[[P]] {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [%[[BATCH]], %[[SEQ]], 4, 64]
// CHECK-NEXT:    %[[T_INIT:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]]) : tensor<?x4x?x64xf32>
// CHECK:         %[[B_INIT:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]]) : tensor<?x?x4x64xf32>
// CHECK-NEXT:    %[[B:.*]] = hip.transpose(%[[CTX]]) ins(%{{.*}} : tensor<?x4x?x64xf32>) outs(%[[B_INIT]] : tensor<?x?x4x64xf32>)
// CHECK-NEXT:    %[[M:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] : tensor<?x?x4x64xf32> into tensor<?x?x256xf32>
// CHECK-NEXT:    hip.add(%[[CTX]]) ins(%[[M]], %[[X]] : tensor<?x?x256xf32>, tensor<?x?x256xf32>) outs(%[[P_INIT]] : tensor<?x?x256xf32>)

// After bufferization every allocation, the last one included, is sized by the
// same two memref.dim values of X.
// BUF-LABEL: func.func @split_merge_heads
// BUF-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: memref<?x?x256xf32> {{.*}}, %{{.*}}: memref<256x256xf32>)
// BUF-DAG:     %[[BATCH:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x?x256xf32>
// BUF-DAG:     %[[SEQ:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x?x256xf32>
// BUF-NOT:     arith.
// BUF:         memref.alloc(%[[BATCH]], %[[SEQ]]) {{.*}} : memref<?x?x256xf32>
// BUF:         memref.alloc(%[[BATCH]], %[[SEQ]]) {{.*}} : memref<?x4x?x64xf32>
// BUF:         memref.alloc(%[[BATCH]], %[[SEQ]]) {{.*}} : memref<?x4x?x64xf32>
// BUF:         memref.alloc(%[[BATCH]], %[[SEQ]]) {{.*}} : memref<?x?x4x64xf32>
// BUF:         %[[LAST:.*]] = memref.alloc(%[[BATCH]], %[[SEQ]]) {{.*}} : memref<?x?x256xf32>
// BUF-NEXT:    hip.add(%{{.*}}) ins(%{{.*}}, %[[X]] : memref<?x?x256xf32>, memref<?x?x256xf32>) outs(%[[LAST]] : memref<?x?x256xf32>)
// BUF-NEXT:    func.return %[[LAST]]
