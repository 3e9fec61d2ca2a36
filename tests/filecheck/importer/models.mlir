// Small models written by Inputs/make_model.py: an MLP with a broadcast Gemm bias,
// and an opset-13 ReduceMean whose `axes` attribute becomes a constant input.
// RUN: %python %S/Inputs/make_model.py mlp %t.mlp.onnx
// RUN: xhip-opt %t.mlp.onnx --elide-elementsattrs-if-larger 4 | filecheck %s --check-prefix=MLP
// RUN: %python %S/Inputs/make_model.py reduce-opset13 %t.reduce.onnx
// RUN: xhip-opt %t.reduce.onnx | filecheck %s --check-prefix=REDUCE

// MLP-LABEL: func.func @main_graph(%arg0: tensor<?x4xf32> {onnx.dim_params = "0:batch", onnx.name = "x"}) -> (tensor<?x2xf32> {onnx.dim_params = "0:batch", onnx.name = "y"}) {
// MLP-NEXT:    %0 = "onnx.Constant"() {value = dense_resource<__elided__> : tensor<8x4xf32>} : () -> tensor<8x4xf32>
// MLP-NEXT:    %1 = "onnx.Constant"() {value = dense_resource<__elided__> : tensor<8xf32>} : () -> tensor<8xf32>
// MLP-NEXT:    %2 = "onnx.Constant"() {value = dense_resource<__elided__> : tensor<8x2xf32>} : () -> tensor<8x2xf32>
// MLP-NEXT:    %3 = "onnx.Gemm"(%arg0, %0, %1) <{transB = 1 : si64}> {onnx_node_name = "fc1"} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
// MLP-NEXT:    %4 = "onnx.Relu"(%3) {onnx_node_name = "relu"} : (tensor<?x8xf32>) -> tensor<?x8xf32>
// MLP-NEXT:    %5 = "onnx.MatMul"(%4, %2) {onnx_node_name = "fc2"} : (tensor<?x8xf32>, tensor<8x2xf32>) -> tensor<?x2xf32>
// MLP-NEXT:    func.return %5 : tensor<?x2xf32>

// REDUCE-LABEL: func.func @main_graph(%arg0: tensor<?x16xf32> {onnx.dim_params = "0:n", onnx.name = "x"})
// REDUCE-NEXT:    %0 = "onnx.Constant"() {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
// REDUCE-NEXT:    %1 = "onnx.ReduceMean"(%arg0, %0) {onnx_node_name = "mean"} : (tensor<?x16xf32>, tensor<1xi64>) -> tensor<?x1xf32>
// REDUCE-NEXT:    %2 = "onnx.Sub"(%arg0, %1) {onnx_node_name = "center"} : (tensor<?x16xf32>, tensor<?x1xf32>) -> tensor<?x16xf32>
