// RUN: xhip-opt %s --split-input-file -p hip-fuse-softmax | filecheck %s
// RUN: xhip-opt %s --split-input-file -p hip-fuse-softmax,hip-fuse-softmax | filecheck %s

// The seed attention's scores: softmax(mul(QKᵀ, 0.125)) reads QKᵀ with scale 0.125;
// the mul and its init are gone.

func.func @scale(%ctx: !hip.context, %s: tensor<?x?x?xf32>, %e: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c = arith.constant dense<1.250000e-01> : tensor<f32>
  %m = hip.mul(%ctx) ins(%s, %c : tensor<?x?x?xf32>, tensor<f32>) outs(%e : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %p = hip.softmax(%ctx) ins(%m : tensor<?x?x?xf32>) outs(%e : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  func.return %p : tensor<?x?x?xf32>
}
// CHECK-LABEL: func.func @scale
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[S:.*]]: tensor<?x?x?xf32>, %[[E:.*]]: tensor<?x?x?xf32>)
// CHECK-NOT:     hip.mul
// CHECK:         %[[P:.*]] = hip.softmax(%[[CTX]]) ins(%[[S]] : tensor<?x?x?xf32>) outs(%[[E]] : tensor<?x?x?xf32>) {scale = 1.250000e-01 : f64}
// CHECK-NEXT:    func.return %[[P]]

// -----

// A constant first, a division, and a [1]-shaped constant: all scalars.

func.func @scale_forms(%ctx: !hip.context, %s: tensor<4x8xf32>, %e: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = arith.constant dense<2.000000e+00> : tensor<1xf32>
  %m = hip.mul(%ctx) ins(%c, %s : tensor<1xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = hip.softmax(%ctx) ins(%m : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = hip.div(%ctx) ins(%s, %c : tensor<4x8xf32>, tensor<1xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %q = hip.softmax(%ctx) ins(%d : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {axis = 0 : i64} -> tensor<4x8xf32>
  func.return %p, %q : tensor<4x8xf32>, tensor<4x8xf32>
}
// CHECK-LABEL: func.func @scale_forms
// CHECK-NOT:     hip.mul
// CHECK-NOT:     hip.div
// CHECK:         hip.softmax(%{{.*}}) ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>) {scale = 2.000000e+00 : f64}
// CHECK:         hip.softmax(%{{.*}}) ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>) {axis = 0 : i64, scale = 5.000000e-01 : f64}

// -----

// GPT-2's scores: softmax(add(QKᵀ, mask)) with the mask broadcast over the heads: the
// mask is the softmax's bias. A scale after it folds too (it multiplies QKᵀ only).

func.func @mask(%ctx: !hip.context, %s: tensor<?x12x?x?xf32>, %mask: tensor<?x1x?x?xf32>, %e: tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32> {
  %c = arith.constant dense<8.000000e+00> : tensor<f32>
  %d = hip.div(%ctx) ins(%s, %c : tensor<?x12x?x?xf32>, tensor<f32>) outs(%e : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %a = hip.add(%ctx) ins(%d, %mask : tensor<?x12x?x?xf32>, tensor<?x1x?x?xf32>) outs(%e : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %p = hip.softmax(%ctx) ins(%a : tensor<?x12x?x?xf32>) outs(%e : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  func.return %p : tensor<?x12x?x?xf32>
}
// CHECK-LABEL: func.func @mask
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[S:.*]]: tensor<?x12x?x?xf32>, %[[M:.*]]: tensor<?x1x?x?xf32>, %[[E:.*]]: tensor<?x12x?x?xf32>)
// CHECK-NOT:     hip.add
// CHECK-NOT:     hip.div
// CHECK:         hip.softmax(%[[CTX]]) ins(%[[S]], %[[M]] : tensor<?x12x?x?xf32>, tensor<?x1x?x?xf32>) outs(%[[E]] : tensor<?x12x?x?xf32>) {scale = 1.250000e-01 : f64}

// -----

// Left alone: scores with a second use, a scale that is not a scalar (it broadcasts
// per column), a mask added after a scale (the scale would multiply the mask too),
// a constant divided by the scores, and memref-mode IR.

func.func @not_fused(%ctx: !hip.context, %s: tensor<4x8xf32>, %v: tensor<8xf32>, %e: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = arith.constant dense<2.000000e+00> : tensor<f32>
  %m = hip.mul(%ctx) ins(%s, %c : tensor<4x8xf32>, tensor<f32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = hip.softmax(%ctx) ins(%m : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %col = hip.mul(%ctx) ins(%s, %v : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %q = hip.softmax(%ctx) ins(%col : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = hip.add(%ctx) ins(%s, %v : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = hip.softmax(%ctx) ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {scale = 2.000000e+00 : f64} -> tensor<4x8xf32>
  %d = hip.div(%ctx) ins(%c, %s : tensor<f32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = hip.softmax(%ctx) ins(%d : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %p, %m, %q, %r, %t : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
// CHECK-LABEL: func.func @not_fused
// CHECK:         %[[M:.*]] = hip.mul
// CHECK-NEXT:    hip.softmax(%{{.*}}) ins(%[[M]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[COL:.*]] = hip.mul
// CHECK-NEXT:    hip.softmax(%{{.*}}) ins(%[[COL]] : tensor<4x8xf32>)
// CHECK-NEXT:    %[[A:.*]] = hip.add
// CHECK-NEXT:    hip.softmax(%{{.*}}) ins(%[[A]] : tensor<4x8xf32>)
// CHECK-NEXT:    %[[D:.*]] = hip.div
// CHECK-NEXT:    hip.softmax(%{{.*}}) ins(%[[D]] : tensor<4x8xf32>)

// -----

func.func @memref_mode(%ctx: !hip.context, %s: memref<4x8xf32>, %e: memref<4x8xf32>) {
  %c = memref.alloc() : memref<f32>
  hip.mul(%ctx) ins(%s, %c : memref<4x8xf32>, memref<f32>) outs(%e : memref<4x8xf32>)
  hip.softmax(%ctx) ins(%e : memref<4x8xf32>) outs(%e : memref<4x8xf32>)
  func.return
}
// CHECK-LABEL: func.func @memref_mode
// CHECK:         hip.mul
// CHECK-NEXT:    hip.softmax

// -----

// The torch exports' guard after the softmax, where(isnan(p), 0, p), is its zero_nan:
// the isnan, the where and their inits go; the softmax writes the where's init.

func.func @nan_guard(%ctx: !hip.context, %s: tensor<?x12x?x?xf32>, %mask: tensor<?x1x?x?xf32>, %e: tensor<?x12x?x?xf32>, %b: tensor<?x12x?x?xi1>, %o: tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32> {
  %zero = arith.constant dense<0.000000e+00> : tensor<f32>
  %a = hip.add(%ctx) ins(%s, %mask : tensor<?x12x?x?xf32>, tensor<?x1x?x?xf32>) outs(%e : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %p = hip.softmax(%ctx) ins(%a : tensor<?x12x?x?xf32>) outs(%e : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %n = hip.isnan(%ctx) ins(%p : tensor<?x12x?x?xf32>) outs(%b : tensor<?x12x?x?xi1>) -> tensor<?x12x?x?xi1>
  %g = hip.where(%ctx) ins(%n, %zero, %p : tensor<?x12x?x?xi1>, tensor<f32>, tensor<?x12x?x?xf32>) outs(%o : tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  func.return %g : tensor<?x12x?x?xf32>
}
// CHECK-LABEL: func.func @nan_guard
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[S:.*]]: tensor<?x12x?x?xf32>, %[[M:.*]]: tensor<?x1x?x?xf32>, %{{.*}}: tensor<?x12x?x?xf32>, %{{.*}}: tensor<?x12x?x?xi1>, %[[O:.*]]: tensor<?x12x?x?xf32>)
// CHECK-NOT:     hip.isnan
// CHECK-NOT:     hip.where
// CHECK:         %[[G:.*]] = hip.softmax(%[[CTX]]) ins(%[[S]], %[[M]] : tensor<?x12x?x?xf32>, tensor<?x1x?x?xf32>) outs(%[[O]] : tensor<?x12x?x?xf32>) {zero_nan = true}
// CHECK-NEXT:    func.return %[[G]]

// -----

// Not a guard: a where that keeps another value than 0, and a softmax that is also returned.

func.func @not_a_guard(%ctx: !hip.context, %s: tensor<4x8xf32>, %b: tensor<4x8xi1>, %o: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %one = arith.constant dense<1.000000e+00> : tensor<f32>
  %zero = arith.constant dense<0.000000e+00> : tensor<f32>
  %p = hip.softmax(%ctx) ins(%s : tensor<4x8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  %n = hip.isnan(%ctx) ins(%p : tensor<4x8xf32>) outs(%b : tensor<4x8xi1>) -> tensor<4x8xi1>
  %g = hip.where(%ctx) ins(%n, %one, %p : tensor<4x8xi1>, tensor<f32>, tensor<4x8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  %q = hip.softmax(%ctx) ins(%s : tensor<4x8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = hip.isnan(%ctx) ins(%q : tensor<4x8xf32>) outs(%b : tensor<4x8xi1>) -> tensor<4x8xi1>
  %h = hip.where(%ctx) ins(%m, %zero, %q : tensor<4x8xi1>, tensor<f32>, tensor<4x8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %g, %h, %q : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
// CHECK-LABEL: func.func @not_a_guard
// CHECK-NOT:     zero_nan
// CHECK:         hip.where
// CHECK:         hip.where
// CHECK-NOT:     zero_nan
