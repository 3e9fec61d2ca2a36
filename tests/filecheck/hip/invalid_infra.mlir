// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Every verifier error of the infrastructure ops, located at the op.

func.func @alloc_sizes(%ctx: !hip.context, %n: index) {
  %a = hip.alloc(%ctx, %n) : memref<?x?xf32>
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.alloc' op expected 2 dynamic size operand(s) for memref<?x?xf32>, got 1
  func.return
}

// -----

func.func @alloc_static_with_size(%ctx: !hip.context, %n: index) {
  %a = hip.alloc(%ctx, %n) : memref<4xf32>
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.alloc' op expected 0 dynamic size operand(s) for memref<4xf32>, got 1
  func.return
}

// -----

func.func @alloc_output_sizes(%ctx: !hip.context) {
  %o = hip.alloc_output(%ctx) {out_idx = 0 : i64} : memref<?x4xf32>
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.alloc_output' op expected 1 dynamic size operand(s) for memref<?x4xf32>, got 0
  func.return
}

// -----

func.func @alloc_output_index(%ctx: !hip.context) {
  %o = hip.alloc_output(%ctx) {out_idx = -1 : i64} : memref<4xf32>
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.alloc_output' op out_idx must be >= 0, got -1
  func.return
}

// -----

func.func @pool_type(%ctx: !hip.context, %n: index) {
  %p = hip.get_pool(%ctx, %n) : memref<?xf32>
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.get_pool' op result must be memref<?xi8>, got memref<?xf32>
  func.return
}

// -----

func.func @pool_domain(%ctx: !hip.context, %n: index) {
  %p = hip.get_pool(%ctx, %n) {domain_id = -2 : i64} : memref<?xi8>
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.get_pool' op domain_id must be >= 0, got -2
  func.return
}

// -----

func.func @scratch_type(%ctx: !hip.context, %n: index) {
  %s = hip.get_host_scratch(%ctx, %n) : memref<16xi8>
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.get_host_scratch' op result must be memref<?xi8>, got memref<16xi8>
  func.return
}

// -----

func.func @constant_shape(%ctx: !hip.context, %i: i64) {
  %k = hip.get_constant(%ctx, %i) : memref<?x64xf32>
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.get_constant' op constants have static shapes, got memref<?x64xf32>
  func.return
}

// -----

func.func @readback_many(%ctx: !hip.context, %m: memref<2xi64>) {
  %v = hip.readback_scalar(%ctx, %m) : memref<2xi64> -> i64
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.readback_scalar' op source must hold exactly one element, got memref<2xi64>
  func.return
}

// -----

func.func @readback_dynamic(%ctx: !hip.context, %m: memref<?xi64>) {
  %v = hip.readback_scalar(%ctx, %m) : memref<?xi64> -> i64
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.readback_scalar' op source must hold exactly one element, got memref<?xi64>
  func.return
}

// -----

func.func @readback_type(%ctx: !hip.context, %m: memref<f32>) {
  %v = hip.readback_scalar(%ctx, %m) : memref<f32> -> index
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.readback_scalar' op result must be f32 (from the source memref<f32>), got index
  func.return
}

// -----

func.func @readback_dim_empty(%ctx: !hip.context, %t: tensor<0xi32>) {
  %d = hip.readback_dim(%ctx, %t) : tensor<0xi32> -> index
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.readback_dim' op source must hold exactly one element, got tensor<0xi32>
  func.return
}

// -----

func.func @readback_dim_type(%ctx: !hip.context, %m: memref<1xf32>) {
  %d = hip.readback_dim(%ctx, %m) : memref<1xf32> -> index
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.readback_dim' op source element type must be i32 or i64, got f32
  func.return
}

// -----

func.func @readback_int_type(%ctx: !hip.context, %m: memref<1x1xi32>) {
  %v = hip.readback_scalar(%ctx, %m) : memref<1x1xi32> -> i64
  // CHECK: {{.*}}invalid_infra.mlir:[[# @LINE - 1]]:3: error: 'hip.readback_scalar' op result must be i32 or index (from the source memref<1x1xi32>), got i64
  func.return
}
