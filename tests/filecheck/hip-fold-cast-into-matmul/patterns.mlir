// RUN: xhip-opt %s --split-input-file -p hip-fold-cast-into-matmul | filecheck %s
// RUN: xhip-opt %s --split-input-file -p hip-fold-cast-into-matmul,hip-fold-cast-into-matmul | filecheck %s

// The logits of an fp32 model computed in bf16: the matmul writes the float32 output
// itself; the cast and the bf16 buffer are gone.

func.func @logits(%ctx: !hip.context, %h: tensor<?x?x64xbf16>, %w: tensor<256x64xbf16>, %b: index, %s: index) -> tensor<?x?x256xf32> {
  %e = tensor.empty(%b, %s) : tensor<?x?x256xbf16>
  %y = hip.matmul(%ctx) ins(%h, %w : tensor<?x?x64xbf16>, tensor<256x64xbf16>) outs(%e : tensor<?x?x256xbf16>) {trans_b = true} -> tensor<?x?x256xbf16>
  %wide = tensor.empty(%b, %s) : tensor<?x?x256xf32>
  %z = hip.cast(%ctx) ins(%y : tensor<?x?x256xbf16>) outs(%wide : tensor<?x?x256xf32>) -> tensor<?x?x256xf32>
  func.return %z : tensor<?x?x256xf32>
}
// CHECK-LABEL: func.func @logits
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[H:.*]]: tensor<?x?x64xbf16>, %[[W:.*]]: tensor<256x64xbf16>,
// CHECK-NOT:     xbf16>
// CHECK:         %[[WIDE:.*]] = tensor.empty({{.*}}) : tensor<?x?x256xf32>
// CHECK-NEXT:    %[[Z:.*]] = hip.matmul(%[[CTX]]) ins(%[[H]], %[[W]] : tensor<?x?x64xbf16>, tensor<256x64xbf16>) outs(%[[WIDE]] : tensor<?x?x256xf32>) {trans_b = true} -> tensor<?x?x256xf32>
// CHECK-NOT:     hip.cast
// CHECK:         func.return %[[Z]]

// -----

// The matmul's result is read by something else too: it is computed in f16 either way,
// and the cast stays.

func.func @two_readers(%ctx: !hip.context, %a: tensor<4x8xf16>, %w: tensor<8x16xf16>) -> (tensor<4x16xf32>, tensor<4x16xf16>) {
  %e = tensor.empty() : tensor<4x16xf16>
  %y = hip.matmul(%ctx) ins(%a, %w : tensor<4x8xf16>, tensor<8x16xf16>) outs(%e : tensor<4x16xf16>) -> tensor<4x16xf16>
  %wide = tensor.empty() : tensor<4x16xf32>
  %z = hip.cast(%ctx) ins(%y : tensor<4x16xf16>) outs(%wide : tensor<4x16xf32>) -> tensor<4x16xf32>
  func.return %z, %y : tensor<4x16xf32>, tensor<4x16xf16>
}
// CHECK-LABEL: func.func @two_readers
// CHECK:         hip.matmul{{.*}} -> tensor<4x16xf16>
// CHECK:         hip.cast

// -----

// Only widening to float32 from half: an f32 matmul cast to f64, and a bf16 matmul cast
// to f16, stay as they are.

func.func @not_widening(%ctx: !hip.context, %a: tensor<4x8xf32>, %w: tensor<8x16xf32>, %c: tensor<4x8xbf16>, %v: tensor<8x16xbf16>) -> (tensor<4x16xf64>, tensor<4x16xf16>) {
  %e = tensor.empty() : tensor<4x16xf32>
  %y = hip.matmul(%ctx) ins(%a, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %wide = tensor.empty() : tensor<4x16xf64>
  %z = hip.cast(%ctx) ins(%y : tensor<4x16xf32>) outs(%wide : tensor<4x16xf64>) -> tensor<4x16xf64>
  %e2 = tensor.empty() : tensor<4x16xbf16>
  %y2 = hip.matmul(%ctx) ins(%c, %v : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%e2 : tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %h = tensor.empty() : tensor<4x16xf16>
  %z2 = hip.cast(%ctx) ins(%y2 : tensor<4x16xbf16>) outs(%h : tensor<4x16xf16>) -> tensor<4x16xf16>
  func.return %z, %z2 : tensor<4x16xf64>, tensor<4x16xf16>
}
// CHECK-LABEL: func.func @not_widening
// CHECK-COUNT-2: hip.cast
