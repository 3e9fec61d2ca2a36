// RUN: xhip-opt %S/../../runtime_inputs/attention.mlir -p hip-optimize-memrefs | filecheck %s
// Idempotent: a second run changes nothing.
// RUN: xhip-opt %S/../../runtime_inputs/attention.mlir -p hip-optimize-memrefs | xhip-opt - -p hip-optimize-memrefs | filecheck %s

// Seed 003 Pass 15 on the attention model's buffers (tests/runtime_inputs/attention.mlir,
// which the pytest files run too): the QK^T buffer is dead once the scale has read
// it, so softmax writes into it (%sm disappears), and the last matmul reads softmax
// from there. Every other buffer is still live when the next allocation of its type
// and extents comes (%kt has another type). The size of %sm is given through
// `memref.dim %scaled`, which is the same extent as %b.

// CHECK-LABEL: func.func @main_graph
// CHECK:         %q = memref.alloc(%b, %s) : memref<?x?x64xf32>
// CHECK:         %k = memref.alloc(%b, %s) : memref<?x?x64xf32>
// CHECK:         %v = memref.alloc(%b, %s) : memref<?x?x64xf32>
// CHECK:         %kt = memref.alloc(%kb, %ks) : memref<?x64x?xf32>
// CHECK:         %qk = memref.alloc(%b, %s, %s) : memref<?x?x?xf32>
// CHECK-NEXT:    hip.matmul(%ctx) ins(%q, %kt : memref<?x?x64xf32>, memref<?x64x?xf32>) outs(%qk : memref<?x?x?xf32>)
// CHECK-NEXT:    %scaled = memref.alloc(%b, %s, %s) : memref<?x?x?xf32>
// CHECK-NEXT:    hip.mul(%ctx) ins(%qk, %scale : memref<?x?x?xf32>, memref<f32>) outs(%scaled : memref<?x?x?xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         hip.softmax(%ctx) ins(%scaled : memref<?x?x?xf32>) outs(%qk : memref<?x?x?xf32>)
// CHECK-NEXT:    %out = hip.alloc_output(%ctx, %b, %s) {out_idx = 0 : i64} : memref<?x?x64xf32>
// CHECK-NEXT:    hip.matmul(%ctx) ins(%qk, %v : memref<?x?x?xf32>, memref<?x?x64xf32>) outs(%out : memref<?x?x64xf32>)
