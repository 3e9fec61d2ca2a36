// RUN: xhip-opt %s -p 'hip-optimize-memrefs{reuse="in-place"}' --split-input-file | filecheck %s
// Idempotent: a second run changes nothing.
// RUN: xhip-opt %s -p 'hip-optimize-memrefs{reuse="in-place"}' --split-input-file | xhip-opt - -p 'hip-optimize-memrefs{reuse="in-place"}' --split-input-file | filecheck %s

// A chain of ops that may alias (scale, softmax, exp), each input dying at the op
// that writes the next buffer: all three write into %s, the first buffer.
func.func @chain(%ctx: !hip.context, %x: memref<?x?xf32>, %k: memref<f32>, %n: index, %m: index) -> memref<?x?xf32> {
  %s = memref.alloc(%n, %m) : memref<?x?xf32>
  hip.relu(%ctx) ins(%x : memref<?x?xf32>) outs(%s : memref<?x?xf32>)
  %scaled = memref.alloc(%n, %m) : memref<?x?xf32>
  hip.mul(%ctx) ins(%s, %k : memref<?x?xf32>, memref<f32>) outs(%scaled : memref<?x?xf32>)
  %p = memref.alloc(%n, %m) : memref<?x?xf32>
  hip.softmax(%ctx) ins(%scaled : memref<?x?xf32>) outs(%p : memref<?x?xf32>)
  %out = hip.alloc_output(%ctx, %n, %m) {out_idx = 0 : i64} : memref<?x?xf32>
  hip.exp(%ctx) ins(%p : memref<?x?xf32>) outs(%out : memref<?x?xf32>)
  func.return %out : memref<?x?xf32>
}

// CHECK-LABEL: func.func @chain
// CHECK:         %s = memref.alloc(%n, %m) : memref<?x?xf32>
// CHECK-NEXT:    hip.relu(%ctx) ins(%x : memref<?x?xf32>) outs(%s : memref<?x?xf32>)
// CHECK-NEXT:    hip.mul(%ctx) ins(%s, %k : memref<?x?xf32>, memref<f32>) outs(%s : memref<?x?xf32>)
// CHECK-NEXT:    hip.softmax(%ctx) ins(%s : memref<?x?xf32>) outs(%s : memref<?x?xf32>)
// CHECK-NEXT:    %out = hip.alloc_output
// The graph output is not an allocation: the exp writes it, not %s.
// CHECK-NEXT:    hip.exp(%ctx) ins(%s : memref<?x?xf32>) outs(%out : memref<?x?xf32>)
// CHECK-NOT:     memref.alloc

// -----

// What never writes in place: an input still read later (%a, read by the matmul),
// a graph input (%x), ops whose kernels may not alias (transpose, matmul), another
// type (the i1 of a compare); and in this mode a buffer dead before an allocation
// is left to the planner (%late does not take %b or %t).
func.func @never(%ctx: !hip.context, %x: memref<?x?xf32>, %n: index, %m: index) -> (memref<?x?xf32>, memref<?x?xi1>) {
  %a = memref.alloc(%n, %m) : memref<?x?xf32>
  hip.relu(%ctx) ins(%x : memref<?x?xf32>) outs(%a : memref<?x?xf32>)
  %b = memref.alloc(%n, %m) : memref<?x?xf32>
  hip.exp(%ctx) ins(%a : memref<?x?xf32>) outs(%b : memref<?x?xf32>)
  %t = memref.alloc(%m, %n) : memref<?x?xf32>
  hip.transpose(%ctx) ins(%b : memref<?x?xf32>) outs(%t : memref<?x?xf32>) {perm = array<i64: 1, 0>}
  %mm = memref.alloc(%n, %n) : memref<?x?xf32>
  hip.matmul(%ctx) ins(%a, %t : memref<?x?xf32>, memref<?x?xf32>) outs(%mm : memref<?x?xf32>)
  %late = memref.alloc(%n, %m) : memref<?x?xf32>
  hip.neg(%ctx) ins(%x : memref<?x?xf32>) outs(%late : memref<?x?xf32>)
  %cmp = hip.alloc_output(%ctx, %n, %m) {out_idx = 1 : i64} : memref<?x?xi1>
  hip.greater(%ctx) ins(%late, %x : memref<?x?xf32>, memref<?x?xf32>) outs(%cmp : memref<?x?xi1>)
  %out = hip.alloc_output(%ctx, %n, %n) {out_idx = 0 : i64} : memref<?x?xf32>
  hip.relu(%ctx) ins(%mm : memref<?x?xf32>) outs(%out : memref<?x?xf32>)
  func.return %out, %cmp : memref<?x?xf32>, memref<?x?xi1>
}

// CHECK-LABEL: func.func @never
// CHECK:         %a = memref.alloc(%n, %m)
// CHECK:         %b = memref.alloc(%n, %m)
// CHECK:         %t = memref.alloc(%m, %n)
// CHECK:         %mm = memref.alloc(%n, %n)
// CHECK:         %late = memref.alloc(%n, %m)
