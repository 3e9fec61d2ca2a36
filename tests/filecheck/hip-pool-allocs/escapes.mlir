// RUN: xhip-opt %s -p hip-pool-allocs --split-input-file | filecheck %s

// A buffer whose bytes are carved up by memref.view is not pooled: the view is
// a new root for liveness, so the buffer's interval would end at the view and
// %b, written while %part is still read, would be packed over the same bytes.
// It stays a memref.alloc (hip-lower-allocs frees it after its last use).
func.func @carved(%ctx: !hip.context, %x: memref<16xf32>) {
  %carved = memref.alloc() : memref<64xi8>
  %c0 = arith.constant 0 : index
  %part = memref.view %carved[%c0][] : memref<64xi8> to memref<16xf32>
  hip.relu(%ctx) ins(%x : memref<16xf32>) outs(%part : memref<16xf32>)
  %b = memref.alloc() : memref<16xf32>
  hip.relu(%ctx) ins(%x : memref<16xf32>) outs(%b : memref<16xf32>)
  hip.add(%ctx) ins(%part, %b : memref<16xf32>, memref<16xf32>) outs(%x : memref<16xf32>)
  func.return
}

// CHECK:       hip.buffer_count = 1 : i64
// CHECK-LABEL: func.func @carved
// CHECK:         %carved = memref.alloc() : memref<64xi8>
// CHECK:         %part = memref.view %carved
// CHECK:         hip.get_pool
// CHECK:         %b = memref.view

// -----

// A buffer that leaves through a region's terminator is not pooled either: it
// lives on after the region, where liveness no longer sees it.
func.func @yielded(%ctx: !hip.context, %x: memref<16xf32>, %flag: i1) {
  %a = memref.alloc() : memref<16xf32>
  hip.relu(%ctx) ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  %r = scf.if %flag -> (memref<16xf32>) {
    scf.yield %a : memref<16xf32>
  } else {
    scf.yield %x : memref<16xf32>
  }
  %b = memref.alloc() : memref<16xf32>
  hip.relu(%ctx) ins(%x : memref<16xf32>) outs(%b : memref<16xf32>)
  hip.add(%ctx) ins(%r, %b : memref<16xf32>, memref<16xf32>) outs(%x : memref<16xf32>)
  func.return
}

// CHECK:       hip.buffer_count = 1 : i64
// CHECK-LABEL: func.func @yielded
// CHECK:         %a = memref.alloc() : memref<16xf32>
// CHECK:         hip.get_pool
// CHECK:         %b = memref.view
