// RUN: xhip-opt %s --split-input-file -p hip-fuse-gelu | filecheck %s
// RUN: xhip-opt %s --split-input-file -p hip-fuse-gelu,hip-fuse-gelu | filecheck %s

// ViT's and Whisper's GELU as torch.onnx writes it at opset 18:
// x * (0.5 * (erf(x / √2) + 1)). One hip.gelu into the last product's init; the steps,
// their constants and the init only they wrote are gone.

func.func @exact_torch(%ctx: !hip.context, %x: tensor<?x197x3072xf16>, %e: tensor<?x197x3072xf16>) -> tensor<?x197x3072xf16> {
  %sqrt2 = arith.constant dense<1.414060e+00> : tensor<f16>
  %one = arith.constant dense<1.000000e+00> : tensor<f16>
  %half = arith.constant dense<5.000000e-01> : tensor<f16>
  %d = hip.div(%ctx) ins(%x, %sqrt2 : tensor<?x197x3072xf16>, tensor<f16>) outs(%e : tensor<?x197x3072xf16>) -> tensor<?x197x3072xf16>
  %f = hip.erf(%ctx) ins(%d : tensor<?x197x3072xf16>) outs(%e : tensor<?x197x3072xf16>) -> tensor<?x197x3072xf16>
  %a = hip.add(%ctx) ins(%f, %one : tensor<?x197x3072xf16>, tensor<f16>) outs(%e : tensor<?x197x3072xf16>) -> tensor<?x197x3072xf16>
  %h = hip.mul(%ctx) ins(%half, %a : tensor<f16>, tensor<?x197x3072xf16>) outs(%e : tensor<?x197x3072xf16>) -> tensor<?x197x3072xf16>
  %y = hip.mul(%ctx) ins(%x, %h : tensor<?x197x3072xf16>, tensor<?x197x3072xf16>) outs(%e : tensor<?x197x3072xf16>) -> tensor<?x197x3072xf16>
  func.return %y : tensor<?x197x3072xf16>
}
// CHECK-LABEL: func.func @exact_torch
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x197x3072xf16>, %[[E:.*]]: tensor<?x197x3072xf16>)
// CHECK-NEXT:    %[[Y:.*]] = hip.gelu(%[[CTX]]) ins(%[[X]] : tensor<?x197x3072xf16>) outs(%[[E]] : tensor<?x197x3072xf16>) -> tensor<?x197x3072xf16>
// CHECK-NEXT:    func.return %[[Y]]

// -----

// BERT's: (x * 0.5) * (1 + erf(x * 0.70710678)), x also read elsewhere (it stays).

func.func @exact_bert(%ctx: !hip.context, %x: tensor<2x8xf32>, %e: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %r = arith.constant dense<0.707106769> : tensor<1xf32>
  %one = arith.constant dense<1.000000e+00> : tensor<f32>
  %half = arith.constant dense<5.000000e-01> : tensor<f32>
  %xh = hip.mul(%ctx) ins(%x, %half : tensor<2x8xf32>, tensor<f32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = hip.mul(%ctx) ins(%r, %x : tensor<1xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %f = hip.erf(%ctx) ins(%s : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %a = hip.add(%ctx) ins(%one, %f : tensor<f32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = hip.mul(%ctx) ins(%xh, %a : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y, %x : tensor<2x8xf32>, tensor<2x8xf32>
}
// CHECK-LABEL: func.func @exact_bert
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<2x8xf32>, %[[E:.*]]: tensor<2x8xf32>)
// CHECK-NEXT:    %[[Y:.*]] = hip.gelu(%[[CTX]]) ins(%[[X]] : tensor<2x8xf32>) outs(%[[E]] : tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[X]]

// -----

// GPT-2's tanh form: (x * 0.5) * (tanh((x + pow(x, 3) * 0.044715) * 0.7978845608) + 1),
// and the same with x * x * x for the cube.

func.func @tanh_forms(%ctx: !hip.context, %x: tensor<?x?x3072xf32>, %e: tensor<?x?x3072xf32>) -> (tensor<?x?x3072xf32>, tensor<?x?x3072xf32>) {
  %half = arith.constant dense<5.000000e-01> : tensor<f32>
  %three = arith.constant dense<3.000000e+00> : tensor<f32>
  %k = arith.constant dense<4.471500e-02> : tensor<f32>
  %c = arith.constant dense<0.797884583> : tensor<f32>
  %one = arith.constant dense<1.000000e+00> : tensor<f32>
  %xh = hip.mul(%ctx) ins(%x, %half : tensor<?x?x3072xf32>, tensor<f32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %p = hip.pow(%ctx) ins(%x, %three : tensor<?x?x3072xf32>, tensor<f32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %pk = hip.mul(%ctx) ins(%p, %k : tensor<?x?x3072xf32>, tensor<f32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %s = hip.add(%ctx) ins(%x, %pk : tensor<?x?x3072xf32>, tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %u = hip.mul(%ctx) ins(%s, %c : tensor<?x?x3072xf32>, tensor<f32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %t = hip.tanh(%ctx) ins(%u : tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %a = hip.add(%ctx) ins(%t, %one : tensor<?x?x3072xf32>, tensor<f32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %y = hip.mul(%ctx) ins(%xh, %a : tensor<?x?x3072xf32>, tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %x2 = hip.mul(%ctx) ins(%x, %x : tensor<?x?x3072xf32>, tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %x3 = hip.mul(%ctx) ins(%x2, %x : tensor<?x?x3072xf32>, tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %x3k = hip.mul(%ctx) ins(%k, %x3 : tensor<f32>, tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %s2 = hip.add(%ctx) ins(%x3k, %x : tensor<?x?x3072xf32>, tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %u2 = hip.mul(%ctx) ins(%c, %s2 : tensor<f32>, tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %t2 = hip.tanh(%ctx) ins(%u2 : tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %a2 = hip.add(%ctx) ins(%one, %t2 : tensor<f32>, tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %h2 = hip.mul(%ctx) ins(%half, %a2 : tensor<f32>, tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  %y2 = hip.mul(%ctx) ins(%h2, %x : tensor<?x?x3072xf32>, tensor<?x?x3072xf32>) outs(%e : tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32>
  func.return %y, %y2 : tensor<?x?x3072xf32>, tensor<?x?x3072xf32>
}
// CHECK-LABEL: func.func @tanh_forms
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x?x3072xf32>, %[[E:.*]]: tensor<?x?x3072xf32>)
// CHECK-NEXT:    %[[Y:.*]] = hip.gelu(%[[CTX]]) ins(%[[X]] : tensor<?x?x3072xf32>) outs(%[[E]] : tensor<?x?x3072xf32>) {approximate = "tanh"}
// CHECK-NEXT:    %[[Y2:.*]] = hip.gelu(%[[CTX]]) ins(%[[X]] : tensor<?x?x3072xf32>) outs(%[[E]] : tensor<?x?x3072xf32>) {approximate = "tanh"}
// CHECK-NEXT:    func.return %[[Y]], %[[Y2]]

// -----

// Left alone: an intermediate read elsewhere (the erf), a constant that is not the
// formula's (x / 2), the 0.5 missing, and a sum in place of the last product.

func.func @not_gelu(%ctx: !hip.context, %x: tensor<4xf32>, %xb: tensor<1x4xf32>, %e: tensor<4xf32>, %eb1: tensor<1x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>) {
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %two = arith.constant dense<2.000000e+00> : tensor<f32>
  %one = arith.constant dense<1.000000e+00> : tensor<f32>
  %half = arith.constant dense<5.000000e-01> : tensor<f32>
  %d = hip.div(%ctx) ins(%x, %sqrt2 : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %f = hip.erf(%ctx) ins(%d : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %a = hip.add(%ctx) ins(%f, %one : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %h = hip.mul(%ctx) ins(%half, %a : tensor<f32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %y = hip.mul(%ctx) ins(%x, %h : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %d2 = hip.div(%ctx) ins(%x, %two : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %f2 = hip.erf(%ctx) ins(%d2 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %a2 = hip.add(%ctx) ins(%f2, %one : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %h2 = hip.mul(%ctx) ins(%half, %a2 : tensor<f32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %y2 = hip.mul(%ctx) ins(%x, %h2 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %d3 = hip.div(%ctx) ins(%x, %sqrt2 : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %f3 = hip.erf(%ctx) ins(%d3 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %a3 = hip.add(%ctx) ins(%f3, %one : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %y3 = hip.mul(%ctx) ins(%x, %a3 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %d4 = hip.div(%ctx) ins(%xb, %sqrt2 : tensor<1x4xf32>, tensor<f32>) outs(%eb1 : tensor<1x4xf32>) -> tensor<1x4xf32>
  %f4 = hip.erf(%ctx) ins(%d4 : tensor<1x4xf32>) outs(%eb1 : tensor<1x4xf32>) -> tensor<1x4xf32>
  %a4 = hip.add(%ctx) ins(%f4, %one : tensor<1x4xf32>, tensor<f32>) outs(%eb1 : tensor<1x4xf32>) -> tensor<1x4xf32>
  %h4 = hip.mul(%ctx) ins(%half, %a4 : tensor<f32>, tensor<1x4xf32>) outs(%eb1 : tensor<1x4xf32>) -> tensor<1x4xf32>
  %w = hip.add(%ctx) ins(%xb, %h4 : tensor<1x4xf32>, tensor<1x4xf32>) outs(%eb1 : tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %y, %f, %y2, %y3, %w : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>
}
// CHECK-LABEL: func.func @not_gelu
// CHECK-NOT:     hip.gelu
// CHECK-COUNT-4: hip.erf
// CHECK-NOT:     hip.gelu
