// RUN: xhip-opt %s | xhip-opt | filecheck %s
// RUN: xhip-opt %s --print-op-generic | xhip-opt | filecheck %s
// RUN: xhip-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Linear algebra, normalization, reductions, data movement and generators in tensor
// mode and memref mode, through the custom printer and through the generic one.

func.func @linalg_tensor(%ctx: !hip.context, %x: tensor<?x?x64xf32>, %w: tensor<64x64xf32>, %v: tensor<64xf32>, %y: tensor<?x?x64xf32>, %s: tensor<?x64xf32>, %b: tensor<64xf32>, %i: tensor<8x16xi32>, %j: tensor<16x4xi32>, %ij: tensor<8x4xi32>) {
  %mm = hip.matmul(%ctx) ins(%x, %w : tensor<?x?x64xf32>, tensor<64x64xf32>) outs(%y : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %mv = hip.matmul(%ctx) ins(%x, %v : tensor<?x?x64xf32>, tensor<64xf32>) outs(%s : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mi = hip.matmul(%ctx) ins(%i, %j : tensor<8x16xi32>, tensor<16x4xi32>) outs(%ij : tensor<8x4xi32>) -> tensor<8x4xi32>
  %gemm = hip.gemm(%ctx) ins(%s, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%s : tensor<?x64xf32>) -> tensor<?x64xf32>
  %gemm_c = hip.gemm(%ctx) ins(%w, %s, %b : tensor<64x64xf32>, tensor<?x64xf32>, tensor<64xf32>) outs(%s : tensor<?x64xf32>) {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = true, trans_b = true} -> tensor<?x64xf32>
  %sm = hip.softmax(%ctx) ins(%x : tensor<?x?x64xf32>) outs(%y : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %sm1 = hip.softmax(%ctx) ins(%x : tensor<?x?x64xf32>) outs(%y : tensor<?x?x64xf32>) {axis = 1 : i64} -> tensor<?x?x64xf32>
  %ln = hip.layer_norm(%ctx) ins(%x, %v : tensor<?x?x64xf32>, tensor<64xf32>) outs(%y : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %lnb = hip.layer_norm(%ctx) ins(%x, %v, %b : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%y : tensor<?x?x64xf32>) {axis = 2 : i64, epsilon = 1.000000e-03 : f32} -> tensor<?x?x64xf32>
  func.return
}
// CHECK-LABEL: func.func @linalg_tensor
// CHECK-NEXT:    %mm = hip.matmul(%ctx) ins(%x, %w : tensor<?x?x64xf32>, tensor<64x64xf32>) outs(%y : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT:    %mv = hip.matmul(%ctx) ins(%x, %v : tensor<?x?x64xf32>, tensor<64xf32>) outs(%s : tensor<?x64xf32>) -> tensor<?x64xf32>
// CHECK-NEXT:    %mi = hip.matmul(%ctx) ins(%i, %j : tensor<8x16xi32>, tensor<16x4xi32>) outs(%ij : tensor<8x4xi32>) -> tensor<8x4xi32>
// CHECK-NEXT:    %gemm = hip.gemm(%ctx) ins(%s, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%s : tensor<?x64xf32>) -> tensor<?x64xf32>
// CHECK-NEXT:    %gemm_c = hip.gemm(%ctx) ins(%w, %s, %b : tensor<64x64xf32>, tensor<?x64xf32>, tensor<64xf32>) outs(%s : tensor<?x64xf32>) {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = true, trans_b = true} -> tensor<?x64xf32>
// CHECK-NEXT:    %sm = hip.softmax(%ctx) ins(%x : tensor<?x?x64xf32>) outs(%y : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT:    %sm1 = hip.softmax(%ctx) ins(%x : tensor<?x?x64xf32>) outs(%y : tensor<?x?x64xf32>) {axis = 1 : i64} -> tensor<?x?x64xf32>
// CHECK-NEXT:    %ln = hip.layer_norm(%ctx) ins(%x, %v : tensor<?x?x64xf32>, tensor<64xf32>) outs(%y : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT:    %lnb = hip.layer_norm(%ctx) ins(%x, %v, %b : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%y : tensor<?x?x64xf32>) {axis = 2 : i64, epsilon = 1.000000e-03 : f32} -> tensor<?x?x64xf32>
// CHECK-NEXT:    func.return

func.func @linalg_memref(%ctx: !hip.context, %x: memref<?x?x64xf32>, %w: memref<64x64xf32>, %v: memref<64xf32>, %y: memref<?x?x64xf32>, %s: memref<?x64xf32>, %b: memref<64xf32>, %i: memref<8x16xi32>, %j: memref<16x4xi32>, %ij: memref<8x4xi32>) {
  hip.matmul(%ctx) ins(%x, %w : memref<?x?x64xf32>, memref<64x64xf32>) outs(%y : memref<?x?x64xf32>)
  hip.matmul(%ctx) ins(%x, %v : memref<?x?x64xf32>, memref<64xf32>) outs(%s : memref<?x64xf32>)
  hip.matmul(%ctx) ins(%i, %j : memref<8x16xi32>, memref<16x4xi32>) outs(%ij : memref<8x4xi32>)
  hip.gemm(%ctx) ins(%s, %w : memref<?x64xf32>, memref<64x64xf32>) outs(%s : memref<?x64xf32>)
  hip.gemm(%ctx) ins(%w, %s, %b : memref<64x64xf32>, memref<?x64xf32>, memref<64xf32>) outs(%s : memref<?x64xf32>) {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = true, trans_b = true}
  hip.softmax(%ctx) ins(%x : memref<?x?x64xf32>) outs(%y : memref<?x?x64xf32>)
  hip.softmax(%ctx) ins(%x : memref<?x?x64xf32>) outs(%y : memref<?x?x64xf32>) {axis = 1 : i64}
  hip.layer_norm(%ctx) ins(%x, %v : memref<?x?x64xf32>, memref<64xf32>) outs(%y : memref<?x?x64xf32>)
  hip.layer_norm(%ctx) ins(%x, %v, %b : memref<?x?x64xf32>, memref<64xf32>, memref<64xf32>) outs(%y : memref<?x?x64xf32>) {axis = 2 : i64, epsilon = 1.000000e-03 : f32}
  func.return
}
// CHECK-LABEL: func.func @linalg_memref
// CHECK-NEXT:    hip.matmul(%ctx) ins(%x, %w : memref<?x?x64xf32>, memref<64x64xf32>) outs(%y : memref<?x?x64xf32>)
// CHECK-NEXT:    hip.matmul(%ctx) ins(%x, %v : memref<?x?x64xf32>, memref<64xf32>) outs(%s : memref<?x64xf32>)
// CHECK-NEXT:    hip.matmul(%ctx) ins(%i, %j : memref<8x16xi32>, memref<16x4xi32>) outs(%ij : memref<8x4xi32>)
// CHECK-NEXT:    hip.gemm(%ctx) ins(%s, %w : memref<?x64xf32>, memref<64x64xf32>) outs(%s : memref<?x64xf32>)
// CHECK-NEXT:    hip.gemm(%ctx) ins(%w, %s, %b : memref<64x64xf32>, memref<?x64xf32>, memref<64xf32>) outs(%s : memref<?x64xf32>) {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = true, trans_b = true}
// CHECK-NEXT:    hip.softmax(%ctx) ins(%x : memref<?x?x64xf32>) outs(%y : memref<?x?x64xf32>)
// CHECK-NEXT:    hip.softmax(%ctx) ins(%x : memref<?x?x64xf32>) outs(%y : memref<?x?x64xf32>) {axis = 1 : i64}
// CHECK-NEXT:    hip.layer_norm(%ctx) ins(%x, %v : memref<?x?x64xf32>, memref<64xf32>) outs(%y : memref<?x?x64xf32>)
// CHECK-NEXT:    hip.layer_norm(%ctx) ins(%x, %v, %b : memref<?x?x64xf32>, memref<64xf32>, memref<64xf32>) outs(%y : memref<?x?x64xf32>) {axis = 2 : i64, epsilon = 1.000000e-03 : f32}
// CHECK-NEXT:    func.return

// Reductions: empty axes (the default) reduce everything; keepdims defaults to true.
func.func @reduce_tensor(%ctx: !hip.context, %x: tensor<?x?x8xf32>, %k: tensor<?x1x1xf32>, %d: tensor<?xf32>, %all: tensor<f32>, %ones: tensor<1x1x1xf32>) {
  %mean = hip.reduce_mean(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%k : tensor<?x1x1xf32>) {axes = array<i64: 1, -1>} -> tensor<?x1x1xf32>
  %sum = hip.reduce_sum(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%d : tensor<?xf32>) {axes = array<i64: 1, 2>, keepdims = false} -> tensor<?xf32>
  %max = hip.reduce_max(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%all : tensor<f32>) {keepdims = false} -> tensor<f32>
  %max_keep = hip.reduce_max(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%ones : tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  func.return
}
// CHECK-LABEL: func.func @reduce_tensor
// CHECK-NEXT:    %mean = hip.reduce_mean(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%k : tensor<?x1x1xf32>) {axes = array<i64: 1, -1>} -> tensor<?x1x1xf32>
// CHECK-NEXT:    %sum = hip.reduce_sum(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%d : tensor<?xf32>) {axes = array<i64: 1, 2>, keepdims = false} -> tensor<?xf32>
// CHECK-NEXT:    %max = hip.reduce_max(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%all : tensor<f32>) {keepdims = false} -> tensor<f32>
// CHECK-NEXT:    %max_keep = hip.reduce_max(%ctx) ins(%x : tensor<?x?x8xf32>) outs(%ones : tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
// CHECK-NEXT:    func.return

func.func @reduce_memref(%ctx: !hip.context, %x: memref<?x?x8xf32>, %k: memref<?x1x1xf32>, %d: memref<?xf32>, %all: memref<f32>, %ones: memref<1x1x1xf32>) {
  hip.reduce_mean(%ctx) ins(%x : memref<?x?x8xf32>) outs(%k : memref<?x1x1xf32>) {axes = array<i64: 1, -1>}
  hip.reduce_sum(%ctx) ins(%x : memref<?x?x8xf32>) outs(%d : memref<?xf32>) {axes = array<i64: 1, 2>, keepdims = false}
  hip.reduce_max(%ctx) ins(%x : memref<?x?x8xf32>) outs(%all : memref<f32>) {keepdims = false}
  hip.reduce_max(%ctx) ins(%x : memref<?x?x8xf32>) outs(%ones : memref<1x1x1xf32>)
  func.return
}
// CHECK-LABEL: func.func @reduce_memref
// CHECK-NEXT:    hip.reduce_mean(%ctx) ins(%x : memref<?x?x8xf32>) outs(%k : memref<?x1x1xf32>) {axes = array<i64: 1, -1>}
// CHECK-NEXT:    hip.reduce_sum(%ctx) ins(%x : memref<?x?x8xf32>) outs(%d : memref<?xf32>) {axes = array<i64: 1, 2>, keepdims = false}
// CHECK-NEXT:    hip.reduce_max(%ctx) ins(%x : memref<?x?x8xf32>) outs(%all : memref<f32>) {keepdims = false}
// CHECK-NEXT:    hip.reduce_max(%ctx) ins(%x : memref<?x?x8xf32>) outs(%ones : memref<1x1x1xf32>)
// CHECK-NEXT:    func.return

// Data movement. Slice scalars are every start, then every step (index); range
// scalars are start and delta of the element type.
// Scans: cumsum's exclusive and reverse default to false and are elided then.
func.func @scan(%ctx: !hip.context, %x: tensor<?x?xi64>, %y: tensor<?x?xi64>, %m: memref<?x8xf32>, %o: memref<?x8xf32>) {
  %sum = hip.cumsum(%ctx) ins(%x : tensor<?x?xi64>) outs(%y : tensor<?x?xi64>) {axis = 1 : i64} -> tensor<?x?xi64>
  %rev = hip.cumsum(%ctx) ins(%x : tensor<?x?xi64>) outs(%y : tensor<?x?xi64>) {axis = -2 : i64, exclusive = true, reverse = true} -> tensor<?x?xi64>
  %dflt = hip.cumsum(%ctx) ins(%x : tensor<?x?xi64>) outs(%y : tensor<?x?xi64>) {axis = 0 : i64, exclusive = false} -> tensor<?x?xi64>
  hip.cumsum(%ctx) ins(%m : memref<?x8xf32>) outs(%o : memref<?x8xf32>) {axis = 1 : i64, reverse = true}
  func.return
}
// CHECK-LABEL: func.func @scan
// CHECK-NEXT:    %sum = hip.cumsum(%ctx) ins(%x : tensor<?x?xi64>) outs(%y : tensor<?x?xi64>) {axis = 1 : i64} -> tensor<?x?xi64>
// CHECK-NEXT:    %rev = hip.cumsum(%ctx) ins(%x : tensor<?x?xi64>) outs(%y : tensor<?x?xi64>) {axis = -2 : i64, exclusive = true, reverse = true} -> tensor<?x?xi64>
// CHECK-NEXT:    %dflt = hip.cumsum(%ctx) ins(%x : tensor<?x?xi64>) outs(%y : tensor<?x?xi64>) {axis = 0 : i64} -> tensor<?x?xi64>
// CHECK-NEXT:    hip.cumsum(%ctx) ins(%m : memref<?x8xf32>) outs(%o : memref<?x8xf32>) {axis = 1 : i64, reverse = true}
// CHECK-NEXT:    func.return

func.func @movement_tensor(%ctx: !hip.context, %x: tensor<?x?x64xf32>, %t: tensor<?x64x?xf32>, %a: tensor<2x3xi64>, %b: tensor<?x3xi64>, %c: tensor<?x3xi64>, %h: tensor<1x3xi64>, %idx: tensor<5xi32>, %nd: tensor<?x2xi64>, %g: tensor<?x5x64xf32>, %gn: tensor<?xi64>, %n: index, %m: index, %start: f32, %delta: f32, %r: tensor<?xf32>, %cnt: tensor<i32>, %nzi: tensor<2x?xi64>, %bd: tensor<2x?x3xi64>, %bi: tensor<2x4x1xi64>, %bo: tensor<2x4x3xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cm1 = arith.constant -1 : index
  %tr = hip.transpose(%ctx) ins(%x : tensor<?x?x64xf32>) outs(%t : tensor<?x64x?xf32>) {perm = array<i64: 0, 2, 1>} -> tensor<?x64x?xf32>
  %cat = hip.concat(%ctx) ins(%a, %b : tensor<2x3xi64>, tensor<?x3xi64>) outs(%c : tensor<?x3xi64>) {axis = 0 : i64} -> tensor<?x3xi64>
  %lo, %hi = hip.split(%ctx) ins(%c : tensor<?x3xi64>) outs(%a, %b : tensor<2x3xi64>, tensor<?x3xi64>) -> tensor<2x3xi64>, tensor<?x3xi64>
  %sl = hip.slice(%ctx, %n, %c0, %cm1, %c1) ins(%c : tensor<?x3xi64>) outs(%b : tensor<?x3xi64>) -> tensor<?x3xi64>
  %ga = hip.gather(%ctx) ins(%x, %idx : tensor<?x?x64xf32>, tensor<5xi32>) outs(%g : tensor<?x5x64xf32>) {axis = 1 : i64} -> tensor<?x5x64xf32>
  %gnd = hip.gather_nd(%ctx) ins(%c, %nd : tensor<?x3xi64>, tensor<?x2xi64>) outs(%gn : tensor<?xi64>) -> tensor<?xi64>
  %gbd = hip.gather_nd(%ctx) ins(%bd, %bi : tensor<2x?x3xi64>, tensor<2x4x1xi64>) outs(%bo : tensor<2x4x3xi64>) {batch_dims = 1 : i64} -> tensor<2x4x3xi64>
  %ex = hip.expand(%ctx) ins(%h : tensor<1x3xi64>) outs(%c : tensor<?x3xi64>) -> tensor<?x3xi64>
  %rg = hip.range(%ctx, %start, %delta) outs(%r : tensor<?xf32>) -> tensor<?xf32>
  %nz, %count = hip.nonzero(%ctx) ins(%c : tensor<?x3xi64>) outs(%nzi, %cnt : tensor<2x?xi64>, tensor<i32>) -> tensor<2x?xi64>, tensor<i32>
  func.return
}
// CHECK-LABEL: func.func @movement_tensor
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %cm1 = arith.constant -1 : index
// CHECK-NEXT:    %tr = hip.transpose(%ctx) ins(%x : tensor<?x?x64xf32>) outs(%t : tensor<?x64x?xf32>) {perm = array<i64: 0, 2, 1>} -> tensor<?x64x?xf32>
// CHECK-NEXT:    %cat = hip.concat(%ctx) ins(%a, %b : tensor<2x3xi64>, tensor<?x3xi64>) outs(%c : tensor<?x3xi64>) {axis = 0 : i64} -> tensor<?x3xi64>
// CHECK-NEXT:    %lo, %hi = hip.split(%ctx) ins(%c : tensor<?x3xi64>) outs(%a, %b : tensor<2x3xi64>, tensor<?x3xi64>) -> tensor<2x3xi64>, tensor<?x3xi64>
// CHECK-NEXT:    %sl = hip.slice(%ctx, %n, %c0, %cm1, %c1) ins(%c : tensor<?x3xi64>) outs(%b : tensor<?x3xi64>) -> tensor<?x3xi64>
// CHECK-NEXT:    %ga = hip.gather(%ctx) ins(%x, %idx : tensor<?x?x64xf32>, tensor<5xi32>) outs(%g : tensor<?x5x64xf32>) {axis = 1 : i64} -> tensor<?x5x64xf32>
// CHECK-NEXT:    %gnd = hip.gather_nd(%ctx) ins(%c, %nd : tensor<?x3xi64>, tensor<?x2xi64>) outs(%gn : tensor<?xi64>) -> tensor<?xi64>
// CHECK-NEXT:    %gbd = hip.gather_nd(%ctx) ins(%bd, %bi : tensor<2x?x3xi64>, tensor<2x4x1xi64>) outs(%bo : tensor<2x4x3xi64>) {batch_dims = 1 : i64} -> tensor<2x4x3xi64>
// CHECK-NEXT:    %ex = hip.expand(%ctx) ins(%h : tensor<1x3xi64>) outs(%c : tensor<?x3xi64>) -> tensor<?x3xi64>
// CHECK-NEXT:    %rg = hip.range(%ctx, %start, %delta) outs(%r : tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT:    %nz, %count = hip.nonzero(%ctx) ins(%c : tensor<?x3xi64>) outs(%nzi, %cnt : tensor<2x?xi64>, tensor<i32>) -> tensor<2x?xi64>, tensor<i32>
// CHECK-NEXT:    func.return

func.func @movement_memref(%ctx: !hip.context, %x: memref<?x?x64xf32>, %t: memref<?x64x?xf32>, %a: memref<2x3xi64>, %b: memref<?x3xi64>, %c: memref<?x3xi64>, %h: memref<1x3xi64>, %idx: memref<5xi32>, %nd: memref<?x1x2xi64>, %g: memref<?x5x64xf32>, %gn: memref<?x1xi64>, %n: index, %m: index, %start: i64, %delta: i64, %r: memref<?xi64>, %cnt: memref<i64>, %nzi: memref<2x?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cm1 = arith.constant -1 : index
  hip.transpose(%ctx) ins(%x : memref<?x?x64xf32>) outs(%t : memref<?x64x?xf32>) {perm = array<i64: 0, 2, 1>}
  hip.concat(%ctx) ins(%a, %b, %a : memref<2x3xi64>, memref<?x3xi64>, memref<2x3xi64>) outs(%c : memref<?x3xi64>) {axis = -2 : i64}
  hip.split(%ctx) ins(%c : memref<?x3xi64>) outs(%a, %b : memref<2x3xi64>, memref<?x3xi64>)
  hip.slice(%ctx, %n, %c0, %cm1, %c1) ins(%c : memref<?x3xi64>) outs(%b : memref<?x3xi64>)
  hip.gather(%ctx) ins(%x, %idx : memref<?x?x64xf32>, memref<5xi32>) outs(%g : memref<?x5x64xf32>) {axis = 1 : i64}
  hip.gather_nd(%ctx) ins(%c, %nd : memref<?x3xi64>, memref<?x1x2xi64>) outs(%gn : memref<?x1xi64>)
  hip.expand(%ctx) ins(%h : memref<1x3xi64>) outs(%c : memref<?x3xi64>)
  hip.range(%ctx, %start, %delta) outs(%r : memref<?xi64>)
  hip.nonzero(%ctx) ins(%c : memref<?x3xi64>) outs(%nzi, %cnt : memref<2x?xi64>, memref<i64>)
  func.return
}
// CHECK-LABEL: func.func @movement_memref
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %cm1 = arith.constant -1 : index
// CHECK-NEXT:    hip.transpose(%ctx) ins(%x : memref<?x?x64xf32>) outs(%t : memref<?x64x?xf32>) {perm = array<i64: 0, 2, 1>}
// CHECK-NEXT:    hip.concat(%ctx) ins(%a, %b, %a : memref<2x3xi64>, memref<?x3xi64>, memref<2x3xi64>) outs(%c : memref<?x3xi64>) {axis = -2 : i64}
// CHECK-NEXT:    hip.split(%ctx) ins(%c : memref<?x3xi64>) outs(%a, %b : memref<2x3xi64>, memref<?x3xi64>)
// CHECK-NEXT:    hip.slice(%ctx, %n, %c0, %cm1, %c1) ins(%c : memref<?x3xi64>) outs(%b : memref<?x3xi64>)
// CHECK-NEXT:    hip.gather(%ctx) ins(%x, %idx : memref<?x?x64xf32>, memref<5xi32>) outs(%g : memref<?x5x64xf32>) {axis = 1 : i64}
// CHECK-NEXT:    hip.gather_nd(%ctx) ins(%c, %nd : memref<?x3xi64>, memref<?x1x2xi64>) outs(%gn : memref<?x1xi64>)
// CHECK-NEXT:    hip.expand(%ctx) ins(%h : memref<1x3xi64>) outs(%c : memref<?x3xi64>)
// CHECK-NEXT:    hip.range(%ctx, %start, %delta) outs(%r : memref<?xi64>)
// CHECK-NEXT:    hip.nonzero(%ctx) ins(%c : memref<?x3xi64>) outs(%nzi, %cnt : memref<2x?xi64>, memref<i64>)
// CHECK-NEXT:    func.return

// Explicitly spelled defaults are elided.
func.func @explicit_defaults(%ctx: !hip.context, %c: tensor<?x3xi64>, %nd: tensor<?x2xi64>, %gn: tensor<?xi64>, %x: tensor<4x4xf32>, %one: tensor<1x1xf32>) {
  %gnd = hip.gather_nd(%ctx) ins(%c, %nd : tensor<?x3xi64>, tensor<?x2xi64>) outs(%gn : tensor<?xi64>) {batch_dims = 0 : i64} -> tensor<?xi64>
  %g = hip.gemm(%ctx) ins(%x, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%x : tensor<4x4xf32>) {alpha = 1.000000e+00 : f32, trans_a = false} -> tensor<4x4xf32>
  %r = hip.reduce_sum(%ctx) ins(%x : tensor<4x4xf32>) outs(%one : tensor<1x1xf32>) {axes = array<i64>, keepdims = true} -> tensor<1x1xf32>
  %m = hip.matmul(%ctx) ins(%x, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%x : tensor<4x4xf32>) {trans_b = false} -> tensor<4x4xf32>
  func.return
}
// CHECK-LABEL: func.func @explicit_defaults
// CHECK-NEXT:    %gnd = hip.gather_nd(%ctx) ins(%c, %nd : tensor<?x3xi64>, tensor<?x2xi64>) outs(%gn : tensor<?xi64>) -> tensor<?xi64>
// CHECK-NEXT:    %g = hip.gemm(%ctx) ins(%x, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%x : tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %r = hip.reduce_sum(%ctx) ins(%x : tensor<4x4xf32>) outs(%one : tensor<1x1xf32>) -> tensor<1x1xf32>
// CHECK-NEXT:    %m = hip.matmul(%ctx) ins(%x, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%x : tensor<4x4xf32>) -> tensor<4x4xf32>

// A matmul that reads B transposed (a weight [N, K] of MatMul(x, Transpose(W))).
func.func @matmul_trans_b(%ctx: !hip.context, %x: tensor<?x?x64xf32>, %w: tensor<50x64xf32>, %y: tensor<?x?x50xf32>, %xm: memref<?x?x64xf32>, %wm: memref<50x64xf32>, %ym: memref<?x?x50xf32>) {
  %mt = hip.matmul(%ctx) ins(%x, %w : tensor<?x?x64xf32>, tensor<50x64xf32>) outs(%y : tensor<?x?x50xf32>) {trans_b = true} -> tensor<?x?x50xf32>
  hip.matmul(%ctx) ins(%xm, %wm : memref<?x?x64xf32>, memref<50x64xf32>) outs(%ym : memref<?x?x50xf32>) {trans_b = true}
  func.return
}
// CHECK-LABEL: func.func @matmul_trans_b
// CHECK-NEXT:    %mt = hip.matmul(%ctx) ins(%x, %w : tensor<?x?x64xf32>, tensor<50x64xf32>) outs(%y : tensor<?x?x50xf32>) {trans_b = true} -> tensor<?x?x50xf32>
// CHECK-NEXT:    hip.matmul(%ctx) ins(%xm, %wm : memref<?x?x64xf32>, memref<50x64xf32>) outs(%ym : memref<?x?x50xf32>) {trans_b = true}
// CHECK-NEXT:    func.return

// The generic form spells defaults; the operand segments are (ctx, scalars, ins, outs).
// GENERIC-LABEL: "func.func"() <{sym_name = "linalg_tensor"
// GENERIC:       %gemm = "hip.gemm"(%ctx, %s, %w, %s) <{operandSegmentSizes = array<i32: 1, 0, 2, 1>, alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = false}>
// GENERIC:       %ln = "hip.layer_norm"(%ctx, %x, %v, %y) <{operandSegmentSizes = array<i32: 1, 0, 2, 1>, axis = -1 : i64, epsilon = 1.000000e-05 : f32}>
// GENERIC-LABEL: "func.func"() <{sym_name = "scan"
// GENERIC:       %sum = "hip.cumsum"(%ctx, %x, %y) <{axis = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 1, 1>, exclusive = false, reverse = false}> : (!hip.context, tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
// GENERIC-LABEL: "func.func"() <{sym_name = "movement_memref"
// GENERIC:       "hip.slice"(%ctx, %n, %c0, %cm1, %c1, %c, %b) <{operandSegmentSizes = array<i32: 1, 4, 1, 1>}> : (!hip.context, index, index, index, index, memref<?x3xi64>, memref<?x3xi64>) -> ()
// GENERIC:       "hip.range"(%ctx, %start, %delta, %r) <{operandSegmentSizes = array<i32: 1, 2, 0, 1>}> : (!hip.context, i64, i64, memref<?xi64>) -> ()
// GENERIC:       "hip.nonzero"(%ctx, %c, %nzi, %cnt) <{operandSegmentSizes = array<i32: 1, 0, 1, 2>}> : (!hip.context, memref<?x3xi64>, memref<2x?xi64>, memref<i64>) -> ()
