// RUN: xhip-opt %s -p 'hip-lower-host-visibility{strategy=event}' --split-input-file | filecheck %s

// Strategy event waits for the producer of the read buffer only. A second read
// of the same buffer is then ready; a read of another device-written buffer
// needs its own wait (the first wait said nothing about it).
func.func @two_counts(%ctx: !hip.context, %x: memref<8xf32>, %z: memref<8xf32>) -> (i64, i64, i64) {
  %indices = memref.alloc() : memref<1x8xi64>
  %count = memref.alloc() : memref<i64>
  hip.nonzero(%ctx) ins(%x : memref<8xf32>) outs(%indices, %count : memref<1x8xi64>, memref<i64>)
  %indices2 = memref.alloc() : memref<1x8xi64>
  %count2 = memref.alloc() : memref<i64>
  hip.nonzero(%ctx) ins(%z : memref<8xf32>) outs(%indices2, %count2 : memref<1x8xi64>, memref<i64>)
  %n = memref.load %count[] : memref<i64>
  %again = memref.load %count[] : memref<i64>
  %m = memref.load %count2[] : memref<i64>
  func.return %n, %again, %m : i64, i64, i64
}
// CHECK-LABEL: func.func @two_counts
// CHECK:         %[[V1:.*]] = memref.subview %count[] [] []
// CHECK-NEXT:    %n = hip.readback_scalar(%ctx, %[[V1]]) {wait = "producer"} : memref<i64, strided<[], offset: ?>> -> i64
// CHECK-NEXT:    %again = memref.load %count[] : memref<i64>
// CHECK-NEXT:    %[[V2:.*]] = memref.subview %count2[] [] []
// CHECK-NEXT:    %m = hip.readback_scalar(%ctx, %[[V2]]) {wait = "producer"} : memref<i64, strided<[], offset: ?>> -> i64
