// RUN: xhip-opt %s -p hip-add-context-arg --split-input-file | filecheck %s
// Running the pass twice changes nothing more: it is idempotent.
// RUN: xhip-opt %s -p hip-add-context-arg,hip-add-context-arg --split-input-file | filecheck %s

// The context becomes argument #0; argument and result attributes stay attached
// to their original values.
func.func @main_graph(%x: tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"}) -> (tensor<?x?x64xf32> {onnx.name = "out"}) {
  func.return %x : tensor<?x?x64xf32>
}
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME:    (%{{.*}}: !hip.context, %[[X:.*]]: tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"})
// CHECK-SAME:    -> (tensor<?x?x64xf32> {onnx.name = "out"})
// CHECK-NEXT:    func.return %[[X]] : tensor<?x?x64xf32>

// -----

// A function that already starts with a context is left alone.
func.func @has_ctx(%ctx: !hip.context, %a: index) -> index {
  func.return %a : index
}
// CHECK-LABEL: func.func @has_ctx(%ctx: !hip.context, %a: index) -> index
// CHECK-NOT:   !hip.context, !hip.context

// -----

// Declarations get the context in their type; calls pass the caller's context on.
func.func private @helper(index) -> index
func.func @caller(%a: index) -> index {
  %r = func.call @helper(%a) : (index) -> index
  func.return %r : index
}
// CHECK:       func.func private @helper(!hip.context, index) -> index
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[A:.*]]: index)
// CHECK-NEXT:    %{{.*}} = func.call @helper(%[[CTX]], %[[A]]) : (!hip.context, index) -> index

// -----

// A function with no arguments at all.
func.func @no_args() {
  func.return
}
// CHECK-LABEL: func.func @no_args(%{{.*}}: !hip.context)
