// Seed 004's table: host store, kernel read, host store, kernel read. The second
// store happens at once, maybe before the first kernel ran, so the two buffers
// must never share bytes, whichever of the two passes runs first.
//
// optimize-memrefs alone: kept apart (host-accessed buffers neither take nor donate).
// RUN: xhip-opt %s -p hip-optimize-memrefs --split-input-file | filecheck %s --check-prefix=APART
// materialize-host-scalars first (seed 002's order): scalars in scratch at 0 and 64,
// the 32-element buffers (too large for scratch) still kept apart.
// RUN: xhip-opt %s -p hip-materialize-host-scalars,hip-optimize-memrefs --split-input-file | filecheck %s --check-prefix=SCRATCH
// optimize-memrefs first (the old order): the same.
// RUN: xhip-opt %s -p hip-optimize-memrefs,hip-materialize-host-scalars --split-input-file | filecheck %s --check-prefix=SCRATCH
// exclude-host-accessed=false reproduces the race on purpose: the slot IS shared.
// RUN: xhip-opt %s -p 'hip-optimize-memrefs{exclude-host-accessed=false}' --split-input-file | filecheck %s --check-prefix=RACE
// ... and with the old order the scalars end up in ONE scratch slot.
// RUN: xhip-opt %s -p 'hip-optimize-memrefs{exclude-host-accessed=false},hip-materialize-host-scalars' --split-input-file | filecheck %s --check-prefix=MERGED

func.func @scalars(%ctx: !hip.context, %x: memref<32x32xf32>, %w: memref<32x32xf32>) -> (memref<1xi64>, memref<1xi64>) {
  %c0 = arith.constant 0 : index
  %seven = arith.constant 7 : i64
  %nine = arith.constant 9 : i64
  %slow1 = memref.alloc() : memref<32x32xf32>
  hip.matmul(%ctx) ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%slow1 : memref<32x32xf32>)
  %first = memref.alloc() : memref<1xi64>
  memref.store %seven, %first[%c0] : memref<1xi64>
  %out0 = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<1xi64>
  hip.copy(%ctx) ins(%first : memref<1xi64>) outs(%out0 : memref<1xi64>)
  %slow2 = memref.alloc() : memref<32x32xf32>
  hip.matmul(%ctx) ins(%slow1, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%slow2 : memref<32x32xf32>)
  %second = memref.alloc() : memref<1xi64>
  memref.store %nine, %second[%c0] : memref<1xi64>
  %out1 = hip.alloc_output(%ctx) {out_idx = 1 : i64} : memref<1xi64>
  hip.copy(%ctx) ins(%second : memref<1xi64>) outs(%out1 : memref<1xi64>)
  func.return %out0, %out1 : memref<1xi64>, memref<1xi64>
}

// APART-LABEL: func.func @scalars
// APART:         %first = memref.alloc() : memref<1xi64>
// APART:         %second = memref.alloc() : memref<1xi64>
// APART-NEXT:    memref.store %nine, %second[%c0] : memref<1xi64>

// SCRATCH-LABEL: func.func @scalars
// SCRATCH:         %[[HS:.*]] = hip.get_host_scratch(%ctx, %{{.*}}) : memref<?xi8>
// SCRATCH:         hip.matmul
// SCRATCH-NEXT:    %[[OFF0:.*]] = arith.constant 0 : index
// SCRATCH-NEXT:    %first = memref.view %[[HS]][%[[OFF0]]][] : memref<?xi8> to memref<1xi64>
// SCRATCH:         %[[OFF64:.*]] = arith.constant 64 : index
// SCRATCH-NEXT:    %second = memref.view %[[HS]][%[[OFF64]]][] : memref<?xi8> to memref<1xi64>
// SCRATCH-NEXT:    memref.store %nine, %second[%c0] : memref<1xi64>

// RACE-LABEL: func.func @scalars
// RACE:         %first = memref.alloc() : memref<1xi64>
// RACE-NOT:     memref.alloc() : memref<1xi64>
// RACE:         memref.store %nine, %first[%c0] : memref<1xi64>
// RACE:         hip.copy(%ctx) ins(%first : memref<1xi64>) outs(%out1 : memref<1xi64>)

// MERGED-LABEL: func.func @scalars
// MERGED:         %[[HS:.*]] = hip.get_host_scratch(%ctx, %{{.*}}) : memref<?xi8>
// MERGED:         %first = memref.view %[[HS]]
// MERGED-NOT:     memref.view
// MERGED:         memref.store %nine, %first[%c0] : memref<1xi64>

// -----

// 32 elements: too large for host scratch, so only optimize-memrefs keeps them apart.
func.func @buffers(%ctx: !hip.context, %x: memref<32x32xf32>, %w: memref<32x32xf32>, %v: i64) -> (memref<32xi64>, memref<32xi64>) {
  %c0 = arith.constant 0 : index
  %c31 = arith.constant 31 : index
  %slow1 = memref.alloc() : memref<32x32xf32>
  hip.matmul(%ctx) ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%slow1 : memref<32x32xf32>)
  %first = memref.alloc() : memref<32xi64>
  hip.fill(%ctx, %v) outs(%first : memref<32xi64>)
  memref.store %v, %first[%c0] : memref<32xi64>
  %out0 = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<32xi64>
  hip.copy(%ctx) ins(%first : memref<32xi64>) outs(%out0 : memref<32xi64>)
  %slow2 = memref.alloc() : memref<32x32xf32>
  hip.matmul(%ctx) ins(%slow1, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%slow2 : memref<32x32xf32>)
  %second = memref.alloc() : memref<32xi64>
  hip.fill(%ctx, %v) outs(%second : memref<32xi64>)
  %second_view = memref.subview %second[16] [16] [1] : memref<32xi64> to memref<16xi64, strided<[1], offset: 16>>
  memref.store %v, %second_view[%c0] : memref<16xi64, strided<[1], offset: 16>>
  %out1 = hip.alloc_output(%ctx) {out_idx = 1 : i64} : memref<32xi64>
  hip.copy(%ctx) ins(%second : memref<32xi64>) outs(%out1 : memref<32xi64>)
  func.return %out0, %out1 : memref<32xi64>, memref<32xi64>
}

// APART-LABEL: func.func @buffers
// APART:         %first = memref.alloc() : memref<32xi64>
// APART:         %second = memref.alloc() : memref<32xi64>

// SCRATCH-LABEL: func.func @buffers
// SCRATCH-NOT:     hip.get_host_scratch
// SCRATCH:         %first = memref.alloc() : memref<32xi64>
// SCRATCH:         %second = memref.alloc() : memref<32xi64>

// RACE-LABEL: func.func @buffers
// RACE:         %first = memref.alloc() : memref<32xi64>
// RACE-NOT:     memref.alloc() : memref<32xi64>
// RACE:         hip.matmul(%ctx) ins(%slow1, %w
// RACE:         hip.fill(%ctx, %v) outs(%first : memref<32xi64>)
// RACE-NEXT:    %second_view = memref.subview %first[16] [16] [1]

// MERGED-LABEL: func.func @buffers
// MERGED:         %first = memref.alloc() : memref<32xi64>
// MERGED-NOT:     memref.alloc() : memref<32xi64>
// MERGED:         %second_view = memref.subview %first
