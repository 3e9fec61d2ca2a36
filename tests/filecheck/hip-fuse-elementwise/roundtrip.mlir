// RUN: xhip-opt %s | filecheck %s
// RUN: %roundtrip | filecheck %s
// RUN: xhip-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// hip.fused_elementwise in both modes, with a step's own properties, a variadic
// step and an i1 intermediate; custom and generic forms read back the same.

func.func @modes(%ctx: !hip.context, %x: tensor<?x8xf32>, %c: tensor<f32>, %m: memref<?x8xf32>, %s: memref<f32>, %o: memref<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%d) : tensor<?x8xf32>
  %r = hip.fused_elementwise(%ctx) ins(%x, %c : tensor<?x8xf32>, tensor<f32>) outs(%e : tensor<?x8xf32>) {steps = [#hip.step<hip.gelu(in0) {approximate = "tanh"} : f32>, #hip.step<hip.less(t0, in1) : i1>, #hip.step<hip.where(t1, t0, in1) : f32>, #hip.step<hip.max(t2, in0, in1) : f32>]} -> tensor<?x8xf32>
  hip.fused_elementwise(%ctx) ins(%m, %s : memref<?x8xf32>, memref<f32>) outs(%o : memref<?x8xf32>) {steps = [#hip.step<hip.mul(in0, in1) : f32>]}
  func.return %r : tensor<?x8xf32>
}
// CHECK:      %{{.*}} = hip.fused_elementwise(%ctx) ins(%x, %c : tensor<?x8xf32>, tensor<f32>) outs(%e : tensor<?x8xf32>) {steps = [#hip.step<hip.gelu(in0) {approximate = "tanh"} : f32>, #hip.step<hip.less(t0, in1) : i1>, #hip.step<hip.where(t1, t0, in1) : f32>, #hip.step<hip.max(t2, in0, in1) : f32>]} -> tensor<?x8xf32>
// CHECK-NEXT: hip.fused_elementwise(%ctx) ins(%m, %s : memref<?x8xf32>, memref<f32>) outs(%o : memref<?x8xf32>) {steps = [#hip.step<hip.mul(in0, in1) : f32>]}
// GENERIC:    "hip.fused_elementwise"(%ctx, %x, %c, %e) <{steps = [#hip.step<hip.gelu(in0) {approximate = "tanh"} : f32>, {{.*}}], operandSegmentSizes = array<i32: 1, 0, 2, 1>}>
