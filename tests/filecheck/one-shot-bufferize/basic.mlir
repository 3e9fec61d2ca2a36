// RUN: xhip-opt %s -p one-shot-bufferize --split-input-file | filecheck %s

// The attention core as convert-onnx-to-hip + cse leave it (seed 003, pass 3): one
// tensor.empty shared by several destinations after cse still gives every DPS op a
// buffer of its own; tensor.dim becomes memref.dim; a global read through to_tensor
// is used as is; a small dense constant becomes a private constant global;
// arguments and results become identity-layout memrefs with their attributes.
builtin.module {
  "memref.global"() <{sym_name = "hip_ext_constant_0", type = memref<64x64xf32>, initial_value, sym_visibility = "private", alignment = 64 : i64}> {hip.external_data = {index = 0 : i64, offset = 0 : i64, size = 16384 : i64}} : () -> ()
  func.func @main_graph(%ctx: !hip.context, %x: tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"}) -> (tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "out"}) {
    %c0 = arith.constant 0 : index
    %b = tensor.dim %x, %c0 : tensor<?x?x64xf32>
    %c1 = arith.constant 1 : index
    %s = tensor.dim %x, %c1 : tensor<?x?x64xf32>
    %g = memref.get_global @hip_ext_constant_0 : memref<64x64xf32>
    %w = bufferization.to_tensor %g restrict : memref<64x64xf32> to tensor<64x64xf32>
    %scale = arith.constant dense<1.250000e-01> : tensor<f32>
    %e = tensor.empty(%b, %s) : tensor<?x?x64xf32>
    %q = hip.matmul(%ctx) ins(%x, %w : tensor<?x?x64xf32>, tensor<64x64xf32>) outs(%e : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    %k = hip.matmul(%ctx) ins(%x, %w : tensor<?x?x64xf32>, tensor<64x64xf32>) outs(%e : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    %sum = hip.add(%ctx) ins(%q, %k : tensor<?x?x64xf32>, tensor<?x?x64xf32>) outs(%e : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    %r = hip.mul(%ctx) ins(%sum, %scale : tensor<?x?x64xf32>, tensor<f32>) outs(%e : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
    func.return %r : tensor<?x?x64xf32>
  }
}
// CHECK:       "memref.global"() <{sym_name = "__constant_xf32", type = memref<f32>, initial_value = dense<1.250000e-01> : tensor<f32>, sym_visibility = "private", constant, alignment = 64 : i64}> : () -> ()
// CHECK:       "memref.global"() <{sym_name = "hip_ext_constant_0"
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME:    (%ctx: !hip.context, %x: memref<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"}) -> (memref<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "out"})
// CHECK:         %[[B:.*]] = memref.dim %x, %c0 : memref<?x?x64xf32>
// CHECK:         %[[S:.*]] = memref.dim %x, %c1 : memref<?x?x64xf32>
// CHECK-NEXT:    %[[G:.*]] = memref.get_global @hip_ext_constant_0 : memref<64x64xf32>
// CHECK-NEXT:    %[[SCALE:.*]] = memref.get_global @__constant_xf32 : memref<f32>
// CHECK-NEXT:    %[[Q:.*]] = memref.alloc(%[[B]], %[[S]]) {alignment = 64 : i64} : memref<?x?x64xf32>
// CHECK-NEXT:    hip.matmul(%ctx) ins(%x, %[[G]] : memref<?x?x64xf32>, memref<64x64xf32>) outs(%[[Q]] : memref<?x?x64xf32>)
// CHECK-NEXT:    %[[K:.*]] = memref.alloc(%[[B]], %[[S]]) {alignment = 64 : i64} : memref<?x?x64xf32>
// CHECK-NEXT:    hip.matmul(%ctx) ins(%x, %[[G]] : memref<?x?x64xf32>, memref<64x64xf32>) outs(%[[K]] : memref<?x?x64xf32>)
// CHECK-NEXT:    %[[SUM:.*]] = memref.alloc(%[[B]], %[[S]]) {alignment = 64 : i64} : memref<?x?x64xf32>
// CHECK-NEXT:    hip.add(%ctx) ins(%[[Q]], %[[K]] : memref<?x?x64xf32>, memref<?x?x64xf32>) outs(%[[SUM]] : memref<?x?x64xf32>)
// CHECK-NEXT:    %[[R:.*]] = memref.alloc(%[[B]], %[[S]]) {alignment = 64 : i64} : memref<?x?x64xf32>
// CHECK-NEXT:    hip.mul(%ctx) ins(%[[SUM]], %[[SCALE]] : memref<?x?x64xf32>, memref<f32>) outs(%[[R]] : memref<?x?x64xf32>)
// CHECK-NEXT:    func.return %[[R]] : memref<?x?x64xf32>
// CHECK-NOT:   tensor

// -----

// One op with the same empty as all three destinations (hip.split after cse): three
// buffers. A tensor.dim of an empty is its size operand, no buffer needed.
func.func @split(%ctx: !hip.context, %x: tensor<?x192xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>, index) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x192xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %a, %b, %c = hip.split(%ctx) ins(%x : tensor<?x192xf32>) outs(%e, %e, %e : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>) {axis = 1 : i64} -> tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>
  %d = tensor.dim %e, %c0 : tensor<?x64xf32>
  func.return %a, %c, %d : tensor<?x64xf32>, tensor<?x64xf32>, index
}
// CHECK-LABEL: func.func @split
// CHECK:         %[[N:.*]] = memref.dim %x, %c0 : memref<?x192xf32>
// CHECK-NEXT:    %[[A:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x64xf32>
// CHECK-NEXT:    %[[B:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x64xf32>
// CHECK-NEXT:    %[[C:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x64xf32>
// CHECK-NEXT:    hip.split(%ctx) ins(%x : memref<?x192xf32>) outs(%[[A]], %[[B]], %[[C]] : memref<?x64xf32>, memref<?x64xf32>, memref<?x64xf32>) {axis = 1 : i64}
// CHECK-NEXT:    func.return %[[A]], %[[C]], %[[N]] : memref<?x64xf32>, memref<?x64xf32>, index

// -----

// Equal constants share one global; different values of one type get numbered names.
func.func @constants(%ctx: !hip.context) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) {
  %a = arith.constant dense<[1, 2]> : tensor<2xi64>
  %b = arith.constant dense<[3, 4]> : tensor<2xi64>
  %c = arith.constant dense<[1, 2]> : tensor<2xi64>
  func.return %a, %b, %c : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>
}
// CHECK:       "memref.global"() <{sym_name = "__constant_2xi64", type = memref<2xi64>, initial_value = dense<[1, 2]> : tensor<2xi64>, sym_visibility = "private", constant, alignment = 64 : i64}>
// CHECK-NEXT:  "memref.global"() <{sym_name = "__constant_2xi64_0", type = memref<2xi64>, initial_value = dense<[3, 4]> : tensor<2xi64>, sym_visibility = "private", constant, alignment = 64 : i64}>
// CHECK-LABEL: func.func @constants
// CHECK-NEXT:    %[[A:.*]] = memref.get_global @__constant_2xi64 : memref<2xi64>
// CHECK-NEXT:    %[[B:.*]] = memref.get_global @__constant_2xi64_0 : memref<2xi64>
// CHECK-NEXT:    %[[C:.*]] = memref.get_global @__constant_2xi64 : memref<2xi64>
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]]

// -----

// A declaration's signature is converted too; scalars stay as they are.
func.func private @external(!hip.context, tensor<4xf32>, index) -> tensor<?xf32>
// CHECK: func.func private @external(!hip.context, memref<4xf32>, index) -> memref<?xf32>

// -----

// A graph output declared without a shape (ONNX inference leaves it unranked when
// an output reuses an input's name) returns a cast of a ranked value: the result
// takes the ranked type and the cast goes.
func.func @unranked_result(%ctx: !hip.context, %x: tensor<?xf32>) -> (tensor<*xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = hip.relu(%ctx) ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %u = tensor.cast %y : tensor<?xf32> to tensor<*xf32>
  func.return %u, %x : tensor<*xf32>, tensor<?xf32>
}
// CHECK-LABEL: func.func @unranked_result
// CHECK-SAME:    -> (memref<?xf32>, memref<?xf32>)
// CHECK:         %[[Y:.*]] = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
// CHECK-NEXT:    hip.relu(%ctx) ins(%x : memref<?xf32>) outs(%[[Y]] : memref<?xf32>)
// CHECK-NEXT:    func.return %[[Y]], %x : memref<?xf32>, memref<?xf32>
