// RUN: xhip-opt %s -p 'hip-pool-allocs{lifetime-only=false}' --split-input-file | filecheck %s
// RUN: xhip-opt %s -p 'hip-pool-allocs{planner=grouped}' --split-input-file | filecheck %s

// Seed 001's fallback (lifetime-only=false): allocations with the same dynamic
// size operands form a group packed by static factor. Disjoint 32768 and 16384
// per row of %d: the group is 32768*d wide, both at offset 0.
func.func @disjoint_one_dim(%ctx: !hip.context, %x: memref<?x8192xf32>, %y: memref<?x4096xf32>, %d: index) {
  %a = memref.alloc(%d) : memref<?x8192xf32>
  hip.relu(%ctx) ins(%x : memref<?x8192xf32>) outs(%a : memref<?x8192xf32>)
  hip.relu(%ctx) ins(%a : memref<?x8192xf32>) outs(%x : memref<?x8192xf32>)
  %b = memref.alloc(%d) : memref<?x4096xf32>
  hip.relu(%ctx) ins(%y : memref<?x4096xf32>) outs(%b : memref<?x4096xf32>)
  hip.relu(%ctx) ins(%b : memref<?x4096xf32>) outs(%y : memref<?x4096xf32>)
  func.return
}

// CHECK:       hip.pool_size = "32768*%d", {{.*}} hip.buffer_offsets = array<i64: 0, 0>
// CHECK-LABEL: func.func @disjoint_one_dim
// CHECK-NEXT:    %[[C:.*]] = arith.constant 32768 : index
// CHECK-NEXT:    %[[SIZE:.*]] = arith.muli %d, %[[C]] : index
// CHECK-NEXT:    %[[POOL:.*]] = hip.get_pool(%ctx, %[[SIZE]]) : memref<?xi8>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.view %[[POOL]][%[[C0]]][%d]
// CHECK:         %b = memref.view %[[POOL]][%[[C0]]][%d]

// -----

// A (32768/row) is disjoint from B and C (16384/row each), which overlap: the
// span stays 32768 (not 49152), A and B at 0, C at 16384*d.
func.func @span_stays(%ctx: !hip.context, %x: memref<?x8192xf32>, %y: memref<?x4096xf32>, %d: index) {
  %a = memref.alloc(%d) : memref<?x8192xf32>
  hip.relu(%ctx) ins(%x : memref<?x8192xf32>) outs(%a : memref<?x8192xf32>)
  hip.relu(%ctx) ins(%a : memref<?x8192xf32>) outs(%x : memref<?x8192xf32>)
  %b = memref.alloc(%d) : memref<?x4096xf32>
  %c = memref.alloc(%d) : memref<?x4096xf32>
  hip.relu(%ctx) ins(%y : memref<?x4096xf32>) outs(%b : memref<?x4096xf32>)
  hip.relu(%ctx) ins(%b : memref<?x4096xf32>) outs(%c : memref<?x4096xf32>)
  hip.relu(%ctx) ins(%c : memref<?x4096xf32>) outs(%y : memref<?x4096xf32>)
  func.return
}

// CHECK:       hip.pool_size = "32768*%d", {{.*}} hip.buffer_offsets = array<i64: 0, 0, -1>
// CHECK-LABEL: func.func @span_stays
// CHECK:         %[[POOL:.*]] = hip.get_pool
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C16K:.*]] = arith.constant 16384 : index
// CHECK-NEXT:    %[[OFF:.*]] = arith.muli %d, %[[C16K]] : index
// CHECK-NEXT:    %a = memref.view %[[POOL]][%[[C0]]][%d]
// CHECK:         %b = memref.view %[[POOL]][%[[C0]]][%d]
// CHECK-NEXT:    %c = memref.view %[[POOL]][%[[OFF]]][%d]

// -----

// Different dims are different groups, which still share a slab when never
// live together (the same coloring as lifetime-only).
func.func @different_dims(%ctx: !hip.context, %x: memref<?x8192xf32>, %y: memref<?x4096xf32>, %d0: index, %d1: index) {
  %a = memref.alloc(%d0) : memref<?x8192xf32>
  hip.relu(%ctx) ins(%x : memref<?x8192xf32>) outs(%a : memref<?x8192xf32>)
  hip.relu(%ctx) ins(%a : memref<?x8192xf32>) outs(%x : memref<?x8192xf32>)
  %b = memref.alloc(%d1) : memref<?x4096xf32>
  hip.relu(%ctx) ins(%y : memref<?x4096xf32>) outs(%b : memref<?x4096xf32>)
  hip.relu(%ctx) ins(%b : memref<?x4096xf32>) outs(%y : memref<?x4096xf32>)
  func.return
}

// CHECK:       hip.pool_size = "16384*max(2*%d0, %d1)", {{.*}} hip.buffer_offsets = array<i64: 0, 0>
// CHECK-LABEL: func.func @different_dims
// CHECK:         arith.maxui
