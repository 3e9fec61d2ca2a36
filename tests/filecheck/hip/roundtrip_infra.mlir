// RUN: xhip-opt %s | xhip-opt | filecheck %s
// RUN: xhip-opt %s --print-op-generic | xhip-opt | filecheck %s
// RUN: xhip-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Buffer management, constants and readbacks, as the memory-planning and
// host-visibility passes emit them.

func.func @buffers(%ctx: !hip.context, %n: index, %m: index) {
  %a = hip.alloc(%ctx) : memref<4xf32>
  %b = hip.alloc(%ctx, %n, %m) : memref<?x8x?xf16>
  %c = hip.alloc(%ctx, %n) {alignment_hint} : memref<?xi64, 1>
  hip.free(%ctx, %b) : memref<?x8x?xf16>
  hip.free(%ctx, %c) : memref<?xi64, 1>
  %pool = hip.get_pool(%ctx, %n) : memref<?xi8>
  %pool2 = hip.get_pool(%ctx, %m) {domain_id = 2 : i64} : memref<?xi8>
  %scratch = hip.get_host_scratch(%ctx, %m) : memref<?xi8>
  %out0 = hip.alloc_output(%ctx, %n) {out_idx = 0 : i64} : memref<?x4xf32>
  %out1 = hip.alloc_output(%ctx) {out_idx = 1 : i64} : memref<i64>
  func.return
}
// CHECK-LABEL: func.func @buffers(%ctx: !hip.context, %n: index, %m: index) {
// CHECK-NEXT:    %a = hip.alloc(%ctx) : memref<4xf32>
// CHECK-NEXT:    %b = hip.alloc(%ctx, %n, %m) : memref<?x8x?xf16>
// CHECK-NEXT:    %c = hip.alloc(%ctx, %n) {alignment_hint} : memref<?xi64, 1 : i64>
// CHECK-NEXT:    hip.free(%ctx, %b) : memref<?x8x?xf16>
// CHECK-NEXT:    hip.free(%ctx, %c) : memref<?xi64, 1 : i64>
// CHECK-NEXT:    %pool = hip.get_pool(%ctx, %n) : memref<?xi8>
// CHECK-NEXT:    %pool2 = hip.get_pool(%ctx, %m) {domain_id = 2 : i64} : memref<?xi8>
// CHECK-NEXT:    %scratch = hip.get_host_scratch(%ctx, %m) : memref<?xi8>
// CHECK-NEXT:    %out0 = hip.alloc_output(%ctx, %n) {out_idx = 0 : i64} : memref<?x4xf32>
// CHECK-NEXT:    %out1 = hip.alloc_output(%ctx) {out_idx = 1 : i64} : memref<i64>
// CHECK-NEXT:    func.return

// The generic form spells every property, the default domain too.
// GENERIC-LABEL: "func.func"() <{sym_name = "buffers"
// GENERIC:       "hip.alloc"(%ctx, %n, %m) : (!hip.context, index, index) -> memref<?x8x?xf16>
// GENERIC:       "hip.free"(%ctx, %b) : (!hip.context, memref<?x8x?xf16>) -> ()
// GENERIC:       "hip.get_pool"(%ctx, %n) <{domain_id = 0 : i64}> : (!hip.context, index) -> memref<?xi8>
// GENERIC:       "hip.get_host_scratch"(%ctx, %m) : (!hip.context, index) -> memref<?xi8>
// GENERIC:       "hip.alloc_output"(%ctx, %n) <{out_idx = 0 : i64}> : (!hip.context, index) -> memref<?x4xf32>

// An explicit default domain is elided when printing.
func.func @default_domain(%ctx: !hip.context, %n: index) -> memref<?xi8> {
  %pool = hip.get_pool(%ctx, %n) {domain_id = 0 : i64} : memref<?xi8>
  func.return %pool : memref<?xi8>
}
// CHECK-LABEL: func.func @default_domain
// CHECK-NEXT:    %pool = hip.get_pool(%ctx, %n) : memref<?xi8>

func.func @constants_and_readbacks(%ctx: !hip.context, %i: i64, %cnt: memref<i32>, %n64: memref<1xi64>, %h: memref<1x1xf16>, %t: tensor<i64>, %ti: tensor<1xindex>) {
  %w = hip.get_constant(%ctx, %i) : memref<64x64xf32>
  %s = hip.get_constant(%ctx, %i) : memref<f32>
  %v = hip.readback_scalar(%ctx, %n64) : memref<1xi64> -> i64
  %vi = hip.readback_scalar(%ctx, %n64) : memref<1xi64> -> index
  %vh = hip.readback_scalar(%ctx, %h) : memref<1x1xf16> -> f16
  %vt = hip.readback_scalar(%ctx, %t) : tensor<i64> -> i64
  %vx = hip.readback_scalar(%ctx, %ti) : tensor<1xindex> -> index
  %d = hip.readback_dim(%ctx, %cnt) : memref<i32> -> index
  %d64 = hip.readback_dim(%ctx, %n64) : memref<1xi64> -> index
  %dt = hip.readback_dim(%ctx, %t) : tensor<i64> -> index
  func.return
}
// CHECK-LABEL: func.func @constants_and_readbacks
// CHECK-NEXT:    %w = hip.get_constant(%ctx, %i) : memref<64x64xf32>
// CHECK-NEXT:    %s = hip.get_constant(%ctx, %i) : memref<f32>
// CHECK-NEXT:    %v = hip.readback_scalar(%ctx, %n64) : memref<1xi64> -> i64
// CHECK-NEXT:    %vi = hip.readback_scalar(%ctx, %n64) : memref<1xi64> -> index
// CHECK-NEXT:    %vh = hip.readback_scalar(%ctx, %h) : memref<1x1xf16> -> f16
// CHECK-NEXT:    %vt = hip.readback_scalar(%ctx, %t) : tensor<i64> -> i64
// CHECK-NEXT:    %vx = hip.readback_scalar(%ctx, %ti) : tensor<1xindex> -> index
// CHECK-NEXT:    %d = hip.readback_dim(%ctx, %cnt) : memref<i32> -> index
// CHECK-NEXT:    %d64 = hip.readback_dim(%ctx, %n64) : memref<1xi64> -> index
// CHECK-NEXT:    %dt = hip.readback_dim(%ctx, %t) : tensor<i64> -> index
// CHECK-NEXT:    func.return
