// RUN: xhip-opt %s -p hip-lower-host-visibility --split-input-file | filecheck %s
// RUN: xhip-opt %s -p hip-lower-host-visibility,hip-lower-host-visibility --split-input-file | filecheck %s

// A count a kernel wrote is read back (drain the stream, copy the element);
// a second read of the same data with no device write in between is a plain load.
func.func @count(%ctx: !hip.context, %x: memref<8xf32>) -> (i64, i64) {
  %c0 = arith.constant 0 : index
  %indices = memref.alloc() : memref<1x8xi64>
  %count = memref.alloc() : memref<i64>
  hip.nonzero(%ctx) ins(%x : memref<8xf32>) outs(%indices, %count : memref<1x8xi64>, memref<i64>)
  %n = memref.load %count[] : memref<i64>
  %again = memref.load %count[] : memref<i64>
  func.return %n, %again : i64, i64
}
// CHECK-LABEL: func.func @count
// CHECK:         hip.nonzero
// CHECK-NEXT:    %[[VIEW:.*]] = memref.subview %count[] [] [] : memref<i64> to memref<i64, strided<[], offset: ?>>
// CHECK-NEXT:    %[[N:.*]] = hip.readback_scalar(%ctx, %[[VIEW]]) : memref<i64, strided<[], offset: ?>> -> i64
// CHECK-NEXT:    %[[AGAIN:.*]] = memref.load %count[] : memref<i64>
// CHECK-NEXT:    func.return %[[N]], %[[AGAIN]]

// -----

// Reading an element of a device-written vector reads back that one element.
func.func @element(%ctx: !hip.context, %x: memref<4xi64>, %i: index) -> i64 {
  %y = memref.alloc() : memref<4xi64>
  hip.neg(%ctx) ins(%x : memref<4xi64>) outs(%y : memref<4xi64>)
  %v = memref.load %y[%i] : memref<4xi64>
  func.return %v : i64
}
// CHECK-LABEL: func.func @element
// CHECK:         %[[VIEW:.*]] = memref.subview %y[%i] [1] [1] : memref<4xi64> to memref<1xi64, strided<[?], offset: ?>>
// CHECK-NEXT:    hip.readback_scalar(%ctx, %[[VIEW]]) : memref<1xi64, strided<[?], offset: ?>> -> i64

// -----

// Proven ready, left alone: constants, inputs no kernel writes, host-only buffers.
func.func @ready(%ctx: !hip.context, %x: memref<4xi64>) -> (i64, i64, i64) {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : i64
  %g = memref.get_global @shape : memref<2xi64>
  %a = memref.load %g[%c0] : memref<2xi64>
  %b = memref.load %x[%c0] : memref<4xi64>
  %h = memref.alloc() : memref<1xi64>
  memref.store %c5, %h[%c0] : memref<1xi64>
  %c = memref.load %h[%c0] : memref<1xi64>
  func.return %a, %b, %c : i64, i64, i64
}
"memref.global"() <{sym_name = "shape", sym_visibility = "private", type = memref<2xi64>, initial_value = dense<[2, 3]> : tensor<2xi64>, constant}> : () -> ()
// CHECK-LABEL: func.func @ready
// CHECK-NOT:     hip.readback_scalar
// CHECK:         func.return
