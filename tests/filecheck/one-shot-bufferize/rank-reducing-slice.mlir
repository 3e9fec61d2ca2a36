// RUN: xhip-opt %s -p one-shot-bufferize | filecheck %s

// A rank-reducing slice drops only unit dims, and a leading 1 is dropped rather
// than taken for the result's `?`: the row %i of %x keeps dim 1, so the view's
// stride is dim 1's (1), not the row stride of dim 0.
func.func @row(%ctx: !hip.context, %x: tensor<?x?xf32>, %i: index, %n: index) -> tensor<?xf32> {
  %s = tensor.extract_slice %x[%i, 0] [1, %n] [1, 1] : tensor<?x?xf32> to tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = hip.relu(%ctx) ins(%s : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// CHECK-LABEL: func.func @row
// CHECK:         memref.subview %x[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
