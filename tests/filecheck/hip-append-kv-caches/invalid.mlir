// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s
// hip.cache_append's verifier: one size operand per `?` of the result, one element type,
// and the dims other than the axis agreeing.

func.func @sizes(%ctx: !hip.context, %past: memref<?x?xf32, strided<[?, 1], offset: ?>>, %new: memref<?x1xf32>, %b: index) -> memref<?x?xf32, strided<[?, 1], offset: ?>> {
  %r = hip.cache_append(%ctx, %past, %new, %b) {axis = 1 : i64, out_idx = 0 : i64} : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x1xf32> -> memref<?x?xf32, strided<[?, 1], offset: ?>>
  func.return %r : memref<?x?xf32, strided<[?, 1], offset: ?>>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'hip.cache_append' op expected 2 dynamic size operand(s) for memref<?x?xf32, strided<[?, 1], offset: ?>>, got 1

// -----

func.func @types(%ctx: !hip.context, %past: memref<?x?xf32, strided<[?, 1], offset: ?>>, %new: memref<?x1xf16>, %b: index, %t: index) -> memref<?x?xf32, strided<[?, 1], offset: ?>> {
  %r = hip.cache_append(%ctx, %past, %new, %b, %t) {axis = 1 : i64, out_idx = 0 : i64} : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x1xf16> -> memref<?x?xf32, strided<[?, 1], offset: ?>>
  func.return %r : memref<?x?xf32, strided<[?, 1], offset: ?>>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'hip.cache_append' op past, new and result must have one element type

// -----

func.func @dims(%ctx: !hip.context, %past: memref<2x?x8xf32, strided<[?, 8, 1], offset: ?>>, %new: memref<3x1x8xf32>, %t: index) -> memref<2x?x8xf32, strided<[?, 8, 1], offset: ?>> {
  %r = hip.cache_append(%ctx, %past, %new, %t) {axis = 1 : i64, out_idx = 0 : i64} : memref<2x?x8xf32, strided<[?, 8, 1], offset: ?>>, memref<3x1x8xf32> -> memref<2x?x8xf32, strided<[?, 8, 1], offset: ?>>
  func.return %r : memref<2x?x8xf32, strided<[?, 8, 1], offset: ?>>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'hip.cache_append' op dim 0 differs between past, new and result (2, 3, 2)
