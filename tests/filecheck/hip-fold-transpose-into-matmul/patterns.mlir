// RUN: xhip-opt %s --split-input-file -p hip-fold-transpose-into-matmul | filecheck %s
// RUN: xhip-opt %s --split-input-file -p hip-fold-transpose-into-matmul,hip-fold-transpose-into-matmul | filecheck %s

// The seed attention's scores: matmul(Q, transpose(K)) reads K with trans_b; the
// transpose and its init are gone.

func.func @scores(%ctx: !hip.context, %q: tensor<?x?x64xf32>, %k: tensor<?x?x64xf32>, %b: index, %s: index) -> tensor<?x?x?xf32> {
  %t0 = tensor.empty(%b, %s) : tensor<?x64x?xf32>
  %kt = hip.transpose(%ctx) ins(%k : tensor<?x?x64xf32>) outs(%t0 : tensor<?x64x?xf32>) {perm = array<i64: 0, 2, 1>} -> tensor<?x64x?xf32>
  %e = tensor.empty(%b, %s, %s) : tensor<?x?x?xf32>
  %y = hip.matmul(%ctx) ins(%q, %kt : tensor<?x?x64xf32>, tensor<?x64x?xf32>) outs(%e : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  func.return %y : tensor<?x?x?xf32>
}
// CHECK-LABEL: func.func @scores
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[Q:.*]]: tensor<?x?x64xf32>, %[[K:.*]]: tensor<?x?x64xf32>,
// CHECK-NOT:     hip.transpose
// CHECK:         %[[E:.*]] = tensor.empty
// CHECK-NEXT:    %[[Y:.*]] = hip.matmul(%[[CTX]]) ins(%[[Q]], %[[K]] : tensor<?x?x64xf32>, tensor<?x?x64xf32>) outs(%[[E]] : tensor<?x?x?xf32>) {trans_b = true}
// CHECK-NEXT:    func.return %[[Y]]

// -----

// Rank 4 (heads), a rank-2 transpose whose batch A broadcasts over it, and one
// transpose read as B by two matmuls: every reader takes the flag.

func.func @forms(%ctx: !hip.context, %q: tensor<2x3x5x8xf32>, %k: tensor<2x3x7x8xf32>, %w: tensor<6x8xf32>, %x: tensor<4x5x8xf32>, %e: tensor<2x3x5x7xf32>, %t0: tensor<2x3x8x7xf32>, %t1: tensor<8x6xf32>, %e1: tensor<4x5x6xf32>) -> (tensor<2x3x5x7xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>) {
  %kt = hip.transpose(%ctx) ins(%k : tensor<2x3x7x8xf32>) outs(%t0 : tensor<2x3x8x7xf32>) {perm = array<i64: 0, 1, 3, 2>} -> tensor<2x3x8x7xf32>
  %y = hip.matmul(%ctx) ins(%q, %kt : tensor<2x3x5x8xf32>, tensor<2x3x8x7xf32>) outs(%e : tensor<2x3x5x7xf32>) -> tensor<2x3x5x7xf32>
  %wt = hip.transpose(%ctx) ins(%w : tensor<6x8xf32>) outs(%t1 : tensor<8x6xf32>) {perm = array<i64: 1, 0>} -> tensor<8x6xf32>
  %z = hip.matmul(%ctx) ins(%x, %wt : tensor<4x5x8xf32>, tensor<8x6xf32>) outs(%e1 : tensor<4x5x6xf32>) -> tensor<4x5x6xf32>
  %u = hip.matmul(%ctx) ins(%x, %wt : tensor<4x5x8xf32>, tensor<8x6xf32>) outs(%e1 : tensor<4x5x6xf32>) -> tensor<4x5x6xf32>
  func.return %y, %z, %u : tensor<2x3x5x7xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>
}
// CHECK-LABEL: func.func @forms
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[Q:.*]]: tensor<2x3x5x8xf32>, %[[K:.*]]: tensor<2x3x7x8xf32>, %[[W:.*]]: tensor<6x8xf32>, %[[X:.*]]: tensor<4x5x8xf32>,
// CHECK-NOT:     hip.transpose
// CHECK:         hip.matmul(%[[CTX]]) ins(%[[Q]], %[[K]] : tensor<2x3x5x8xf32>, tensor<2x3x7x8xf32>) outs(%{{.*}} : tensor<2x3x5x7xf32>) {trans_b = true}
// CHECK-NEXT:    hip.matmul(%[[CTX]]) ins(%[[X]], %[[W]] : tensor<4x5x8xf32>, tensor<6x8xf32>) outs(%{{.*}} : tensor<4x5x6xf32>) {trans_b = true}
// CHECK-NEXT:    hip.matmul(%[[CTX]]) ins(%[[X]], %[[W]] : tensor<4x5x8xf32>, tensor<6x8xf32>) outs(%{{.*}} : tensor<4x5x6xf32>) {trans_b = true}

// -----

// Left alone: a transpose that is not of the last two dims, one that a matmul reads as
// A, one with a user besides the matmul, one read by a matmul that already has
// trans_b, and memref-mode IR.

func.func @not_folded(%ctx: !hip.context, %k: tensor<2x3x4xf32>, %t: tensor<3x2x4xf32>, %m: tensor<4x4xf32>, %tm: tensor<4x4xf32>, %e: tensor<4x4xf32>, %a: tensor<3x4x2xf32>, %e2: tensor<3x4x4xf32>) -> (tensor<3x2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %p = hip.transpose(%ctx) ins(%k : tensor<2x3x4xf32>) outs(%t : tensor<3x2x4xf32>) {perm = array<i64: 1, 0, 2>} -> tensor<3x2x4xf32>
  %y = hip.matmul(%ctx) ins(%a, %p : tensor<3x4x2xf32>, tensor<3x2x4xf32>) outs(%e2 : tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
  %mt = hip.transpose(%ctx) ins(%m : tensor<4x4xf32>) outs(%tm : tensor<4x4xf32>) {perm = array<i64: 1, 0>} -> tensor<4x4xf32>
  %as_a = hip.matmul(%ctx) ins(%mt, %m : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mt2 = hip.transpose(%ctx) ins(%m : tensor<4x4xf32>) outs(%tm : tensor<4x4xf32>) {perm = array<i64: 1, 0>} -> tensor<4x4xf32>
  %b = hip.matmul(%ctx) ins(%m, %mt2 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mt3 = hip.transpose(%ctx) ins(%m : tensor<4x4xf32>) outs(%tm : tensor<4x4xf32>) {perm = array<i64: 1, 0>} -> tensor<4x4xf32>
  %c = hip.matmul(%ctx) ins(%m, %mt3 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {trans_b = true} -> tensor<4x4xf32>
  func.return %p, %as_a, %b, %mt2, %c : tensor<3x2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
// CHECK-LABEL: func.func @not_folded
// CHECK:         %[[P:.*]] = hip.transpose{{.*}}perm = array<i64: 1, 0, 2>
// CHECK-NEXT:    hip.matmul(%{{.*}}) ins(%{{.*}}, %[[P]] :
// CHECK-NOT:     trans_b
// CHECK:         %[[MT:.*]] = hip.transpose
// CHECK-NEXT:    hip.matmul(%{{.*}}) ins(%[[MT]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %[[MT2:.*]] = hip.transpose
// CHECK-NEXT:    hip.matmul(%{{.*}}) ins(%{{.*}}, %[[MT2]] : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %[[MT3:.*]] = hip.transpose
// CHECK-NEXT:    hip.matmul(%{{.*}}) ins(%{{.*}}, %[[MT3]] : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>) {trans_b = true}

// -----

func.func @memref_mode(%ctx: !hip.context, %q: memref<2x5x8xf32>, %k: memref<2x7x8xf32>, %kt: memref<2x8x7xf32>, %y: memref<2x5x7xf32>) {
  hip.transpose(%ctx) ins(%k : memref<2x7x8xf32>) outs(%kt : memref<2x8x7xf32>) {perm = array<i64: 0, 2, 1>}
  hip.matmul(%ctx) ins(%q, %kt : memref<2x5x8xf32>, memref<2x8x7xf32>) outs(%y : memref<2x5x7xf32>)
  func.return
}
// CHECK-LABEL: func.func @memref_mode
// CHECK:         hip.transpose
// CHECK-NEXT:    hip.matmul
// CHECK-NOT:     trans_b
