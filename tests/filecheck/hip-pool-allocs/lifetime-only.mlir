// RUN: xhip-opt %s -p hip-pool-allocs --split-input-file | filecheck %s

// Seed 001 (PR 570): two allocations that are never live together, sized by
// different dims, share one slab as wide as the larger (maxui); both views sit
// at offset 0. The SizeExpr factors out the common 16384:
// max(32768*d0, 16384*d1) = 16384*max(2*d0, d1).
func.func @disjoint_share(%ctx: !hip.context, %x: memref<?x8192xf32>, %y: memref<?x4096xf32>, %d0: index, %d1: index) {
  %a = memref.alloc(%d0) : memref<?x8192xf32>
  hip.relu(%ctx) ins(%x : memref<?x8192xf32>) outs(%a : memref<?x8192xf32>)
  hip.relu(%ctx) ins(%a : memref<?x8192xf32>) outs(%x : memref<?x8192xf32>)
  %b = memref.alloc(%d1) : memref<?x4096xf32>
  hip.relu(%ctx) ins(%y : memref<?x4096xf32>) outs(%b : memref<?x4096xf32>)
  hip.relu(%ctx) ins(%b : memref<?x4096xf32>) outs(%y : memref<?x4096xf32>)
  func.return
}

// CHECK:       hip.pool_size = "16384*max(2*%d0, %d1)"
// CHECK-SAME:  hip.buffer_offsets = array<i64: 0, 0>
// CHECK-LABEL: func.func @disjoint_share
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[TWICE:.*]] = arith.muli %d0, %[[C2]] : index
// CHECK-NEXT:    %[[MAX:.*]] = arith.maxui %[[TWICE]], %d1 : index
// CHECK-NEXT:    %[[C16K:.*]] = arith.constant 16384 : index
// CHECK-NEXT:    %[[SIZE:.*]] = arith.muli %[[MAX]], %[[C16K]] : index
// CHECK-NEXT:    %[[POOL:.*]] = hip.get_pool(%ctx, %[[SIZE]]) : memref<?xi8>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.view %[[POOL]][%[[C0]]][%d0] : memref<?xi8> to memref<?x8192xf32>
// CHECK:         %b = memref.view %[[POOL]][%[[C0]]][%d1] : memref<?xi8> to memref<?x4096xf32>
// CHECK-NOT:     divui

// -----

// The guardrail: the same two allocations live together are stacked, A + B,
// the second at the end of the first.
func.func @overlap_stacked(%ctx: !hip.context, %x: memref<?x8192xf32>, %y: memref<?x4096xf32>, %d0: index, %d1: index) {
  %a = memref.alloc(%d0) : memref<?x8192xf32>
  %b = memref.alloc(%d1) : memref<?x4096xf32>
  hip.relu(%ctx) ins(%x : memref<?x8192xf32>) outs(%a : memref<?x8192xf32>)
  hip.relu(%ctx) ins(%y : memref<?x4096xf32>) outs(%b : memref<?x4096xf32>)
  hip.relu(%ctx) ins(%a : memref<?x8192xf32>) outs(%x : memref<?x8192xf32>)
  hip.relu(%ctx) ins(%b : memref<?x4096xf32>) outs(%y : memref<?x4096xf32>)
  func.return
}

// CHECK:       hip.pool_size = "32768*%d0 + 16384*%d1"
// CHECK-SAME:  hip.buffer_offsets = array<i64: 0, -1>
// CHECK-LABEL: func.func @overlap_stacked
// CHECK:         %[[A:.*]] = arith.muli %d0, %{{.*}} : index
// CHECK:         %[[B:.*]] = arith.muli %d1, %{{.*}} : index
// CHECK-NEXT:    %[[SIZE:.*]] = arith.addi %[[A]], %[[B]] : index
// CHECK-NEXT:    %[[POOL:.*]] = hip.get_pool(%ctx, %[[SIZE]]) : memref<?xi8>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.view %[[POOL]][%[[C0]]][%d0]
// CHECK-NEXT:    %b = memref.view %[[POOL]][%[[A]]][%d1]
// CHECK-NOT:     maxui

// -----

// A small allocation whose size is not a multiple of the alignment (8 bytes per
// row) shares the slab and rounds the width up: maxui(32768*d0, align(8*d1)),
// the align-up spelled addi 255, divui 256, muli 256.
func.func @small_rounds_up(%ctx: !hip.context, %x: memref<?x8192xf32>, %y: memref<?x2xf32>, %d0: index, %d1: index) {
  %a = memref.alloc(%d0) : memref<?x8192xf32>
  hip.relu(%ctx) ins(%x : memref<?x8192xf32>) outs(%a : memref<?x8192xf32>)
  hip.relu(%ctx) ins(%a : memref<?x8192xf32>) outs(%x : memref<?x8192xf32>)
  %b = memref.alloc(%d1) : memref<?x2xf32>
  hip.relu(%ctx) ins(%y : memref<?x2xf32>) outs(%b : memref<?x2xf32>)
  hip.relu(%ctx) ins(%b : memref<?x2xf32>) outs(%y : memref<?x2xf32>)
  func.return
}

// CHECK:       hip.pool_size = "max(32768*%d0, align_up(8*%d1, 256))"
// CHECK-LABEL: func.func @small_rounds_up
// CHECK:         %[[A:.*]] = arith.muli %d0, %{{.*}} : index
// CHECK:         %[[B:.*]] = arith.muli %d1, %{{.*}} : index
// CHECK-NEXT:    %[[C255:.*]] = arith.constant 255 : index
// CHECK-NEXT:    %[[BUMP:.*]] = arith.addi %[[B]], %[[C255]] : index
// CHECK-NEXT:    %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[BLOCKS:.*]] = arith.divui %[[BUMP]], %[[C256]] : index
// CHECK-NEXT:    %[[ALIGNED:.*]] = arith.muli %[[BLOCKS]], %[[C256]] : index
// CHECK-NEXT:    %[[SIZE:.*]] = arith.maxui %[[A]], %[[ALIGNED]] : index
// CHECK-NEXT:    %[[POOL:.*]] = hip.get_pool(%ctx, %[[SIZE]])
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.view %[[POOL]][%[[C0]]][%d0]
// CHECK:         %b = memref.view %[[POOL]][%[[C0]]][%d1]

// -----

// Same dim, one slab: both views at offset 0. (The seed also drops the rounding
// here, since align_up(8*d, 256) never exceeds 32768*d; xhip.memory keeps the
// maxui with the rounded small footprint, which evaluates to the same size.)
func.func @small_same_dim(%ctx: !hip.context, %x: memref<?x8192xf32>, %y: memref<?x2xf32>, %d: index) {
  %a = memref.alloc(%d) : memref<?x8192xf32>
  hip.relu(%ctx) ins(%x : memref<?x8192xf32>) outs(%a : memref<?x8192xf32>)
  hip.relu(%ctx) ins(%a : memref<?x8192xf32>) outs(%x : memref<?x8192xf32>)
  %b = memref.alloc(%d) : memref<?x2xf32>
  hip.relu(%ctx) ins(%y : memref<?x2xf32>) outs(%b : memref<?x2xf32>)
  hip.relu(%ctx) ins(%b : memref<?x2xf32>) outs(%y : memref<?x2xf32>)
  func.return
}

// CHECK:       hip.pool_size = "max(32768*%d, align_up(8*%d, 256))", {{.*}} hip.buffer_offsets = array<i64: 0, 0>
// CHECK-LABEL: func.func @small_same_dim
// CHECK:         %[[POOL:.*]] = hip.get_pool
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.view %[[POOL]][%[[C0]]][%d]
// CHECK:         %b = memref.view %[[POOL]][%[[C0]]][%d]

// -----

// Co-live, on one dim: two slabs stacked; the small one's width is rounded up
// so that whichever slab comes after it starts aligned.
func.func @small_stacked(%ctx: !hip.context, %x: memref<?x8192xf32>, %y: memref<?x2xf32>, %d: index) {
  %b = memref.alloc(%d) : memref<?x2xf32>
  %a = memref.alloc(%d) : memref<?x8192xf32>
  hip.relu(%ctx) ins(%y : memref<?x2xf32>) outs(%b : memref<?x2xf32>)
  hip.relu(%ctx) ins(%x : memref<?x8192xf32>) outs(%a : memref<?x8192xf32>)
  hip.relu(%ctx) ins(%a : memref<?x8192xf32>) outs(%x : memref<?x8192xf32>)
  hip.relu(%ctx) ins(%b : memref<?x2xf32>) outs(%y : memref<?x2xf32>)
  func.return
}

// CHECK:       hip.pool_size = "32768*%d + align_up(8*%d, 256)"
// CHECK-SAME:  hip.buffer_offsets = array<i64: {{0, -1|-1, 0}}>
// CHECK-LABEL: func.func @small_stacked
// CHECK:         arith.divui
// CHECK:         hip.get_pool
