func.func @main_graph(%ctx: !hip.context, %x: memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "X"}, %y: memref<?x4xf32> {bufferize.result, onnx.dim_params = "0:n", onnx.name = "Y"}) {
  hip.relu(%ctx) ins(%x : memref<?x4xf32>) outs(%y : memref<?x4xf32>)
  func.return
}
