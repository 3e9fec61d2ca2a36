// With -o, the constants file is named after the output and written beside it; the
// module records its name (relative to the IR file), size and SHA-256.
// RUN: rm -rf %t && mkdir -p %t/sub
// RUN: xhip-opt %s -p 'hip-externalize-constants{externalize-min-num-elements=4}' -o %t/sub/out.mlir
// RUN: filecheck %s --input-file %t/sub/out.mlir
// The file holds the two large constants at 64-byte aligned offsets: 5 x f32 = 20 bytes, padded to 64, then 4 x i32 = 16 bytes.
// RUN: %python -c "import os, sys; print(os.path.getsize(sys.argv[1]))" %t/sub/out.constants.bin | filecheck %s --check-prefix=SIZE
// RUN: %python -c "import numpy, sys; d = open(sys.argv[1], 'rb').read(); print(numpy.frombuffer(d[:20], numpy.float32).tolist(), numpy.frombuffer(d[64:80], numpy.int32).tolist())" %t/sub/out.constants.bin | filecheck %s --check-prefix=DATA
// RUN: %python -c "import os, sys; print(sorted(os.listdir(sys.argv[1])))" %t/sub | filecheck %s --check-prefix=BESIDE
// To stdout, the file is named by its content, in externalize-output-dir (default: the current directory).
// RUN: xhip-opt %s -p 'hip-externalize-constants{externalize-min-num-elements=4 externalize-output-dir="%t/sub"}' | filecheck %s --check-prefix=STDOUT
// RUN: %python -c "import os, sys; print(sorted(os.listdir(sys.argv[1])))" %t/sub | filecheck %s --check-prefix=NAMED
// Threshold 0 keeps everything inline and writes no file.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xhip-opt %s -p 'hip-externalize-constants' -o %t/inline.mlir
// RUN: filecheck %s --check-prefix=INLINE --input-file %t/inline.mlir
// RUN: %python -c "import os, sys; print(os.listdir(sys.argv[1]))" %t | filecheck %s --check-prefix=NOFILE
// A command that fails (here: its -o cannot be written) writes no constants file.
// RUN: not xhip-opt %s -p 'hip-externalize-constants{externalize-min-num-elements=4}' -o %t/missing/out.mlir 2>&1 | filecheck %s --check-prefix=UNWRITABLE
// RUN: %python -c "import os, sys; print(os.listdir(sys.argv[1]))" %t | filecheck %s --check-prefix=STILL

func.func @main_graph(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<2x2xi32>, tensor<f32>) {
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %i = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %s = arith.constant dense<0.125> : tensor<f32>
  func.return %w, %i, %s : tensor<5xf32>, tensor<2x2xi32>, tensor<f32>
}

// CHECK:      builtin.module attributes {hip.constants_file = "out.constants.bin", hip.constants_size = 80 : i64, hip.constants_sha256 = "fa77cbb662b70044f438f819a2624a21fc85b1e1725edf0d7303a468153779b7"}
// CHECK-NEXT:   "memref.global"() <{sym_name = "hip_ext_constant_0", type = memref<5xf32>, initial_value, sym_visibility = "private", alignment = 64 : i64}> {hip.external_data = {index = 0 : i64, offset = 0 : i64, size = 20 : i64}} : () -> ()
// CHECK-NEXT:   "memref.global"() <{sym_name = "hip_ext_constant_1", type = memref<2x2xi32>, initial_value, sym_visibility = "private", alignment = 64 : i64}> {hip.external_data = {index = 1 : i64, offset = 64 : i64, size = 16 : i64}} : () -> ()
// CHECK-LABEL:  func.func @main_graph
// CHECK-NEXT:     %[[G0:.*]] = memref.get_global @hip_ext_constant_0 : memref<5xf32>
// CHECK-NEXT:     %[[W:.*]] = bufferization.to_tensor %[[G0]] restrict : memref<5xf32> to tensor<5xf32>
// CHECK-NEXT:     %[[G1:.*]] = memref.get_global @hip_ext_constant_1 : memref<2x2xi32>
// CHECK-NEXT:     %[[I:.*]] = bufferization.to_tensor %[[G1]] restrict : memref<2x2xi32> to tensor<2x2xi32>
// CHECK-NEXT:     %[[S:.*]] = arith.constant dense<1.250000e-01> : tensor<f32>
// CHECK-NEXT:     func.return %[[W]], %[[I]], %[[S]]

// STDOUT: builtin.module attributes {hip.constants_file = "{{.*}}/sub/basic.fa77cbb662b70044.constants.bin", hip.constants_size = 80 : i64

// SIZE: 80
// DATA: [1.0, 2.0, 3.0, 4.0, 5.0] [1, 2, 3, 4]

// INLINE-NOT: memref.global
// INLINE:     arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<5xf32>
// INLINE-NOT: hip.constants_file
// NOFILE: ['inline.mlir']
// BESIDE: ['out.constants.bin', 'out.mlir']
// NAMED: ['basic.fa77cbb662b70044.constants.bin', 'out.constants.bin', 'out.mlir']
// UNWRITABLE: {{.*}}missing/out.mlir: error: cannot write output: no such directory
// STILL: ['inline.mlir']
