// RUN: xhip-opt %s -p hip-use-output-allocator --split-input-file | filecheck %s
// The pass is idempotent: a second run changes nothing.
// RUN: xhip-opt %s -p hip-use-output-allocator,hip-use-output-allocator --split-input-file | filecheck %s

// The attention output (seed 003's %alloc_24): the returned allocation becomes the
// output at the same position, sized by the same dims; the producer writes it.
func.func @main_graph(%ctx: !hip.context, %x: memref<?x?x64xf32> {onnx.name = "X"}, %w: memref<64x64xf32>) -> (memref<?x?x64xf32> {onnx.name = "out"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %x, %c0 : memref<?x?x64xf32>
  %s = memref.dim %x, %c1 : memref<?x?x64xf32>
  %t = memref.alloc(%b, %s) {alignment = 64 : i64} : memref<?x?x64xf32>
  hip.matmul(%ctx) ins(%x, %w : memref<?x?x64xf32>, memref<64x64xf32>) outs(%t : memref<?x?x64xf32>)
  %out = memref.alloc(%b, %s) {alignment = 64 : i64} : memref<?x?x64xf32>
  hip.matmul(%ctx) ins(%t, %w : memref<?x?x64xf32>, memref<64x64xf32>) outs(%out : memref<?x?x64xf32>)
  memref.dealloc %t : memref<?x?x64xf32>
  func.return %out : memref<?x?x64xf32>
}
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME:    -> (memref<?x?x64xf32> {onnx.name = "out"})
// CHECK:         %[[T:.*]] = memref.alloc(%b, %s) {alignment = 64 : i64} : memref<?x?x64xf32>
// CHECK-NEXT:    hip.matmul(%ctx) ins(%x, %w : memref<?x?x64xf32>, memref<64x64xf32>) outs(%[[T]] : memref<?x?x64xf32>)
// CHECK-NEXT:    %[[OUT:.*]] = hip.alloc_output(%ctx, %b, %s) {out_idx = 0 : i64} : memref<?x?x64xf32>
// CHECK-NEXT:    hip.matmul(%ctx) ins(%[[T]], %w : memref<?x?x64xf32>, memref<64x64xf32>) outs(%[[OUT]] : memref<?x?x64xf32>)
// CHECK-NEXT:    memref.dealloc %[[T]] : memref<?x?x64xf32>
// CHECK-NEXT:    func.return %[[OUT]] : memref<?x?x64xf32>
// CHECK-NOT:     hip.alloc_output

// -----

// Several outputs of one op (Split): each output index is the return position; a
// deallocation of an output is dropped (the runtime owns outputs).
func.func @split(%ctx: !hip.context, %x: memref<?x8xf32>) -> (memref<?x2xf32>, memref<?x6xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x8xf32>
  %a = memref.alloc(%n) : memref<?x2xf32>
  %b = memref.alloc(%n) : memref<?x6xf32>
  hip.split(%ctx) ins(%x : memref<?x8xf32>) outs(%a, %b : memref<?x2xf32>, memref<?x6xf32>) {axis = 1 : i64}
  memref.dealloc %b : memref<?x6xf32>
  func.return %a, %b : memref<?x2xf32>, memref<?x6xf32>
}
// CHECK-LABEL: func.func @split
// CHECK:         %[[A:.*]] = hip.alloc_output(%ctx, %n) {out_idx = 0 : i64} : memref<?x2xf32>
// CHECK-NEXT:    %[[B:.*]] = hip.alloc_output(%ctx, %n) {out_idx = 1 : i64} : memref<?x6xf32>
// CHECK-NEXT:    hip.split(%ctx) ins(%x : memref<?x8xf32>) outs(%[[A]], %[[B]] : memref<?x2xf32>, memref<?x6xf32>) {axis = 1 : i64}
// CHECK-NEXT:    func.return %[[A]], %[[B]] : memref<?x2xf32>, memref<?x6xf32>

// -----

// Static outputs take no size operands; scalar results are not buffers.
func.func @static(%ctx: !hip.context, %x: memref<4x8xf32>, %k: index) -> (index, memref<8x4xf32>) {
  %y = memref.alloc() : memref<8x4xf32>
  hip.transpose(%ctx) ins(%x : memref<4x8xf32>) outs(%y : memref<8x4xf32>) {perm = array<i64: 1, 0>}
  func.return %k, %y : index, memref<8x4xf32>
}
// CHECK-LABEL: func.func @static
// CHECK-NEXT:    %[[Y:.*]] = hip.alloc_output(%ctx) {out_idx = 1 : i64} : memref<8x4xf32>
// CHECK-NEXT:    hip.transpose(%ctx) ins(%x : memref<4x8xf32>) outs(%[[Y]] : memref<8x4xf32>) {perm = array<i64: 1, 0>}
// CHECK-NEXT:    func.return %k, %[[Y]] : index, memref<8x4xf32>

// -----

// Private functions (callees, loop bodies) return to their caller, not to the graph.
func.func private @callee(%ctx: !hip.context, %n: index) -> memref<?xf32> {
  %y = memref.alloc(%n) : memref<?xf32>
  func.return %y : memref<?xf32>
}
// CHECK-LABEL: func.func private @callee
// CHECK-NEXT:    %y = memref.alloc(%n) : memref<?xf32>
// CHECK-NEXT:    func.return %y : memref<?xf32>
