// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip,canonicalize,cse | filecheck %s
// RUN: xhip-opt %s -p hip-add-context-arg,convert-onnx-to-hip,canonicalize,cse | grep -o -E '"onnx\.|tensor\.dim|= hip\.[a-z_]+' | filecheck %s --check-prefix=ORDER

// The seed attention model (seed 003, Pass 1: the imported IR with !hip.context
// already added; small splat weights instead of dense_resource) converts to the
// op sequence of seed 003 Pass 2: three projections, the key transpose, the
// score matmul, the scale, softmax on the last axis, and the value matmul.
// Every destination is sized from the two extents of X (batch, seq), and after
// cse each of them is defined once, by one tensor.dim.

module attributes {llvm.target_triple = "x86_64-unknown-linux-gnu", "onnx-mlir.symbol-postfix" = "attention_dynamic"} {
  func.func @main_graph(%arg0: !hip.context, %arg1: tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"}) -> (tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "out"}) {
    %0 = "onnx.Constant"() {value = dense<1.000000e-02> : tensor<64x64xf32>} : () -> tensor<64x64xf32>
    %1 = "onnx.Constant"() {value = dense<2.000000e-02> : tensor<64x64xf32>} : () -> tensor<64x64xf32>
    %2 = "onnx.Constant"() {value = dense<3.000000e-02> : tensor<64x64xf32>} : () -> tensor<64x64xf32>
    %3 = "onnx.Constant"() {value = dense<1.250000e-01> : tensor<f32>} : () -> tensor<f32>
    %4 = "onnx.MatMul"(%arg1, %0) {onnx_node_name = "q_proj"} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
    %5 = "onnx.MatMul"(%arg1, %1) {onnx_node_name = "k_proj"} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
    %6 = "onnx.MatMul"(%arg1, %2) {onnx_node_name = "v_proj"} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
    %7 = "onnx.Transpose"(%5) <{perm = [0, 2, 1]}> {onnx_node_name = "k_transpose"} : (tensor<?x?x64xf32>) -> tensor<?x64x?xf32>
    %8 = "onnx.MatMul"(%4, %7) {onnx_node_name = "qk_matmul"} : (tensor<?x?x64xf32>, tensor<?x64x?xf32>) -> tensor<?x?x?xf32>
    %9 = "onnx.Mul"(%8, %3) {onnx_node_name = "score_scale"} : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?x?xf32>
    %10 = "onnx.Softmax"(%9) <{axis = -1 : si64}> {onnx_node_name = "softmax"} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
    %11 = "onnx.MatMul"(%10, %6) {onnx_node_name = "attn_v"} : (tensor<?x?x?xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    return %11 : tensor<?x?x64xf32>
  }
  "onnx.EntryPoint"() <{func = @main_graph}> : () -> ()
}

// CHECK-LABEL: func.func @main_graph
// CHECK-SAME:    (%arg0: !hip.context, %arg1: tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"})
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[BATCH:.*]] = tensor.dim %arg1, %[[C0]] : tensor<?x?x64xf32>
// CHECK-DAG:     %[[SEQ:.*]] = tensor.dim %arg1, %[[C1]] : tensor<?x?x64xf32>
// CHECK-DAG:     %[[WQ:.*]] = arith.constant dense<1.000000e-02> : tensor<64x64xf32>
// CHECK-DAG:     %[[WK:.*]] = arith.constant dense<2.000000e-02> : tensor<64x64xf32>
// CHECK-DAG:     %[[WV:.*]] = arith.constant dense<3.000000e-02> : tensor<64x64xf32>
// CHECK-DAG:     %[[SCALE:.*]] = arith.constant dense<1.250000e-01> : tensor<f32>
// CHECK:         %[[PROJ:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]]) : tensor<?x?x64xf32>
// CHECK:         %[[Q:.*]] = hip.matmul(%arg0) ins(%arg1, %[[WQ]] : tensor<?x?x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
// CHECK:         %[[K:.*]] = hip.matmul(%arg0) ins(%arg1, %[[WK]] : tensor<?x?x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
// CHECK:         %[[V:.*]] = hip.matmul(%arg0) ins(%arg1, %[[WV]] : tensor<?x?x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
// CHECK:         %[[KT_INIT:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]]) : tensor<?x64x?xf32>
// CHECK:         %[[KT:.*]] = hip.transpose(%arg0) ins(%[[K]] : tensor<?x?x64xf32>) outs(%[[KT_INIT]] : tensor<?x64x?xf32>) {perm = array<i64: 0, 2, 1>} -> tensor<?x64x?xf32>
// CHECK:         %[[SCORES_INIT:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]], %[[SEQ]]) : tensor<?x?x?xf32>
// CHECK:         %[[QK:.*]] = hip.matmul(%arg0) ins(%[[Q]], %[[KT]] : tensor<?x?x64xf32>, tensor<?x64x?xf32>) outs(%{{.*}} : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
// CHECK:         %[[SCALED:.*]] = hip.mul(%arg0) ins(%[[QK]], %[[SCALE]] : tensor<?x?x?xf32>, tensor<f32>) outs(%{{.*}} : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
// CHECK:         %[[PROBS:.*]] = hip.softmax(%arg0) ins(%[[SCALED]] : tensor<?x?x?xf32>) outs(%{{.*}} : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
// CHECK:         %[[OUT:.*]] = hip.matmul(%arg0) ins(%[[PROBS]], %[[V]] : tensor<?x?x?xf32>, tensor<?x?x64xf32>) outs(%{{.*}} : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT:    func.return %[[OUT]] : tensor<?x?x64xf32>

// The sequence of definitions of extents and hip ops, and nothing else: no ONNX
// op is left, batch and seq are each read once, and the hip ops are those of seed
// 003 Pass 2 in its order.
// ORDER-NOT:       "onnx.
// ORDER:           {{^}}tensor.dim{{$}}
// ORDER-NEXT:      {{^}}tensor.dim{{$}}
// ORDER-NEXT:      {{^}}= hip.matmul{{$}}
// ORDER-NEXT:      {{^}}= hip.matmul{{$}}
// ORDER-NEXT:      {{^}}= hip.matmul{{$}}
// ORDER-NEXT:      {{^}}= hip.transpose{{$}}
// ORDER-NEXT:      {{^}}= hip.matmul{{$}}
// ORDER-NEXT:      {{^}}= hip.mul{{$}}
// ORDER-NEXT:      {{^}}= hip.softmax{{$}}
// ORDER-NEXT:      {{^}}= hip.matmul{{$}}
// ORDER-NOT:       {{.}}
