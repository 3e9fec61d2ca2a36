// RUN: xhip-opt %s -p hip-pool-allocs | filecheck %s
// RUN: xhip-opt %s -p 'hip-pool-allocs{lifetime-only=false}' | filecheck %s
// RUN: xhip-opt %s -p 'hip-pool-allocs{planner=tree}' | filecheck %s
// RUN: xhip-opt %s -p hip-pool-allocs | filecheck %s --check-prefix=SIZE
// RUN: xhip-opt %s -p 'hip-pool-allocs{lifetime-only=false}' | filecheck %s --check-prefix=GROUPED

// The attention model of seed 003 after hip-optimize-memrefs (its pass 15):
// six dynamic buffers, softmax writing into the dead QK^T buffer %alloc_4,
// deallocations at the end. Every planner gives one pool in one domain, no
// allocation or deallocation left, and softmax still writes where QK^T was.
builtin.module attributes {hip.constants_file = "model.constants.bin"} {
  "memref.global"() <{sym_name = "scale", type = memref<f32>, initial_value = dense<1.250000e-01> : tensor<f32>, sym_visibility = "private", constant}> : () -> ()
  "memref.global"() <{sym_name = "hip_ext_constant_0", type = memref<64x64xf32>, initial_value, sym_visibility = "private", alignment = 64 : i64}> {hip.external_data = {index = 0 : i64, offset = 0 : i64, size = 16384 : i64}} : () -> ()
  "memref.global"() <{sym_name = "hip_ext_constant_1", type = memref<64x64xf32>, initial_value, sym_visibility = "private", alignment = 64 : i64}> {hip.external_data = {index = 1 : i64, offset = 16384 : i64, size = 16384 : i64}} : () -> ()
  "memref.global"() <{sym_name = "hip_ext_constant_2", type = memref<64x64xf32>, initial_value, sym_visibility = "private", alignment = 64 : i64}> {hip.external_data = {index = 2 : i64, offset = 32768 : i64, size = 16384 : i64}} : () -> ()
  func.func @main_graph(%arg0: !hip.context, %arg1: memref<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"}, %arg2: memref<?x?x64xf32> {bufferize.result, onnx.dim_params = "0:batch,1:seq", onnx.name = "out"}) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = memref.get_global @scale : memref<f32>
    %1 = memref.get_global @hip_ext_constant_0 : memref<64x64xf32>
    %2 = memref.get_global @hip_ext_constant_1 : memref<64x64xf32>
    %3 = memref.get_global @hip_ext_constant_2 : memref<64x64xf32>
    %dim = memref.dim %arg1, %c0 : memref<?x?x64xf32>
    %dim_0 = memref.dim %arg1, %c1 : memref<?x?x64xf32>
    %alloc = memref.alloc(%dim, %dim_0) {alignment = 64 : i64} : memref<?x?x64xf32>
    hip.matmul(%arg0) ins(%arg1, %1 : memref<?x?x64xf32>, memref<64x64xf32>) outs(%alloc : memref<?x?x64xf32>)
    %alloc_1 = memref.alloc(%dim, %dim_0) {alignment = 64 : i64} : memref<?x?x64xf32>
    hip.matmul(%arg0) ins(%arg1, %2 : memref<?x?x64xf32>, memref<64x64xf32>) outs(%alloc_1 : memref<?x?x64xf32>)
    %alloc_2 = memref.alloc(%dim, %dim_0) {alignment = 64 : i64} : memref<?x?x64xf32>
    hip.matmul(%arg0) ins(%arg1, %3 : memref<?x?x64xf32>, memref<64x64xf32>) outs(%alloc_2 : memref<?x?x64xf32>)
    %alloc_3 = memref.alloc(%dim, %dim_0) {alignment = 64 : i64} : memref<?x64x?xf32>
    hip.transpose(%arg0) ins(%alloc_1 : memref<?x?x64xf32>) outs(%alloc_3 : memref<?x64x?xf32>) {perm = array<i64: 0, 2, 1>}
    %alloc_4 = memref.alloc(%dim, %dim_0, %dim_0) {alignment = 64 : i64} : memref<?x?x?xf32>
    hip.matmul(%arg0) ins(%alloc, %alloc_3 : memref<?x?x64xf32>, memref<?x64x?xf32>) outs(%alloc_4 : memref<?x?x?xf32>)
    %alloc_5 = memref.alloc(%dim, %dim_0, %dim_0) {alignment = 64 : i64} : memref<?x?x?xf32>
    hip.mul(%arg0) ins(%alloc_4, %0 : memref<?x?x?xf32>, memref<f32>) outs(%alloc_5 : memref<?x?x?xf32>)
    hip.softmax(%arg0) ins(%alloc_5 : memref<?x?x?xf32>) outs(%alloc_4 : memref<?x?x?xf32>)
    hip.matmul(%arg0) ins(%alloc_4, %alloc_2 : memref<?x?x?xf32>, memref<?x?x64xf32>) outs(%arg2 : memref<?x?x64xf32>)
    memref.dealloc %alloc : memref<?x?x64xf32>
    memref.dealloc %alloc_1 : memref<?x?x64xf32>
    memref.dealloc %alloc_2 : memref<?x?x64xf32>
    memref.dealloc %alloc_3 : memref<?x64x?xf32>
    memref.dealloc %alloc_4 : memref<?x?x?xf32>
    memref.dealloc %alloc_5 : memref<?x?x?xf32>
    func.return
  }
}

// CHECK-LABEL: func.func @main_graph
// CHECK-NOT:     memref.alloc
// CHECK:         %[[POOL:.*]] = hip.get_pool(%arg0, %{{.*}}) : memref<?xi8>
// CHECK-NOT:     hip.get_pool
// CHECK-NOT:     memref.alloc
// CHECK:         %[[QK:.*]] = memref.view %[[POOL]][%{{.*}}][%dim, %[[SEQ:.*]], %[[SEQ]]] : memref<?xi8> to memref<?x?x?xf32>
// CHECK-NEXT:    hip.matmul(%arg0) ins(%alloc, %alloc_3 : memref<?x?x64xf32>, memref<?x64x?xf32>) outs(%[[QK]] : memref<?x?x?xf32>)
// CHECK-NEXT:    %[[SCALED:.*]] = memref.view %[[POOL]]
// CHECK-NEXT:    hip.mul(%arg0) ins(%[[QK]], %0 : memref<?x?x?xf32>, memref<f32>) outs(%[[SCALED]] : memref<?x?x?xf32>)
// CHECK-NEXT:    hip.softmax(%arg0) ins(%[[SCALED]] : memref<?x?x?xf32>) outs(%[[QK]] : memref<?x?x?xf32>)
// CHECK-NEXT:    hip.matmul(%arg0) ins(%[[QK]], %alloc_2 : memref<?x?x?xf32>, memref<?x?x64xf32>) outs(%arg2 : memref<?x?x64xf32>)
// CHECK-NOT:     memref.dealloc
// CHECK-NEXT:    func.return

// Seed 003's pool is 4A + 2B (A = align256(b*s*256), B = align256(b*s*s*4)).
// Lifetime-only puts QK^T in the slab of K (dead after the transpose) and the
// scaled scores in that of Q (dead after QK^T); those two slabs are max(A, B)
// wide: 2A + 2*max(A, B), never above 4A + 2B. Grouped packs buffers with the
// same dims and here gives the seed's size.
// Dims read from graph inputs print as their ONNX names.
// SIZE:    hip.pool_size = "512*batch*seq + 2*max(256*batch*seq, align_up(4*batch*seq^2, 256))"
// GROUPED: hip.pool_size = "1024*batch*seq + 2*align_up(4*batch*seq^2, 256)"
