// RUN: xhip-opt %s -p one-shot-bufferize --split-input-file | filecheck %s

// Value semantics: a DPS op never writes a buffer that holds a value. An init with
// content (here a function argument, then a global) is copied into a fresh buffer
// first, and the op writes the copy; the global is only ever read.
builtin.module {
  "memref.global"() <{sym_name = "weights", type = memref<4xf32>, initial_value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>, sym_visibility = "private", constant}> : () -> ()
  func.func @inits_with_content(%ctx: !hip.context, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %g = memref.get_global @weights : memref<4xf32>
    %w = bufferization.to_tensor %g restrict : memref<4xf32> to tensor<4xf32>
    %a = hip.cumsum(%ctx) ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {axis = 0 : i64} -> tensor<4xf32>
    %b = hip.relu(%ctx) ins(%x : tensor<4xf32>) outs(%w : tensor<4xf32>) -> tensor<4xf32>
    func.return %a, %b, %w : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
// CHECK-LABEL: func.func @inits_with_content
// CHECK-NEXT:    %[[G:.*]] = memref.get_global @weights : memref<4xf32>
// CHECK-NEXT:    %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT:    "memref.copy"(%x, %[[A]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    hip.cumsum(%ctx) ins(%x : memref<4xf32>) outs(%[[A]] : memref<4xf32>) {axis = 0 : i64}
// CHECK-NEXT:    %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT:    "memref.copy"(%[[G]], %[[B]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    hip.relu(%ctx) ins(%x : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[G]]
// CHECK-NOT:     outs(%[[G]]

// -----

// The undefined contents of an empty read as an input share one buffer, made right
// after the empty; its destination uses still get buffers of their own.
func.func @empty_as_input(%ctx: !hip.context, %n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %a = hip.relu(%ctx) ins(%e : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %b = hip.relu(%ctx) ins(%e : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  func.return %a, %b : tensor<?xf32>, tensor<?xf32>
}
// CHECK-LABEL: func.func @empty_as_input
// CHECK-NEXT:    %[[E:.*]] = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
// CHECK-NEXT:    %[[A:.*]] = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
// CHECK-NEXT:    hip.relu(%ctx) ins(%[[E]] : memref<?xf32>) outs(%[[A]] : memref<?xf32>)
// CHECK-NEXT:    %[[B:.*]] = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
// CHECK-NEXT:    hip.relu(%ctx) ins(%[[E]] : memref<?xf32>) outs(%[[B]] : memref<?xf32>)
// CHECK-NEXT:    func.return %[[A]], %[[B]]

// -----

// A hip op that only reads a tensor (a readback) reads its buffer.
func.func @readback(%ctx: !hip.context, %x: tensor<1xi64>) -> index {
  %e = tensor.empty() : tensor<1xi64>
  %y = hip.neg(%ctx) ins(%x : tensor<1xi64>) outs(%e : tensor<1xi64>) -> tensor<1xi64>
  %n = hip.readback_dim(%ctx, %y) : tensor<1xi64> -> index
  func.return %n : index
}
// CHECK-LABEL: func.func @readback
// CHECK-NEXT:    %[[Y:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1xi64>
// CHECK-NEXT:    hip.neg(%ctx) ins(%x : memref<1xi64>) outs(%[[Y]] : memref<1xi64>)
// CHECK-NEXT:    %n = hip.readback_dim(%ctx, %[[Y]]) : memref<1xi64> -> index
// CHECK-NEXT:    func.return %n : index
