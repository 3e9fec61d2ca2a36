// RUN: xhip-opt %s -p hip-use-output-allocator --split-input-file | filecheck %s

// The seed 002 reviewer's example: a 16-element buffer cast to dynamic, expanded by
// two runtime dims, cast to the static 4x4 result. The output has the returned
// value's type: 4x4, whatever %a and %b are, and the buffer is a collapse of it.
func.func @main_graph(%ctx: !hip.context, %a: index, %b: index) -> memref<4x4xf32> {
  %buffer = memref.alloc() : memref<16xf32>
  %dynamic = "memref.cast"(%buffer) : (memref<16xf32>) -> memref<?xf32>
  %expanded = memref.expand_shape %dynamic [[0, 1]] output_shape [%a, %b] : memref<?xf32> into memref<?x?xf32>
  %result = "memref.cast"(%expanded) : (memref<?x?xf32>) -> memref<4x4xf32>
  func.return %result : memref<4x4xf32>
}
// CHECK-LABEL: func.func @main_graph
// CHECK-NEXT:    %[[OUT:.*]] = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<4x4xf32>
// CHECK-NEXT:    %{{.*}} = memref.collapse_shape %[[OUT]] {{\[\[}}0 : i64, 1 : i64]] : memref<4x4xf32> into memref<16xf32>
// CHECK-NEXT:    func.return %[[OUT]] : memref<4x4xf32>
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.expand_shape

// -----

// A rank-expanding output: the kernel writes a flat [b*s] buffer, the graph returns
// it as [b, s]. The output is allocated with both external dims (never rebuilt from
// their product), and the kernel writes it through a collapse.
func.func @expanded(%ctx: !hip.context, %x: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %x, %c0 : memref<?x?xf32>
  %s = memref.dim %x, %c1 : memref<?x?xf32>
  %bs = arith.muli %b, %s : index
  %flat = memref.alloc(%bs) : memref<?xf32>
  %xf = memref.collapse_shape %x [[0, 1]] : memref<?x?xf32> into memref<?xf32>
  hip.relu(%ctx) ins(%xf : memref<?xf32>) outs(%flat : memref<?xf32>)
  %out = memref.expand_shape %flat [[0, 1]] output_shape [%b, %s] : memref<?xf32> into memref<?x?xf32>
  func.return %out : memref<?x?xf32>
}
// CHECK-LABEL: func.func @expanded
// CHECK:         %[[OUT:.*]] = hip.alloc_output(%ctx, %b, %s) {out_idx = 0 : i64} : memref<?x?xf32>
// CHECK-NEXT:    %[[FLAT:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0 : i64, 1 : i64]] : memref<?x?xf32> into memref<?xf32>
// CHECK-NEXT:    %xf = memref.collapse_shape %x
// CHECK-NEXT:    hip.relu(%ctx) ins(%xf : memref<?xf32>) outs(%[[FLAT]] : memref<?xf32>)
// CHECK-NEXT:    func.return %[[OUT]] : memref<?x?xf32>

// -----

// A rank-collapsing output: the external dim is the product of the buffer's dims.
// A second output returns the same buffer: it gets its own output, a copy.
func.func @collapsed(%ctx: !hip.context, %x: memref<?x?x8xf32>) -> (memref<?x8xf32>, memref<?x?x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %x, %c0 : memref<?x?x8xf32>
  %s = memref.dim %x, %c1 : memref<?x?x8xf32>
  %y = memref.alloc(%b, %s) : memref<?x?x8xf32>
  hip.relu(%ctx) ins(%x : memref<?x?x8xf32>) outs(%y : memref<?x?x8xf32>)
  %flat = memref.collapse_shape %y [[0, 1], [2]] : memref<?x?x8xf32> into memref<?x8xf32>
  func.return %flat, %y : memref<?x8xf32>, memref<?x?x8xf32>
}
// CHECK-LABEL: func.func @collapsed
// CHECK:         %[[BS:.*]] = arith.muli %b, %s : index
// CHECK-NEXT:    %[[OUT0:.*]] = hip.alloc_output(%ctx, %[[BS]]) {out_idx = 0 : i64} : memref<?x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = memref.expand_shape %[[OUT0]] {{\[\[}}0 : i64, 1 : i64], [2 : i64]] output_shape [%b, %s, 8] : memref<?x8xf32> into memref<?x?x8xf32>
// CHECK-NEXT:    hip.relu(%ctx) ins(%x : memref<?x?x8xf32>) outs(%[[Y]] : memref<?x?x8xf32>)
// CHECK-NEXT:    %[[OUT1:.*]] = hip.alloc_output(%ctx, %b, %s) {out_idx = 1 : i64} : memref<?x?x8xf32>
// CHECK-NEXT:    "memref.copy"(%[[Y]], %[[OUT1]])
// CHECK-NEXT:    func.return %[[OUT0]], %[[OUT1]] : memref<?x8xf32>, memref<?x?x8xf32>

// -----

// An output dim computed after the allocation: the output goes right before the
// buffer's first use, once the dim is known.
func.func @late_dims(%ctx: !hip.context, %x: memref<?xf32>) -> memref<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %buf = memref.alloc(%n) : memref<?xf32>
  %rows = arith.divui %n, %c4 : index
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%buf : memref<?xf32>)
  %e = memref.expand_shape %buf [[0, 1]] output_shape [%rows, 4] : memref<?xf32> into memref<?x4xf32>
  func.return %e : memref<?x4xf32>
}
// CHECK-LABEL: func.func @late_dims
// CHECK:         %rows = arith.divui %n, %c4 : index
// CHECK-NEXT:    %[[OUT:.*]] = hip.alloc_output(%ctx, %rows) {out_idx = 0 : i64} : memref<?x4xf32>
// CHECK-NEXT:    %[[BUF:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0 : i64, 1 : i64]] : memref<?x4xf32> into memref<?xf32>
// CHECK-NEXT:    hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%[[BUF]] : memref<?xf32>)
// CHECK-NEXT:    func.return %[[OUT]]

// -----

// ... and when the dim is only known after the buffer is written, the output is a
// copy made at the return (the producer cannot write a buffer that does not exist yet).
func.func @too_late(%ctx: !hip.context, %x: memref<?xf32>) -> memref<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %buf = memref.alloc(%n) : memref<?xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%buf : memref<?xf32>)
  %rows = arith.divui %n, %c4 : index
  %e = memref.expand_shape %buf [[0, 1]] output_shape [%rows, 4] : memref<?xf32> into memref<?x4xf32>
  func.return %e : memref<?x4xf32>
}
// CHECK-LABEL: func.func @too_late
// CHECK:         %buf = memref.alloc(%n) : memref<?xf32>
// CHECK-NEXT:    hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%buf : memref<?xf32>)
// CHECK-NEXT:    %rows = arith.divui %n, %c4 : index
// CHECK-NEXT:    %[[E:.*]] = memref.expand_shape %buf
// CHECK-NEXT:    %[[OUT:.*]] = hip.alloc_output(%ctx, %rows) {out_idx = 0 : i64} : memref<?x4xf32>
// CHECK-NEXT:    "memref.copy"(%[[E]], %[[OUT]]) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
// CHECK-NEXT:    func.return %[[OUT]] : memref<?x4xf32>
