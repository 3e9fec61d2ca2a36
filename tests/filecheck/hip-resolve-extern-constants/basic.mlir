// RUN: xhip-opt %s -p hip-resolve-extern-constants --split-input-file | filecheck %s
// RUN: xhip-opt %s -p hip-resolve-extern-constants,hip-resolve-extern-constants --split-input-file | filecheck %s

// Reads of externalized globals become hip.get_constant of their index; the
// globals go, the file's name, size and checksum stay, and the file layout becomes
// module attributes indexed by constant index. Ordinary globals are left alone.
builtin.module attributes {hip.constants_file = "model.constants.bin", hip.constants_size = 80 : i64, hip.constants_sha256 = "fa77cbb662b70044f438f819a2624a21fc85b1e1725edf0d7303a468153779b7"} {
  "memref.global"() <{sym_name = "hip_ext_constant_1", type = memref<2x2xi32>, initial_value, sym_visibility = "private", alignment = 64 : i64}> {hip.external_data = {index = 1 : i64, offset = 64 : i64, size = 16 : i64}} : () -> ()
  "memref.global"() <{sym_name = "hip_ext_constant_0", type = memref<5xf32>, initial_value, sym_visibility = "private", alignment = 64 : i64}> {hip.external_data = {index = 0 : i64, offset = 0 : i64, size = 20 : i64}} : () -> ()
  "memref.global"() <{sym_name = "scale", type = memref<f32>, initial_value = dense<1.250000e-01> : tensor<f32>, sym_visibility = "private", constant}> : () -> ()
  func.func @main_graph(%ctx: !hip.context, %x: memref<5xf32>) -> memref<5xf32> {
    %w = memref.get_global @hip_ext_constant_0 : memref<5xf32>
    %i = memref.get_global @hip_ext_constant_1 : memref<2x2xi32>
    %s = memref.get_global @scale : memref<f32>
    %w2 = memref.get_global @hip_ext_constant_0 : memref<5xf32>
    %out = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<5xf32>
    hip.add(%ctx) ins(%x, %w : memref<5xf32>, memref<5xf32>) outs(%out : memref<5xf32>)
    hip.mul(%ctx) ins(%out, %w2 : memref<5xf32>, memref<5xf32>) outs(%out : memref<5xf32>)
    func.return %out : memref<5xf32>
  }
}

// CHECK:       builtin.module attributes {hip.constants_file = "model.constants.bin", hip.constants_size = 80 : i64, hip.constants_sha256 = "fa77cbb662b70044f438f819a2624a21fc85b1e1725edf0d7303a468153779b7", hip.constant_offsets = array<i64: 0, 64>, hip.constant_sizes = array<i64: 20, 16>} {
// CHECK-NOT:     hip_ext_constant
// CHECK:         "memref.global"() <{sym_name = "scale"
// CHECK-LABEL:   func.func @main_graph
// CHECK-NEXT:      %[[I0:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      %w = hip.get_constant(%ctx, %[[I0]]) : memref<5xf32>
// CHECK-NEXT:      %[[I1:.*]] = arith.constant 1 : i64
// CHECK-NEXT:      %i = hip.get_constant(%ctx, %[[I1]]) : memref<2x2xi32>
// CHECK-NEXT:      %s = memref.get_global @scale : memref<f32>
// CHECK-NEXT:      %[[I2:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      %w2 = hip.get_constant(%ctx, %[[I2]]) : memref<5xf32>

// -----

// It works at the tensor stage too: the constant feeds bufferization.to_tensor
// as the global did. An index no global uses is recorded as -1.
builtin.module attributes {hip.constants_file = "m.constants.bin"} {
  "memref.global"() <{sym_name = "hip_ext_constant_2", type = memref<4xf32>, initial_value, sym_visibility = "private", alignment = 64 : i64}> {hip.external_data = {index = 2 : i64, offset = 128 : i64, size = 16 : i64}} : () -> ()
  func.func @main_graph(%ctx: !hip.context) -> tensor<4xf32> {
    %g = memref.get_global @hip_ext_constant_2 : memref<4xf32>
    %t = bufferization.to_tensor %g restrict : memref<4xf32> to tensor<4xf32>
    func.return %t : tensor<4xf32>
  }
}

// CHECK:       hip.constant_offsets = array<i64: -1, -1, 128>, hip.constant_sizes = array<i64: -1, -1, 16>
// CHECK:         %[[I:.*]] = arith.constant 2 : i64
// CHECK-NEXT:    %g = hip.get_constant(%ctx, %[[I]]) : memref<4xf32>
// CHECK-NEXT:    %t = bufferization.to_tensor %g restrict : memref<4xf32> to tensor<4xf32>
