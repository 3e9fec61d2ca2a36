// RUN: xhip-opt %s -p hip-append-kv-caches --split-input-file | filecheck %s
// The pass is idempotent: a second run finds no concat to rewrite.
// RUN: xhip-opt %s -p hip-append-kv-caches,hip-append-kv-caches --split-input-file | filecheck %s

// A decoder layer's key cache: present = Concat(past, new) along the sequence axis, past
// an argument and present returned, which the attention reads too. The concat and its
// output become one append; past and present take the cache's strided layout (the dims
// before the axis step over the capacity), in the signature as well. The append keeps the
// output's sizes (%b, %t): the attention's shape contract is proved on them, not checked.
func.func @main_graph(%ctx: !hip.context, %q: memref<?x4x1x16xf32>, %past: memref<?x4x?x16xf32> {onnx.name = "past_key_0"}, %new: memref<?x4x1x16xf32, strided<[192, 16, 16, 1], offset: 64>>) -> (memref<?x4x1x16xf32>, memref<?x4x?x16xf32> {onnx.name = "present_key_0"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = memref.dim %q, %c0 : memref<?x4x1x16xf32>
  %p = memref.dim %past, %c2 : memref<?x4x?x16xf32>
  %t = arith.addi %p, %c1 : index
  %present = hip.alloc_output(%ctx, %b, %t) {out_idx = 1 : i64} : memref<?x4x?x16xf32>
  hip.concat(%ctx) ins(%past, %new : memref<?x4x?x16xf32>, memref<?x4x1x16xf32, strided<[192, 16, 16, 1], offset: 64>>) outs(%present : memref<?x4x?x16xf32>) {axis = 2 : i64}
  %y = hip.alloc_output(%ctx, %b) {out_idx = 0 : i64} : memref<?x4x1x16xf32>
  hip.attention(%ctx) ins(%q, %present, %present : memref<?x4x1x16xf32>, memref<?x4x?x16xf32>, memref<?x4x?x16xf32>) outs(%y : memref<?x4x1x16xf32>) {scale = 2.500000e-01 : f64}
  func.return %y, %present : memref<?x4x1x16xf32>, memref<?x4x?x16xf32>
}
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME:    %past: memref<?x4x?x16xf32, strided<[?, ?, 16, 1], offset: ?>> {onnx.name = "past_key_0"}
// CHECK-SAME:    -> (memref<?x4x1x16xf32>, memref<?x4x?x16xf32, strided<[?, ?, 16, 1], offset: ?>> {onnx.name = "present_key_0"})
// CHECK:         %p = memref.dim %past, %c2 : memref<?x4x?x16xf32, strided<[?, ?, 16, 1], offset: ?>>
// CHECK-NOT:     hip.concat
// CHECK:         %[[P:.*]] = hip.cache_append(%ctx, %past, %new, %b, %t) {axis = 2 : i64, out_idx = 1 : i64} : memref<?x4x?x16xf32, strided<[?, ?, 16, 1], offset: ?>>, memref<?x4x1x16xf32, strided<[192, 16, 16, 1], offset: 64>> -> memref<?x4x?x16xf32, strided<[?, ?, 16, 1], offset: ?>>
// CHECK-NEXT:    %y = hip.alloc_output(%ctx, %b) {out_idx = 0 : i64} : memref<?x4x1x16xf32>
// CHECK-NEXT:    hip.attention(%ctx) ins(%q, %[[P]], %[[P]] : memref<?x4x1x16xf32>, memref<?x4x?x16xf32, strided<[?, ?, 16, 1], offset: ?>>, memref<?x4x?x16xf32, strided<[?, ?, 16, 1], offset: ?>>)
// CHECK-NEXT:    func.return %y, %[[P]] : memref<?x4x1x16xf32>, memref<?x4x?x16xf32, strided<[?, ?, 16, 1], offset: ?>>

// -----

// A negative axis counts from the end (transformers' cat(dim=-2)); a cache of [b, s, d]
// along s keeps d's stride and steps over the capacity in b.
func.func @rank3(%ctx: !hip.context, %past: memref<?x?x8xf16>, %new: memref<?x1x8xf16>) -> memref<?x?x8xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %past, %c0 : memref<?x?x8xf16>
  %p = memref.dim %past, %c1 : memref<?x?x8xf16>
  %t = arith.addi %p, %c1 : index
  %present = hip.alloc_output(%ctx, %b, %t) {out_idx = 0 : i64} : memref<?x?x8xf16>
  hip.concat(%ctx) ins(%past, %new : memref<?x?x8xf16>, memref<?x1x8xf16>) outs(%present : memref<?x?x8xf16>) {axis = -2 : i64}
  func.return %present : memref<?x?x8xf16>
}
// CHECK-LABEL: func.func @rank3
// CHECK-SAME:    (%ctx: !hip.context, %past: memref<?x?x8xf16, strided<[?, 8, 1], offset: ?>>, %new: memref<?x1x8xf16>) -> memref<?x?x8xf16, strided<[?, 8, 1], offset: ?>>
// CHECK:         %{{.*}} = hip.cache_append(%ctx, %past, %new, %b, %t) {axis = 1 : i64, out_idx = 0 : i64}
// CHECK-NOT:     hip.concat

// -----

// Left alone: a past that a kernel also reads (its layout cannot change under it), a
// concat of three, a static cache axis, and a present that another op writes after the
// concat (an in-place op over it: the cache's rows are the caller's).
func.func @kept(%ctx: !hip.context, %past: memref<?x4x?x16xf32>, %other: memref<?x4x?x16xf32>, %fixed: memref<1x4x8x16xf32>, %new: memref<?x4x1x16xf32>, %written: memref<?x4x?x16xf32>) -> (memref<?x4x?x16xf32>, memref<?x4x?x16xf32>, memref<1x4x9x16xf32>, memref<?x4x?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = memref.dim %past, %c0 : memref<?x4x?x16xf32>
  %p = memref.dim %past, %c2 : memref<?x4x?x16xf32>
  %read = memref.alloc(%b, %p) : memref<?x4x?x16xf32>
  hip.exp(%ctx) ins(%past : memref<?x4x?x16xf32>) outs(%read : memref<?x4x?x16xf32>)
  %a = hip.alloc_output(%ctx, %b, %p) {out_idx = 0 : i64} : memref<?x4x?x16xf32>
  hip.concat(%ctx) ins(%past, %new : memref<?x4x?x16xf32>, memref<?x4x1x16xf32>) outs(%a : memref<?x4x?x16xf32>) {axis = 2 : i64}
  %three = hip.alloc_output(%ctx, %b, %p) {out_idx = 1 : i64} : memref<?x4x?x16xf32>
  hip.concat(%ctx) ins(%other, %new, %new : memref<?x4x?x16xf32>, memref<?x4x1x16xf32>, memref<?x4x1x16xf32>) outs(%three : memref<?x4x?x16xf32>) {axis = 2 : i64}
  %s = hip.alloc_output(%ctx) {out_idx = 2 : i64} : memref<1x4x9x16xf32>
  hip.concat(%ctx) ins(%fixed, %new : memref<1x4x8x16xf32>, memref<?x4x1x16xf32>) outs(%s : memref<1x4x9x16xf32>) {axis = 2 : i64}
  %w = hip.alloc_output(%ctx, %b, %p) {out_idx = 3 : i64} : memref<?x4x?x16xf32>
  hip.concat(%ctx) ins(%written, %new : memref<?x4x?x16xf32>, memref<?x4x1x16xf32>) outs(%w : memref<?x4x?x16xf32>) {axis = 2 : i64}
  hip.exp(%ctx) ins(%w : memref<?x4x?x16xf32>) outs(%w : memref<?x4x?x16xf32>)
  func.return %a, %three, %s, %w : memref<?x4x?x16xf32>, memref<?x4x?x16xf32>, memref<1x4x9x16xf32>, memref<?x4x?x16xf32>
}
// CHECK-LABEL: func.func @kept
// CHECK-SAME:    %past: memref<?x4x?x16xf32>, %other: memref<?x4x?x16xf32>, %fixed: memref<1x4x8x16xf32>, %new: memref<?x4x1x16xf32>, %written: memref<?x4x?x16xf32>
// CHECK-NOT:     hip.cache_append
// CHECK-COUNT-4: hip.concat
// CHECK-NOT:     hip.cache_append
