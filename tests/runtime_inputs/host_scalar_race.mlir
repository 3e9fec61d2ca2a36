// The seed 004 situation: the host writes a scalar, a kernel queued behind a
// slow matmul reads it; then the host writes a second scalar into the same
// pool slot (SECOND_OFFSET = 0: the slot reuse hip-optimize-memrefs made) for a
// second kernel. On a GPU the second store can land before the first kernel runs.
func.func @main_graph(%ctx: !hip.context, %x: memref<32x32xf32>, %w: memref<32x32xf32>) -> (memref<1xi64>, memref<1xi64>) {
  %c0 = arith.constant 0 : index
  %second_offset = arith.constant SECOND_OFFSET : index
  %pool_bytes = arith.constant 512 : index
  %first_value = arith.constant 7 : i64
  %second_value = arith.constant 9 : i64
  %pool = hip.get_pool(%ctx, %pool_bytes) : memref<?xi8>
  %slow1 = memref.alloc() : memref<32x32xf32>
  hip.matmul(%ctx) ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%slow1 : memref<32x32xf32>)
  %first = memref.view %pool[%c0][] : memref<?xi8> to memref<1xi64>
  memref.store %first_value, %first[%c0] : memref<1xi64>
  %out0 = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<1xi64>
  hip.copy(%ctx) ins(%first : memref<1xi64>) outs(%out0 : memref<1xi64>)
  %slow2 = memref.alloc() : memref<32x32xf32>
  hip.matmul(%ctx) ins(%slow1, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%slow2 : memref<32x32xf32>)
  %second = memref.view %pool[%second_offset][] : memref<?xi8> to memref<1xi64>
  memref.store %second_value, %second[%c0] : memref<1xi64>
  %out1 = hip.alloc_output(%ctx) {out_idx = 1 : i64} : memref<1xi64>
  hip.copy(%ctx) ins(%second : memref<1xi64>) outs(%out1 : memref<1xi64>)
  func.return %out0, %out1 : memref<1xi64>, memref<1xi64>
}
