// RUN: xhip-opt %s -p buffer-results-to-out-params --split-input-file | filecheck %s

// Two results that are one buffer (`r = Relu(X)`, `i = Identity(r)`): the first
// takes the allocation, the second is a copy of it; neither is left unwritten.
func.func @twice(%ctx: !hip.context, %x: memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "X"}) -> (memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "r"}, memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "i"}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %y = memref.alloc(%n) : memref<?x4xf32>
  hip.relu(%ctx) ins(%x : memref<?x4xf32>) outs(%y : memref<?x4xf32>)
  func.return %y, %y : memref<?x4xf32>, memref<?x4xf32>
}
// CHECK-LABEL: func.func @twice
// CHECK-SAME:    %r: memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "r", bufferize.result}, %i: memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "i", bufferize.result})
// CHECK-NOT:     memref.alloc
// CHECK:         hip.relu(%ctx) ins(%x : memref<?x4xf32>) outs(%r : memref<?x4xf32>)
// CHECK-NEXT:    "memref.copy"(%r, %i) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
// CHECK-NEXT:    func.return{{$}}

// -----

// The same value returned twice, once as an out-parameter and once kept (its
// declared dim names a symbol no input binds): the kept result is the promoted
// buffer, not the erased allocation.
func.func @kept(%ctx: !hip.context, %x: memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "X"}) -> (memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "r"}, memref<?x4xf32> {onnx.dim_params = "0:q", onnx.name = "i"}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %y = memref.alloc(%n) : memref<?x4xf32>
  hip.relu(%ctx) ins(%x : memref<?x4xf32>) outs(%y : memref<?x4xf32>)
  func.return %y, %y : memref<?x4xf32>, memref<?x4xf32>
}
// CHECK-LABEL: func.func @kept
// CHECK-SAME:    %r: memref<?x4xf32> {onnx.dim_params = "0:n", onnx.name = "r", bufferize.result}) -> (memref<?x4xf32> {onnx.dim_params = "0:q", onnx.name = "i"})
// CHECK:         hip.relu(%ctx) ins(%x : memref<?x4xf32>) outs(%r : memref<?x4xf32>)
// CHECK-NEXT:    func.return %r : memref<?x4xf32>
