// The seed 003 attention model as the memory passes see it: one-shot-bufferize and
// hip-use-output-allocator have run, the weights and the scale are inputs (so it
// runs without a constants file), every buffer has its own allocation, and sizes
// are still `memref.dim` of whichever buffer a kernel reads. tests/helpers.py
// loads it (seed_attention) and builds the same computation in ONNX.
func.func @main_graph(%ctx: !hip.context, %x: memref<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"}, %wq: memref<64x64xf32> {onnx.name = "Wq"}, %wk: memref<64x64xf32> {onnx.name = "Wk"}, %wv: memref<64x64xf32> {onnx.name = "Wv"}, %scale: memref<f32> {onnx.name = "scale"}) -> (memref<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "out"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %x, %c0 : memref<?x?x64xf32>
  %s = memref.dim %x, %c1 : memref<?x?x64xf32>
  %q = memref.alloc(%b, %s) : memref<?x?x64xf32>
  hip.matmul(%ctx) ins(%x, %wq : memref<?x?x64xf32>, memref<64x64xf32>) outs(%q : memref<?x?x64xf32>)
  %k = memref.alloc(%b, %s) : memref<?x?x64xf32>
  hip.matmul(%ctx) ins(%x, %wk : memref<?x?x64xf32>, memref<64x64xf32>) outs(%k : memref<?x?x64xf32>)
  %v = memref.alloc(%b, %s) : memref<?x?x64xf32>
  hip.matmul(%ctx) ins(%x, %wv : memref<?x?x64xf32>, memref<64x64xf32>) outs(%v : memref<?x?x64xf32>)
  %kb = memref.dim %k, %c0 : memref<?x?x64xf32>
  %ks = memref.dim %k, %c1 : memref<?x?x64xf32>
  %kt = memref.alloc(%kb, %ks) : memref<?x64x?xf32>
  hip.transpose(%ctx) ins(%k : memref<?x?x64xf32>) outs(%kt : memref<?x64x?xf32>) {perm = array<i64: 0, 2, 1>}
  %qk = memref.alloc(%b, %s, %s) : memref<?x?x?xf32>
  hip.matmul(%ctx) ins(%q, %kt : memref<?x?x64xf32>, memref<?x64x?xf32>) outs(%qk : memref<?x?x?xf32>)
  %scaled = memref.alloc(%b, %s, %s) : memref<?x?x?xf32>
  hip.mul(%ctx) ins(%qk, %scale : memref<?x?x?xf32>, memref<f32>) outs(%scaled : memref<?x?x?xf32>)
  %c2 = arith.constant 2 : index
  %d0 = memref.dim %scaled, %c0 : memref<?x?x?xf32>
  %d2 = memref.dim %scaled, %c2 : memref<?x?x?xf32>
  %sm = memref.alloc(%d0, %s, %d2) : memref<?x?x?xf32>
  hip.softmax(%ctx) ins(%scaled : memref<?x?x?xf32>) outs(%sm : memref<?x?x?xf32>)
  %out = hip.alloc_output(%ctx, %b, %s) {out_idx = 0 : i64} : memref<?x?x64xf32>
  hip.matmul(%ctx) ins(%sm, %v : memref<?x?x?xf32>, memref<?x?x64xf32>) outs(%out : memref<?x?x64xf32>)
  func.return %out : memref<?x?x64xf32>
}
