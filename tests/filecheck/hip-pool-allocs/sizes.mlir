// RUN: xhip-opt %s -p hip-pool-allocs --split-input-file | filecheck %s

// Sizes are products of extents: a size operand computed as batch*seq is seen
// through, so a [batch*seq, 256] buffer and a [batch, seq, 256] one have the same
// size and share a slab exactly (not 256*max(%bs, batch*seq)). Dims of graph
// inputs print with their ONNX names.
func.func @products(%ctx: !hip.context, %x: memref<?x?x256xi8> {onnx.dim_params = "0:batch,1:seq"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %x, %c0 : memref<?x?x256xi8>
  %s = memref.dim %x, %c1 : memref<?x?x256xi8>
  %bs = arith.muli %b, %s : index
  %flat = memref.alloc(%bs) : memref<?x256xi8>
  "memref.copy"(%flat, %flat) : (memref<?x256xi8>, memref<?x256xi8>) -> ()
  %full = memref.alloc(%b, %s) : memref<?x?x256xi8>
  "memref.copy"(%full, %full) : (memref<?x?x256xi8>, memref<?x?x256xi8>) -> ()
  func.return
}

// CHECK:       hip.pool_size = "256*batch*seq", {{.*}} hip.buffer_offsets = array<i64: 0, 0>
// CHECK-LABEL: func.func @products
// CHECK:         %[[POOL:.*]] = hip.get_pool
// CHECK:         %flat = memref.view %[[POOL]][%[[C0:.*]]][%bs]
// CHECK:         %full = memref.view %[[POOL]][%[[C0]]][%b, %s]

// -----

// A buffer lives until the last use of any view of it: %a's expand_shape view
// is read after %b is written, so the two are live together and stacked.
func.func @view_extends_life(%ctx: !hip.context, %x: memref<8xf32>, %y: memref<2x4xf32>) {
  %a = memref.alloc() : memref<8xf32>
  hip.relu(%ctx) ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  %b = memref.alloc() : memref<8xf32>
  hip.relu(%ctx) ins(%x : memref<8xf32>) outs(%b : memref<8xf32>)
  hip.relu(%ctx) ins(%v : memref<2x4xf32>) outs(%y : memref<2x4xf32>)
  func.return
}

// CHECK:       hip.pool_size = "512", {{.*}} hip.buffer_offsets = array<i64: 0, 256>

// -----

// A use inside a region counts at the op holding the region: %a is read in the
// loop after %b is written, so they are stacked.
func.func @use_in_region(%ctx: !hip.context, %x: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<8xf32>
  hip.relu(%ctx) ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
  %b = memref.alloc() : memref<8xf32>
  hip.relu(%ctx) ins(%x : memref<8xf32>) outs(%b : memref<8xf32>)
  scf.for %i = %c0 to %n step %c1 {
    hip.add(%ctx) ins(%a, %b : memref<8xf32>, memref<8xf32>) outs(%x : memref<8xf32>)
    scf.yield
  }
  func.return
}

// CHECK:       hip.pool_size = "512", {{.*}} hip.buffer_offsets = array<i64: 0, 256>
