// RUN: xhip-opt %s -p hip-pool-allocs --split-input-file | filecheck %s

// A size read from memory (a host load: not speculatable) after the first
// allocation cannot be computed where the first pool is: %b opens domain 1,
// whose pool comes after the load. %a is still read after %b is written, so the
// two domains draw from two pools.
func.func @late_load(%ctx: !hip.context, %x: memref<?xf32>, %n: index, %count: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc(%n) : memref<?xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  %m = memref.load %count[%c0] : memref<1xindex>
  %b = memref.alloc(%m) : memref<?xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%b : memref<?xf32>)
  hip.relu(%ctx) ins(%a : memref<?xf32>) outs(%a : memref<?xf32>)
  func.return
}

// CHECK:       hip.domain_count = 2 : i64, hip.buffer_count = 2 : i64, hip.buffer_offsets = array<i64: 0, 0>, hip.buffer_domains = array<i64: 0, 1>, hip.domain_pools = array<i64: 0, 1>
// CHECK-LABEL: func.func @late_load
// CHECK:         %[[P0:.*]] = hip.get_pool(%ctx, %{{.*}}) : memref<?xi8>
// CHECK:         %a = memref.view %[[P0]]
// CHECK-NEXT:    hip.relu
// CHECK-NEXT:    %m = memref.load %count[%c0] : memref<1xindex>
// CHECK:         %[[P1:.*]] = hip.get_pool(%ctx, %{{.*}}) {domain_id = 1 : i64} : memref<?xi8>
// CHECK:         %b = memref.view %[[P1]][%{{.*}}][%m]

// -----

// When every buffer of the first pool is dead before the late domain starts, the
// late domain draws from that pool (`domain_id` names the pool): the runtime gives
// both the same bytes, grown to the larger, rather than a second pool.
func.func @late_load_after_the_first_pool_dies(%ctx: !hip.context, %x: memref<?xf32>, %n: index, %count: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc(%n) : memref<?xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  %m = memref.load %count[%c0] : memref<1xindex>
  %b = memref.alloc(%m) : memref<?xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%b : memref<?xf32>)
  func.return
}

// CHECK:       hip.domain_count = 2 : i64, {{.*}} hip.buffer_domains = array<i64: 0, 1>, hip.domain_pools = array<i64: 0, 0>
// CHECK-LABEL: func.func @late_load_after_the_first_pool_dies
// CHECK:         %[[Q0:.*]] = hip.get_pool(%ctx, %{{.*}}) : memref<?xi8>
// CHECK:         %m = memref.load %count[%c0] : memref<1xindex>
// CHECK:         %[[Q1:.*]] = hip.get_pool(%ctx, %{{.*}}) : memref<?xi8>
// CHECK:         %b = memref.view %[[Q1]][%{{.*}}][%m]

// -----

// Pure size arithmetic defined after the first allocation moves above the pool
// instead: one domain. Its other users still see it defined before them.
func.func @pure_arith_moves(%ctx: !hip.context, %x: memref<?xf32>, %n: index) -> index {
  %a = memref.alloc(%n) : memref<?xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  %c2 = arith.constant 2 : index
  %twice = arith.muli %n, %c2 : index
  %b = memref.alloc(%twice) : memref<?xf32>
  hip.relu(%ctx) ins(%a : memref<?xf32>) outs(%b : memref<?xf32>)
  func.return %twice : index
}

// CHECK:       hip.domain_count = 1 : i64
// CHECK-LABEL: func.func @pure_arith_moves
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %twice = arith.muli %n, %c2 : index
// CHECK:         hip.get_pool
// CHECK-NOT:     hip.get_pool
// CHECK:         func.return %twice

// -----

// Each late load opens a domain: three pools. A static allocation after the
// second load joins the newest domain.
func.func @three_domains(%ctx: !hip.context, %x: memref<?xf32>, %n: index, %count: memref<2xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc(%n) : memref<?xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  %m = memref.load %count[%c0] : memref<2xindex>
  %b = memref.alloc(%m) : memref<?xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%b : memref<?xf32>)
  %k = memref.load %count[%c1] : memref<2xindex>
  %k1 = arith.addi %k, %c1 : index
  %c = memref.alloc(%k1) : memref<?xf32>
  %s = memref.alloc() : memref<16xf32>
  hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%c : memref<?xf32>)
  hip.relu(%ctx) ins(%s : memref<16xf32>) outs(%s : memref<16xf32>)
  func.return
}

// Each domain's buffers are dead before the next one starts: all three draw from pool 0.
// CHECK:       hip.domain_count = 3 : i64, hip.buffer_count = 4 : i64, {{.*}} hip.buffer_domains = array<i64: 0, 1, 2, 2>, hip.domain_pools = array<i64: 0, 0, 0>
// CHECK-LABEL: func.func @three_domains
// CHECK:         hip.get_pool(%ctx, %{{.*}}) : memref<?xi8>
// CHECK:         %m = memref.load
// CHECK:         hip.get_pool(%ctx, %{{.*}}) : memref<?xi8>
// CHECK:         %k1 = arith.addi %k, %c1 : index
// CHECK:         hip.get_pool(%ctx, %{{.*}}) : memref<?xi8>
// CHECK:         %c = memref.view
// CHECK-NEXT:    %s = memref.view
