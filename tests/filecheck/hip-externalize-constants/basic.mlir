// RUN: rm -rf %t && mkdir -p %t
// RUN: xhip-opt %s -p 'hip-externalize-constants{externalize-min-num-elements=4 externalize-output-dir="%t"}' | filecheck %s
// The file holds the two large constants at 64-byte aligned offsets: 5 x f32 = 20 bytes, padded to 64, then 4 x i32 = 16 bytes.
// RUN: %python -c "import os, sys; print(os.path.getsize(sys.argv[1]))" %t/model.constants.bin | filecheck %s --check-prefix=SIZE
// RUN: %python -c "import numpy, sys; d = open(sys.argv[1], 'rb').read(); print(numpy.frombuffer(d[:20], numpy.float32).tolist(), numpy.frombuffer(d[64:80], numpy.int32).tolist())" %t/model.constants.bin | filecheck %s --check-prefix=DATA
// Threshold 0 keeps everything inline and writes no file.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xhip-opt %s -p 'hip-externalize-constants{externalize-output-dir="%t"}' | filecheck %s --check-prefix=INLINE
// RUN: %python -c "import os, sys; print(os.listdir(sys.argv[1]))" %t | filecheck %s --check-prefix=NOFILE

func.func @main_graph(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<2x2xi32>, tensor<f32>) {
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %i = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %s = arith.constant dense<0.125> : tensor<f32>
  func.return %w, %i, %s : tensor<5xf32>, tensor<2x2xi32>, tensor<f32>
}

// CHECK:      builtin.module attributes {hip.constants_file = "model.constants.bin"}
// CHECK-NEXT:   "memref.global"() <{sym_name = "hip_ext_constant_0", type = memref<5xf32>, initial_value, sym_visibility = "private", alignment = 64 : i64}> {hip.external_data = {index = 0 : i64, offset = 0 : i64, size = 20 : i64}} : () -> ()
// CHECK-NEXT:   "memref.global"() <{sym_name = "hip_ext_constant_1", type = memref<2x2xi32>, initial_value, sym_visibility = "private", alignment = 64 : i64}> {hip.external_data = {index = 1 : i64, offset = 64 : i64, size = 16 : i64}} : () -> ()
// CHECK-LABEL:  func.func @main_graph
// CHECK-NEXT:     %[[G0:.*]] = memref.get_global @hip_ext_constant_0 : memref<5xf32>
// CHECK-NEXT:     %[[W:.*]] = bufferization.to_tensor %[[G0]] restrict : memref<5xf32> to tensor<5xf32>
// CHECK-NEXT:     %[[G1:.*]] = memref.get_global @hip_ext_constant_1 : memref<2x2xi32>
// CHECK-NEXT:     %[[I:.*]] = bufferization.to_tensor %[[G1]] restrict : memref<2x2xi32> to tensor<2x2xi32>
// CHECK-NEXT:     %[[S:.*]] = arith.constant dense<1.250000e-01> : tensor<f32>
// CHECK-NEXT:     func.return %[[W]], %[[I]], %[[S]]

// SIZE: 80
// DATA: [1.0, 2.0, 3.0, 4.0, 5.0] [1, 2, 3, 4]

// INLINE-NOT: memref.global
// INLINE:     arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<5xf32>
// INLINE-NOT: hip.constants_file
// NOFILE: []
