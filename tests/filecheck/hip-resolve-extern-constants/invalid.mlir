// RUN: xhip-opt %s -p hip-resolve-extern-constants --split-input-file --verify-diagnostics | filecheck %s

builtin.module {
  "memref.global"() <{sym_name = "w", type = memref<4xf32>, initial_value, sym_visibility = "private"}> {hip.external_data = {index = 0 : i64, size = 16 : i64}} : () -> ()
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 2]]:3: error: @w: hip.external_data needs a non-negative integer 'offset'

// -----

builtin.module {
  "memref.global"() <{sym_name = "a", type = memref<4xf32>, initial_value, sym_visibility = "private"}> {hip.external_data = {index = 0 : i64, offset = 0 : i64, size = 16 : i64}} : () -> ()
  "memref.global"() <{sym_name = "b", type = memref<4xf32>, initial_value, sym_visibility = "private"}> {hip.external_data = {index = 0 : i64, offset = 64 : i64, size = 16 : i64}} : () -> ()
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 2]]:3: error: @b has constant index 0, already used by @a

// -----

builtin.module {
  "memref.global"() <{sym_name = "w", type = memref<4xf32>, initial_value, sym_visibility = "private"}> {hip.external_data = {index = 0 : i64, offset = 0 : i64, size = 16 : i64}} : () -> ()
  func.func @no_context(%x: memref<4xf32>) -> memref<4xf32> {
    %w = memref.get_global @w : memref<4xf32>
    func.return %w : memref<4xf32>
  }
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 5]]:3: error: hip-resolve-extern-constants: '@no_context' has no !hip.context as argument #0; reading @w needs one (run hip-add-context-arg first)

// -----

builtin.module {
  "memref.global"() <{sym_name = "w", type = memref<?xf32>, initial_value, sym_visibility = "private"}> {hip.external_data = {index = 0 : i64, offset = 0 : i64, size = 16 : i64}} : () -> ()
}
// CHECK: {{.*}}invalid.mlir:[[# @LINE - 2]]:3: error: @w: an external constant needs a static memref type
