// RUN: xhip-opt %s -p hip-optimize-memrefs | filecheck %s
// Idempotent: a second run changes nothing.
// RUN: xhip-opt %s -p hip-optimize-memrefs | xhip-opt - -p hip-optimize-memrefs | filecheck %s

// Seed 003 Pass 15 on the attention model's buffers: the QK^T buffer is dead once
// the scale has read it, so softmax writes into it (%sm disappears), and the last
// matmul reads softmax from there. Every other buffer is still live when the next
// allocation of its type and extents comes (%kt has another type). The size of
// %sm is given through `memref.dim %scaled`, which is the same extent as %b.

func.func @main_graph(%ctx: !hip.context, %x: memref<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"}, %wq: memref<64x64xf32>, %wk: memref<64x64xf32>, %wv: memref<64x64xf32>, %scale: memref<f32>) -> (memref<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "out"}) {
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
  %kt = memref.alloc(%b, %s) : memref<?x64x?xf32>
  hip.transpose(%ctx) ins(%k : memref<?x?x64xf32>) outs(%kt : memref<?x64x?xf32>) {perm = array<i64: 0, 2, 1>}
  %qk = memref.alloc(%b, %s, %s) : memref<?x?x?xf32>
  hip.matmul(%ctx) ins(%q, %kt : memref<?x?x64xf32>, memref<?x64x?xf32>) outs(%qk : memref<?x?x?xf32>)
  %scaled = memref.alloc(%b, %s, %s) : memref<?x?x?xf32>
  hip.mul(%ctx) ins(%qk, %scale : memref<?x?x?xf32>, memref<f32>) outs(%scaled : memref<?x?x?xf32>)
  %d0 = memref.dim %scaled, %c0 : memref<?x?x?xf32>
  %sm = memref.alloc(%d0, %s, %s) : memref<?x?x?xf32>
  hip.softmax(%ctx) ins(%scaled : memref<?x?x?xf32>) outs(%sm : memref<?x?x?xf32>)
  %out = hip.alloc_output(%ctx, %b, %s) {out_idx = 0 : i64} : memref<?x?x64xf32>
  hip.matmul(%ctx) ins(%sm, %v : memref<?x?x?xf32>, memref<?x?x64xf32>) outs(%out : memref<?x?x64xf32>)
  func.return %out : memref<?x?x64xf32>
}

// CHECK-LABEL: func.func @main_graph
// CHECK:         %q = memref.alloc(%b, %s) : memref<?x?x64xf32>
// CHECK:         %k = memref.alloc(%b, %s) : memref<?x?x64xf32>
// CHECK:         %v = memref.alloc(%b, %s) : memref<?x?x64xf32>
// CHECK:         %kt = memref.alloc(%b, %s) : memref<?x64x?xf32>
// CHECK:         %qk = memref.alloc(%b, %s, %s) : memref<?x?x?xf32>
// CHECK-NEXT:    hip.matmul(%ctx) ins(%q, %kt : memref<?x?x64xf32>, memref<?x64x?xf32>) outs(%qk : memref<?x?x?xf32>)
// CHECK-NEXT:    %scaled = memref.alloc(%b, %s, %s) : memref<?x?x?xf32>
// CHECK-NEXT:    hip.mul(%ctx) ins(%qk, %scale : memref<?x?x?xf32>, memref<f32>) outs(%scaled : memref<?x?x?xf32>)
// CHECK-NEXT:    %d0 = memref.dim %scaled, %c0
// CHECK-NEXT:    hip.softmax(%ctx) ins(%scaled : memref<?x?x?xf32>) outs(%qk : memref<?x?x?xf32>)
// CHECK-NEXT:    %out = hip.alloc_output(%ctx, %b, %s) {out_idx = 0 : i64} : memref<?x?x64xf32>
// CHECK-NEXT:    hip.matmul(%ctx) ins(%qk, %v : memref<?x?x?xf32>, memref<?x?x64xf32>) outs(%out : memref<?x?x64xf32>)
