// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Errors shared by every destination-passing compute op: modes, results, operand
// counts, scalars, and the custom syntax.

func.func @mixed(%ctx: !hip.context, %m: memref<?x4xf32>, %t: tensor<?x4xf32>) {
  %r = hip.relu(%ctx) ins(%m : memref<?x4xf32>) outs(%t : tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.relu' op mixes tensor and memref operands
  func.return
}

// -----

func.func @tensor_without_result(%ctx: !hip.context, %t: tensor<?x4xf32>) {
  hip.relu(%ctx) ins(%t : tensor<?x4xf32>) outs(%t : tensor<?x4xf32>)
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.relu' op tensor mode needs one result per init: 1 init(s), 0 result(s)
  func.return
}

// -----

func.func @result_type(%ctx: !hip.context, %t: tensor<?x4xf32>) {
  %r = hip.relu(%ctx) ins(%t : tensor<?x4xf32>) outs(%t : tensor<?x4xf32>) -> tensor<8x4xf32>
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.relu' op result #0 type tensor<8x4xf32> differs from init type tensor<?x4xf32>
  func.return
}

// -----

func.func @memref_with_result(%ctx: !hip.context, %m: memref<4xf32>) {
  %r = hip.relu(%ctx) ins(%m : memref<4xf32>) outs(%m : memref<4xf32>) -> tensor<4xf32>
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.relu' op memref mode writes its outs and has no results
  func.return
}

// -----

func.func @too_few_ins(%ctx: !hip.context, %m: memref<4xf32>) {
  hip.add(%ctx) ins(%m : memref<4xf32>) outs(%m : memref<4xf32>)
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.add' op expects 2 ins operand(s), got 1
  func.return
}

// -----

func.func @no_ins(%ctx: !hip.context, %m: memref<4xf32>) {
  hip.max(%ctx) outs(%m : memref<4xf32>)
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.max' op expects at least 1 ins operand(s), got 0
  func.return
}

// -----

func.func @gemm_ins(%ctx: !hip.context, %m: memref<4x4xf32>) {
  hip.gemm(%ctx) ins(%m, %m, %m, %m : memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) outs(%m : memref<4x4xf32>)
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.gemm' op expects 2 to 3 ins operand(s), got 4
  func.return
}

// -----

func.func @too_many_outs(%ctx: !hip.context, %m: memref<4xf32>) {
  hip.exp(%ctx) ins(%m : memref<4xf32>) outs(%m, %m : memref<4xf32>, memref<4xf32>)
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.exp' op expects 1 outs operand(s), got 2
  func.return
}

// -----

func.func @range_with_ins(%ctx: !hip.context, %m: memref<4xf32>, %s: f32) {
  hip.range(%ctx, %s, %s) ins(%m : memref<4xf32>) outs(%m : memref<4xf32>)
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.range' op expects 0 ins operand(s), got 1
  func.return
}

// -----

// The seed's two-scalar transpose form is not ours: the permutation is `perm`.
func.func @unexpected_scalars(%ctx: !hip.context, %m: memref<4x4xf32>) {
  %c1 = arith.constant 1 : index
  hip.transpose(%ctx, %c1, %c1) ins(%m : memref<4x4xf32>) outs(%m : memref<4x4xf32>) {perm = array<i64: 1, 0>}
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.transpose' op expects 0 scalar operand(s), got 2
  func.return
}

// -----

func.func @missing_scalars(%ctx: !hip.context, %m: memref<4x4xf32>) {
  %c1 = arith.constant 1 : index
  hip.slice(%ctx, %c1, %c1) ins(%m : memref<4x4xf32>) outs(%m : memref<4x4xf32>)
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.slice' op expects 4 scalar operand(s), got 2
  func.return
}

// -----

func.func @scalar_type(%ctx: !hip.context, %m: memref<4xf32>, %i: i32) {
  hip.slice(%ctx, %i, %i) ins(%m : memref<4xf32>) outs(%m : memref<4xf32>)
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: 'hip.slice' op scalar operand #0 must be index, got i32
  func.return
}

// -----

func.func @scalar_not_scalar(%ctx: !hip.context, %m: memref<4xf32>) {
  "hip.fill"(%ctx, %m, %m) <{operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (!hip.context, memref<4xf32>, memref<4xf32>) -> ()
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: operand 'scalars' at position 1 does not verify: Unexpected attribute memref<4xf32>
  func.return
}

// -----

// Scalars carry no type in the custom syntax, so they must be defined above.
func.func @scalar_forward_reference(%ctx: !hip.context, %m: memref<4xf32>) {
  hip.fill(%ctx, %later) outs(%m : memref<4xf32>)
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:18: error: scalar operands must be defined before the op that uses them
  %later = arith.constant 1.0 : f32
  func.return
}

// -----

func.func @group_types(%ctx: !hip.context, %m: memref<4xf32>) {
  hip.add(%ctx) ins(%m, %m : memref<4xf32>) outs(%m : memref<4xf32>)
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:21: error: 2 operand(s) but 1 type(s)
  func.return
}

// -----

func.func @explicit_segments(%ctx: !hip.context, %m: memref<4xf32>) {
  hip.exp(%ctx) ins(%m : memref<4xf32>) outs(%m : memref<4xf32>) {operandSegmentSizes = array<i32: 1, 0, 1, 1>}
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:66: error: operandSegmentSizes is implied by the custom syntax
  func.return
}

// -----

func.func @unranked(%ctx: !hip.context, %t: tensor<*xf32>) {
  %r = "hip.exp"(%ctx, %t, %t) <{operandSegmentSizes = array<i32: 1, 0, 1, 1>}> : (!hip.context, tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: operand 'inputs' at position 1 does not verify: Unexpected attribute tensor<*xf32>
  func.return
}

// -----

func.func @missing_property(%ctx: !hip.context, %x: memref<2x3xf32>) {
  hip.transpose(%ctx) ins(%x : memref<2x3xf32>) outs(%x : memref<2x3xf32>)
  // CHECK: {{.*}}invalid_dps.mlir:[[# @LINE - 1]]:3: error: property 'perm' expected in operation 'hip.transpose'
  func.return
}
