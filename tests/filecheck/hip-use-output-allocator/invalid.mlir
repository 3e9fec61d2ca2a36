// RUN: xhip-opt %s --allow-unregistered-dialect -p hip-use-output-allocator --split-input-file --verify-diagnostics | filecheck %s
// RUN: not xhip-opt %s --allow-unregistered-dialect -p hip-use-output-allocator --split-input-file 2>&1 | filecheck %s --check-prefix=EXIT

// The output allocator is reached through the context: a public function without
// one cannot allocate its outputs.
func.func @no_context(%n: index) -> memref<?xf32> {
  %y = memref.alloc(%n) : memref<?xf32>
  func.return %y : memref<?xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:1: error: hip-use-output-allocator: '@no_context' has no !hip.context as argument #0; allocating graph outputs needs one (run hip-add-context-arg first)
// EXIT: invalid.mlir:[[# @LINE - 5]]:1: error: hip-use-output-allocator: '@no_context' has no !hip.context as argument #0; allocating graph outputs needs one (run hip-add-context-arg first)
// EXIT-NOT: Traceback

// -----

// Tensors are not buffers yet.
func.func @tensor_result(%ctx: !hip.context, %x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3: error: hip-use-output-allocator: result #0 of '@tensor_result' is a tensor; run one-shot-bufferize first

// -----

// Graph outputs are contiguous buffers: a result type with a layout is refused.
func.func @strided_result(%ctx: !hip.context, %x: memref<4x8xf32>) -> memref<4x4xf32, strided<[8, 1]>> {
  %v = memref.subview %x[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  func.return %v : memref<4x4xf32, strided<[8, 1]>>
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3: error: hip-use-output-allocator: result #0 of '@strided_result' has a layout (memref<4x4xf32, strided<[8, 1]>>); graph outputs are contiguous

// -----

func.func @unranked_result(%ctx: !hip.context, %x: memref<*xf32>) -> memref<*xf32> {
  func.return %x : memref<*xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 2]]:3: error: hip-use-output-allocator: result #0 of '@unranked_result' is an unranked memref (memref<*xf32>)

// -----

func.func @blocks(%ctx: !hip.context, %n: index) -> memref<?xf32> {
  "test.br"()[^bb1] : () -> ()
^bb1:
  %y = memref.alloc(%n) : memref<?xf32>
  func.return %y : memref<?xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 6]]:1: error: hip-use-output-allocator: '@blocks' has 2 blocks; only single-block functions are supported
