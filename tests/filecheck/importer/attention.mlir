// The bundled attention model imports to seed 003's Pass 1 IR (before the
// !hip.context argument): symbolic dims as `?`, dim_params and names on the
// signature, initializers as onnx.Constant, node names kept.
// RUN: xhip-opt %xhip_root/examples/attention.onnx --elide-elementsattrs-if-larger 4 | filecheck %s
// RUN: xhip-opt %xhip_root/examples/attention.onnx -p hip-add-context-arg --elide-elementsattrs-if-larger 4 | filecheck %s --check-prefix=CTX

// CHECK-LABEL: func.func @main_graph(%arg0: tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"}) -> (tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "out"}) {
// CHECK-NEXT:    %0 = "onnx.Constant"() {value = dense_resource<__elided__> : tensor<64x64xf32>} : () -> tensor<64x64xf32>
// CHECK-NEXT:    %1 = "onnx.Constant"() {value = dense_resource<__elided__> : tensor<64x64xf32>} : () -> tensor<64x64xf32>
// CHECK-NEXT:    %2 = "onnx.Constant"() {value = dense_resource<__elided__> : tensor<64x64xf32>} : () -> tensor<64x64xf32>
// CHECK-NEXT:    %3 = "onnx.Constant"() {value = dense<1.250000e-01> : tensor<f32>} : () -> tensor<f32>
// CHECK-NEXT:    %4 = "onnx.MatMul"(%arg0, %0) {onnx_node_name = "q_proj"} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT:    %5 = "onnx.MatMul"(%arg0, %1) {onnx_node_name = "k_proj"} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT:    %6 = "onnx.MatMul"(%arg0, %2) {onnx_node_name = "v_proj"} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT:    %7 = "onnx.Transpose"(%5) <{perm = [0, 2, 1]}> {onnx_node_name = "k_transpose"} : (tensor<?x?x64xf32>) -> tensor<?x64x?xf32>
// CHECK-NEXT:    %8 = "onnx.MatMul"(%4, %7) {onnx_node_name = "qk_matmul"} : (tensor<?x?x64xf32>, tensor<?x64x?xf32>) -> tensor<?x?x?xf32>
// CHECK-NEXT:    %9 = "onnx.Mul"(%8, %3) {onnx_node_name = "score_scale"} : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?x?xf32>
// CHECK-NEXT:    %10 = "onnx.Softmax"(%9) <{axis = -1 : si64}> {onnx_node_name = "softmax"} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
// CHECK-NEXT:    %11 = "onnx.MatMul"(%10, %6) {onnx_node_name = "attn_v"} : (tensor<?x?x?xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT:    func.return %11 : tensor<?x?x64xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  "onnx.EntryPoint"() <{func = @main_graph}> : () -> ()

// CTX:      func.func @main_graph(%{{.*}}: !hip.context, %arg0: tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"})
// CTX:      "onnx.MatMul"(%arg0, %0) {onnx_node_name = "q_proj"}
