// RUN: xhip-opt %s -p hip-pool-allocs --split-input-file | filecheck %s
// RUN: xhip-opt %s -p 'hip-pool-allocs{alignment=64}' --split-input-file | filecheck %s --check-prefix=ALIGN64
// RUN: xhip-opt %s -p hip-pool-allocs,hip-pool-allocs --split-input-file | filecheck %s

// Two 256-byte buffers live together: 512 bytes, views at the constant offsets 0
// and 256. The module records the plan.
func.func @static_two_allocs(%ctx: !hip.context, %x: memref<8x8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  %b = memref.alloc() : memref<8x8xf32>
  hip.relu(%ctx) ins(%x : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  hip.add(%ctx) ins(%a, %x : memref<8x8xf32>, memref<8x8xf32>) outs(%b : memref<8x8xf32>)
  hip.relu(%ctx) ins(%b : memref<8x8xf32>) outs(%x : memref<8x8xf32>)
  func.return
}

// CHECK:       builtin.module attributes {hip.pool_alignment = 256 : i64, hip.pool_size = "512", hip.pool_sizes = ["512"], hip.domain_count = 1 : i64, hip.buffer_count = 2 : i64, hip.buffer_offsets = array<i64: 0, 256>, hip.buffer_domains = array<i64: 0, 0>, hip.domain_pools = array<i64: 0>, hip.pool_buffers = {static_two_allocs = {sizes = ["256", "256"], offsets = ["0", "256"], intervals = array<i64: 0, 3, 1, 4>, domains = array<i64: 0, 0>}}}
// CHECK-LABEL: func.func @static_two_allocs
// CHECK-NEXT:    %[[SIZE:.*]] = arith.constant 512 : index
// CHECK-NEXT:    %[[POOL:.*]] = hip.get_pool(%ctx, %[[SIZE]]) : memref<?xi8>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %a = memref.view %[[POOL]][%[[C0]]][] : memref<?xi8> to memref<8x8xf32>
// CHECK-NEXT:    %b = memref.view %[[POOL]][%[[C256]]][] : memref<?xi8> to memref<8x8xf32>
// CHECK-NOT:     memref.alloc

// With 64-byte alignment the offsets only move if the buffer is smaller; here not.
// ALIGN64: hip.pool_alignment = 64 : i64, hip.pool_size = "512"

// -----

// A chain: %a is dead once %b is written, so %c takes its place.
func.func @static_chain(%ctx: !hip.context, %x: memref<8x8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  hip.relu(%ctx) ins(%x : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  %b = memref.alloc() : memref<8x8xf32>
  hip.relu(%ctx) ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>)
  %c = memref.alloc() : memref<8x8xf32>
  hip.relu(%ctx) ins(%b : memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  hip.relu(%ctx) ins(%c : memref<8x8xf32>) outs(%x : memref<8x8xf32>)
  func.return
}

// CHECK:       hip.pool_size = "512"
// CHECK-SAME:  hip.buffer_offsets = array<i64: [[OA:[0-9]+]], [[OB:[0-9]+]], [[OA]]>
// CHECK-LABEL: func.func @static_chain
// CHECK:         hip.get_pool
// CHECK-NOT:     memref.alloc

// -----

// Alignment: two co-live 4-byte buffers take one aligned slot each.
func.func @alignment(%ctx: !hip.context, %x: memref<1xf32>) {
  %a = memref.alloc() : memref<1xf32>
  %b = memref.alloc() : memref<1xf32>
  hip.relu(%ctx) ins(%x : memref<1xf32>) outs(%a : memref<1xf32>)
  hip.add(%ctx) ins(%a, %x : memref<1xf32>, memref<1xf32>) outs(%b : memref<1xf32>)
  hip.relu(%ctx) ins(%b : memref<1xf32>) outs(%x : memref<1xf32>)
  func.return
}

// CHECK:       hip.pool_size = "512"
// CHECK-SAME:  hip.buffer_offsets = array<i64: 0, 256>
// ALIGN64:     hip.pool_alignment = 64 : i64, hip.pool_size = "128"
// ALIGN64-SAME: hip.buffer_offsets = array<i64: 0, 64>

// -----

// One allocation is pooled too; its written deallocation goes (the pool owns the
// bytes) and none is added. A buffer nobody uses is dropped with its dealloc.
func.func @single_with_dealloc(%ctx: !hip.context, %x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %unused = memref.alloc() : memref<64xf32>
  hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  hip.relu(%ctx) ins(%a : memref<4xf32>) outs(%x : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %unused : memref<64xf32>
  func.return
}

// CHECK:       hip.pool_size = "256", {{.*}} hip.buffer_count = 1 : i64
// CHECK-LABEL: func.func @single_with_dealloc
// CHECK:         %[[POOL:.*]] = hip.get_pool
// CHECK:         %a = memref.view %[[POOL]]
// CHECK-NEXT:    hip.relu
// CHECK-NEXT:    hip.relu
// CHECK-NEXT:    func.return

// -----

// Nothing to pool: no pool, no attributes. A returned buffer belongs to the
// caller, so it is never a pool view (hip-lower-allocs allocates it).
func.func @returned(%ctx: !hip.context, %x: memref<4xf32>) -> memref<2x2xf32> {
  %a = memref.alloc() : memref<4xf32>
  hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  func.return %v : memref<2x2xf32>
}

// CHECK:       builtin.module {
// CHECK-NEXT:    func.func @returned
// CHECK-NEXT:      %a = memref.alloc() : memref<4xf32>
// CHECK-NOT:       hip.get_pool
