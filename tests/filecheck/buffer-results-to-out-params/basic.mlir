// RUN: xhip-opt %s -p buffer-results-to-out-params --split-input-file | filecheck %s

// A returned allocation becomes the caller's buffer: the producer writes the new argument.
func.func @main_graph(%ctx: !hip.context, %x: memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "X"}) -> (memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "out"}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %y = memref.alloc(%n) : memref<?x4xf32>
  hip.relu(%ctx) ins(%x : memref<?x4xf32>) outs(%y : memref<?x4xf32>)
  func.return %y : memref<?x4xf32>
}
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME:    %out: memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "out", bufferize.result})
// CHECK-NOT:     memref.alloc
// CHECK:         hip.relu(%ctx) ins(%x : memref<?x4xf32>) outs(%out : memref<?x4xf32>)
// CHECK-NEXT:    func.return{{$}}

// -----

// A returned argument is copied; a result no input can size (its dim has no
// symbol the inputs share) stays a result for hip-use-output-allocator.
func.func @mixed(%ctx: !hip.context, %x: memref<?xf32> {onnx.dim_params = "0:n", onnx.name = "X"}, %k: index) -> (memref<?xf32> {onnx.dim_params = "0:n", onnx.name = "same"}, memref<?xi64> {onnx.dim_params = "0:count", onnx.name = "nz"}) {
  %z = memref.alloc(%k) : memref<?xi64>
  func.return %x, %z : memref<?xf32>, memref<?xi64>
}
// CHECK-LABEL: func.func @mixed
// CHECK-SAME:    %same: memref<?xf32> {onnx.dim_params = "0:n", onnx.name = "same", bufferize.result}) -> (memref<?xi64> {onnx.dim_params = "0:count", onnx.name = "nz"})
// CHECK:         "memref.copy"(%x, %same) : (memref<?xf32>, memref<?xf32>) -> ()
// CHECK-NEXT:    func.return %z : memref<?xi64>
