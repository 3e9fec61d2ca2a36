// RUN: xhip-opt %s -p hip-use-output-allocator | filecheck %s

// The runtime owns graph outputs: when a returned allocation becomes the
// output, its deallocations go, also those of a view of it (the shared
// contract erases them through views, as pooling and host scratch do).
func.func @main(%ctx: !hip.context, %x: memref<8xf32>) -> memref<8xf32> {
  %y = memref.alloc() : memref<8xf32>
  %half = memref.subview %y[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  hip.relu(%ctx) ins(%x : memref<8xf32>) outs(%y : memref<8xf32>)
  memref.dealloc %half : memref<4xf32, strided<[1]>>
  func.return %y : memref<8xf32>
}

// CHECK-LABEL: func.func @main
// CHECK:         %{{.*}} = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<8xf32>
// CHECK-NOT:     memref.dealloc
// CHECK:         func.return
