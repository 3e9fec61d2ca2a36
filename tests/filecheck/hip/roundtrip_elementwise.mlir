// RUN: xhip-opt %s | xhip-opt | filecheck %s
// RUN: xhip-opt %s --print-op-generic | xhip-opt | filecheck %s
// RUN: xhip-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Every elementwise hip op in tensor mode (results, `-> T`) and memref mode (no
// results), through the custom printer and through the generic one.

// Broadcast arithmetic, variadic max/min, comparisons, logic, where.
func.func @broadcast_tensor(%ctx: !hip.context, %a: tensor<?x4xf32>, %s: tensor<4xf32>, %z: tensor<f32>, %i: tensor<?x4xi32>, %p: tensor<?x4xi1>, %q: tensor<4xi1>, %init: tensor<?x4xf32>, %iinit: tensor<?x4xi32>, %pinit: tensor<?x4xi1>) {
  %add = hip.add(%ctx) ins(%a, %s : tensor<?x4xf32>, tensor<4xf32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  %sub = hip.sub(%ctx) ins(%a, %z : tensor<?x4xf32>, tensor<f32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  %mul = hip.mul(%ctx) ins(%i, %i : tensor<?x4xi32>, tensor<?x4xi32>) outs(%iinit : tensor<?x4xi32>) -> tensor<?x4xi32>
  %div = hip.div(%ctx) ins(%a, %a : tensor<?x4xf32>, tensor<?x4xf32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  %pow = hip.pow(%ctx) ins(%a, %i : tensor<?x4xf32>, tensor<?x4xi32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  %max1 = hip.max(%ctx) ins(%a : tensor<?x4xf32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  %max3 = hip.max(%ctx) ins(%a, %s, %z : tensor<?x4xf32>, tensor<4xf32>, tensor<f32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  %min = hip.min(%ctx) ins(%a, %s : tensor<?x4xf32>, tensor<4xf32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  %eq = hip.equal(%ctx) ins(%p, %q : tensor<?x4xi1>, tensor<4xi1>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
  %lt = hip.less(%ctx) ins(%a, %s : tensor<?x4xf32>, tensor<4xf32>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
  %gt = hip.greater(%ctx) ins(%i, %i : tensor<?x4xi32>, tensor<?x4xi32>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
  %le = hip.less_equal(%ctx) ins(%a, %a : tensor<?x4xf32>, tensor<?x4xf32>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
  %ge = hip.greater_equal(%ctx) ins(%a, %z : tensor<?x4xf32>, tensor<f32>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
  %and = hip.and(%ctx) ins(%p, %q : tensor<?x4xi1>, tensor<4xi1>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
  %or = hip.or(%ctx) ins(%p, %p : tensor<?x4xi1>, tensor<?x4xi1>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
  %where = hip.where(%ctx) ins(%q, %a, %z : tensor<4xi1>, tensor<?x4xf32>, tensor<f32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return
}
// CHECK-LABEL: func.func @broadcast_tensor
// CHECK-NEXT:    %add = hip.add(%ctx) ins(%a, %s : tensor<?x4xf32>, tensor<4xf32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %sub = hip.sub(%ctx) ins(%a, %z : tensor<?x4xf32>, tensor<f32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %mul = hip.mul(%ctx) ins(%i, %i : tensor<?x4xi32>, tensor<?x4xi32>) outs(%iinit : tensor<?x4xi32>) -> tensor<?x4xi32>
// CHECK-NEXT:    %div = hip.div(%ctx) ins(%a, %a : tensor<?x4xf32>, tensor<?x4xf32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %pow = hip.pow(%ctx) ins(%a, %i : tensor<?x4xf32>, tensor<?x4xi32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %max1 = hip.max(%ctx) ins(%a : tensor<?x4xf32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %max3 = hip.max(%ctx) ins(%a, %s, %z : tensor<?x4xf32>, tensor<4xf32>, tensor<f32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %min = hip.min(%ctx) ins(%a, %s : tensor<?x4xf32>, tensor<4xf32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %eq = hip.equal(%ctx) ins(%p, %q : tensor<?x4xi1>, tensor<4xi1>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
// CHECK-NEXT:    %lt = hip.less(%ctx) ins(%a, %s : tensor<?x4xf32>, tensor<4xf32>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
// CHECK-NEXT:    %gt = hip.greater(%ctx) ins(%i, %i : tensor<?x4xi32>, tensor<?x4xi32>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
// CHECK-NEXT:    %le = hip.less_equal(%ctx) ins(%a, %a : tensor<?x4xf32>, tensor<?x4xf32>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
// CHECK-NEXT:    %ge = hip.greater_equal(%ctx) ins(%a, %z : tensor<?x4xf32>, tensor<f32>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
// CHECK-NEXT:    %and = hip.and(%ctx) ins(%p, %q : tensor<?x4xi1>, tensor<4xi1>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
// CHECK-NEXT:    %or = hip.or(%ctx) ins(%p, %p : tensor<?x4xi1>, tensor<?x4xi1>) outs(%pinit : tensor<?x4xi1>) -> tensor<?x4xi1>
// CHECK-NEXT:    %where = hip.where(%ctx) ins(%q, %a, %z : tensor<4xi1>, tensor<?x4xf32>, tensor<f32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    func.return

func.func @broadcast_memref(%ctx: !hip.context, %a: memref<?x4xf32>, %s: memref<4xf32>, %z: memref<f32>, %i: memref<?x4xi32>, %p: memref<?x4xi1>, %q: memref<4xi1>, %o: memref<?x4xf32>, %io: memref<?x4xi32>, %po: memref<?x4xi1>) {
  hip.add(%ctx) ins(%a, %s : memref<?x4xf32>, memref<4xf32>) outs(%o : memref<?x4xf32>)
  hip.sub(%ctx) ins(%a, %z : memref<?x4xf32>, memref<f32>) outs(%o : memref<?x4xf32>)
  hip.mul(%ctx) ins(%i, %i : memref<?x4xi32>, memref<?x4xi32>) outs(%io : memref<?x4xi32>)
  hip.div(%ctx) ins(%a, %a : memref<?x4xf32>, memref<?x4xf32>) outs(%o : memref<?x4xf32>)
  hip.pow(%ctx) ins(%a, %i : memref<?x4xf32>, memref<?x4xi32>) outs(%o : memref<?x4xf32>)
  hip.max(%ctx) ins(%a : memref<?x4xf32>) outs(%o : memref<?x4xf32>)
  hip.max(%ctx) ins(%a, %s, %z : memref<?x4xf32>, memref<4xf32>, memref<f32>) outs(%o : memref<?x4xf32>)
  hip.min(%ctx) ins(%a, %s : memref<?x4xf32>, memref<4xf32>) outs(%o : memref<?x4xf32>)
  hip.equal(%ctx) ins(%p, %q : memref<?x4xi1>, memref<4xi1>) outs(%po : memref<?x4xi1>)
  hip.less(%ctx) ins(%a, %s : memref<?x4xf32>, memref<4xf32>) outs(%po : memref<?x4xi1>)
  hip.greater(%ctx) ins(%i, %i : memref<?x4xi32>, memref<?x4xi32>) outs(%po : memref<?x4xi1>)
  hip.less_equal(%ctx) ins(%a, %a : memref<?x4xf32>, memref<?x4xf32>) outs(%po : memref<?x4xi1>)
  hip.greater_equal(%ctx) ins(%a, %z : memref<?x4xf32>, memref<f32>) outs(%po : memref<?x4xi1>)
  hip.and(%ctx) ins(%p, %q : memref<?x4xi1>, memref<4xi1>) outs(%po : memref<?x4xi1>)
  hip.or(%ctx) ins(%p, %p : memref<?x4xi1>, memref<?x4xi1>) outs(%po : memref<?x4xi1>)
  hip.where(%ctx) ins(%q, %a, %z : memref<4xi1>, memref<?x4xf32>, memref<f32>) outs(%o : memref<?x4xf32>)
  func.return
}
// CHECK-LABEL: func.func @broadcast_memref
// CHECK-NEXT:    hip.add(%ctx) ins(%a, %s : memref<?x4xf32>, memref<4xf32>) outs(%o : memref<?x4xf32>)
// CHECK-NEXT:    hip.sub(%ctx) ins(%a, %z : memref<?x4xf32>, memref<f32>) outs(%o : memref<?x4xf32>)
// CHECK-NEXT:    hip.mul(%ctx) ins(%i, %i : memref<?x4xi32>, memref<?x4xi32>) outs(%io : memref<?x4xi32>)
// CHECK-NEXT:    hip.div(%ctx) ins(%a, %a : memref<?x4xf32>, memref<?x4xf32>) outs(%o : memref<?x4xf32>)
// CHECK-NEXT:    hip.pow(%ctx) ins(%a, %i : memref<?x4xf32>, memref<?x4xi32>) outs(%o : memref<?x4xf32>)
// CHECK-NEXT:    hip.max(%ctx) ins(%a : memref<?x4xf32>) outs(%o : memref<?x4xf32>)
// CHECK-NEXT:    hip.max(%ctx) ins(%a, %s, %z : memref<?x4xf32>, memref<4xf32>, memref<f32>) outs(%o : memref<?x4xf32>)
// CHECK-NEXT:    hip.min(%ctx) ins(%a, %s : memref<?x4xf32>, memref<4xf32>) outs(%o : memref<?x4xf32>)
// CHECK-NEXT:    hip.equal(%ctx) ins(%p, %q : memref<?x4xi1>, memref<4xi1>) outs(%po : memref<?x4xi1>)
// CHECK-NEXT:    hip.less(%ctx) ins(%a, %s : memref<?x4xf32>, memref<4xf32>) outs(%po : memref<?x4xi1>)
// CHECK-NEXT:    hip.greater(%ctx) ins(%i, %i : memref<?x4xi32>, memref<?x4xi32>) outs(%po : memref<?x4xi1>)
// CHECK-NEXT:    hip.less_equal(%ctx) ins(%a, %a : memref<?x4xf32>, memref<?x4xf32>) outs(%po : memref<?x4xi1>)
// CHECK-NEXT:    hip.greater_equal(%ctx) ins(%a, %z : memref<?x4xf32>, memref<f32>) outs(%po : memref<?x4xi1>)
// CHECK-NEXT:    hip.and(%ctx) ins(%p, %q : memref<?x4xi1>, memref<4xi1>) outs(%po : memref<?x4xi1>)
// CHECK-NEXT:    hip.or(%ctx) ins(%p, %p : memref<?x4xi1>, memref<?x4xi1>) outs(%po : memref<?x4xi1>)
// CHECK-NEXT:    hip.where(%ctx) ins(%q, %a, %z : memref<4xi1>, memref<?x4xf32>, memref<f32>) outs(%o : memref<?x4xf32>)
// CHECK-NEXT:    func.return

// Unary ops, cast, gelu (the default approximation is elided), copy and fill.
func.func @unary_tensor(%ctx: !hip.context, %x: tensor<?x?xf16>, %i: tensor<8xi64>, %p: tensor<8xi1>, %init: tensor<?x?xf16>, %iinit: tensor<8xi64>, %pinit: tensor<8xi1>, %finit: tensor<8xf32>, %v: f16) {
  %relu = hip.relu(%ctx) ins(%i : tensor<8xi64>) outs(%iinit : tensor<8xi64>) -> tensor<8xi64>
  %sigmoid = hip.sigmoid(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
  %tanh = hip.tanh(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
  %erf = hip.erf(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
  %sqrt = hip.sqrt(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
  %exp = hip.exp(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
  %log = hip.log(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
  %neg = hip.neg(%ctx) ins(%i : tensor<8xi64>) outs(%iinit : tensor<8xi64>) -> tensor<8xi64>
  %abs = hip.abs(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
  %recip = hip.reciprocal(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
  %not = hip.not(%ctx) ins(%p : tensor<8xi1>) outs(%pinit : tensor<8xi1>) -> tensor<8xi1>
  %cast = hip.cast(%ctx) ins(%i : tensor<8xi64>) outs(%finit : tensor<8xf32>) -> tensor<8xf32>
  %gelu = hip.gelu(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
  %gelu_tanh = hip.gelu(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) {approximate = "tanh"} -> tensor<?x?xf16>
  %copy = hip.copy(%ctx) ins(%p : tensor<8xi1>) outs(%pinit : tensor<8xi1>) -> tensor<8xi1>
  %fill = hip.fill(%ctx, %v) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
  func.return
}
// CHECK-LABEL: func.func @unary_tensor
// CHECK-NEXT:    %relu = hip.relu(%ctx) ins(%i : tensor<8xi64>) outs(%iinit : tensor<8xi64>) -> tensor<8xi64>
// CHECK-NEXT:    %sigmoid = hip.sigmoid(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT:    %tanh = hip.tanh(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT:    %erf = hip.erf(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT:    %sqrt = hip.sqrt(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT:    %exp = hip.exp(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT:    %log = hip.log(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT:    %neg = hip.neg(%ctx) ins(%i : tensor<8xi64>) outs(%iinit : tensor<8xi64>) -> tensor<8xi64>
// CHECK-NEXT:    %abs = hip.abs(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT:    %recip = hip.reciprocal(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT:    %not = hip.not(%ctx) ins(%p : tensor<8xi1>) outs(%pinit : tensor<8xi1>) -> tensor<8xi1>
// CHECK-NEXT:    %cast = hip.cast(%ctx) ins(%i : tensor<8xi64>) outs(%finit : tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    %gelu = hip.gelu(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT:    %gelu_tanh = hip.gelu(%ctx) ins(%x : tensor<?x?xf16>) outs(%init : tensor<?x?xf16>) {approximate = "tanh"} -> tensor<?x?xf16>
// CHECK-NEXT:    %copy = hip.copy(%ctx) ins(%p : tensor<8xi1>) outs(%pinit : tensor<8xi1>) -> tensor<8xi1>
// CHECK-NEXT:    %fill = hip.fill(%ctx, %v) outs(%init : tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT:    func.return

func.func @unary_memref(%ctx: !hip.context, %x: memref<?x?xf16, strided<[?, 1], offset: ?>>, %i: memref<8xi64>, %p: memref<8xi1>, %o: memref<?x?xf16>, %io: memref<8xi64>, %po: memref<8xi1>, %fo: memref<8xf32>, %v: f16) {
  hip.relu(%ctx) ins(%i : memref<8xi64>) outs(%io : memref<8xi64>)
  hip.sigmoid(%ctx) ins(%x : memref<?x?xf16, strided<[?, 1], offset: ?>>) outs(%o : memref<?x?xf16>)
  hip.tanh(%ctx) ins(%x : memref<?x?xf16, strided<[?, 1], offset: ?>>) outs(%o : memref<?x?xf16>)
  hip.erf(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
  hip.sqrt(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
  hip.exp(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
  hip.log(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
  hip.neg(%ctx) ins(%i : memref<8xi64>) outs(%io : memref<8xi64>)
  hip.abs(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
  hip.reciprocal(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
  hip.not(%ctx) ins(%p : memref<8xi1>) outs(%po : memref<8xi1>)
  hip.cast(%ctx) ins(%i : memref<8xi64>) outs(%fo : memref<8xf32>)
  hip.gelu(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
  hip.gelu(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>) {approximate = "tanh"}
  hip.copy(%ctx) ins(%p : memref<8xi1>) outs(%po : memref<8xi1>)
  hip.fill(%ctx, %v) outs(%o : memref<?x?xf16>)
  func.return
}
// CHECK-LABEL: func.func @unary_memref
// CHECK-NEXT:    hip.relu(%ctx) ins(%i : memref<8xi64>) outs(%io : memref<8xi64>)
// CHECK-NEXT:    hip.sigmoid(%ctx) ins(%x : memref<?x?xf16, strided<[?, 1], offset: ?>>) outs(%o : memref<?x?xf16>)
// CHECK-NEXT:    hip.tanh(%ctx) ins(%x : memref<?x?xf16, strided<[?, 1], offset: ?>>) outs(%o : memref<?x?xf16>)
// CHECK-NEXT:    hip.erf(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
// CHECK-NEXT:    hip.sqrt(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
// CHECK-NEXT:    hip.exp(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
// CHECK-NEXT:    hip.log(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
// CHECK-NEXT:    hip.neg(%ctx) ins(%i : memref<8xi64>) outs(%io : memref<8xi64>)
// CHECK-NEXT:    hip.abs(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
// CHECK-NEXT:    hip.reciprocal(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
// CHECK-NEXT:    hip.not(%ctx) ins(%p : memref<8xi1>) outs(%po : memref<8xi1>)
// CHECK-NEXT:    hip.cast(%ctx) ins(%i : memref<8xi64>) outs(%fo : memref<8xf32>)
// CHECK-NEXT:    hip.gelu(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>)
// CHECK-NEXT:    hip.gelu(%ctx) ins(%o : memref<?x?xf16>) outs(%o : memref<?x?xf16>) {approximate = "tanh"}
// CHECK-NEXT:    hip.copy(%ctx) ins(%p : memref<8xi1>) outs(%po : memref<8xi1>)
// CHECK-NEXT:    hip.fill(%ctx, %v) outs(%o : memref<?x?xf16>)
// CHECK-NEXT:    func.return

// isnan: a float input, an i1 output of the same shape.
func.func @isnan(%ctx: !hip.context, %x: tensor<?x8xf32>, %init: tensor<?x8xi1>, %m: memref<?x8xf16>, %o: memref<?x8xi1>) {
  %t = hip.isnan(%ctx) ins(%x : tensor<?x8xf32>) outs(%init : tensor<?x8xi1>) -> tensor<?x8xi1>
  hip.isnan(%ctx) ins(%m : memref<?x8xf16>) outs(%o : memref<?x8xi1>)
  func.return
}
// CHECK-LABEL: func.func @isnan
// CHECK-NEXT:    %t = hip.isnan(%ctx) ins(%x : tensor<?x8xf32>) outs(%init : tensor<?x8xi1>) -> tensor<?x8xi1>
// CHECK-NEXT:    hip.isnan(%ctx) ins(%m : memref<?x8xf16>) outs(%o : memref<?x8xi1>)
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "isnan"
// GENERIC:       %t = "hip.isnan"(%ctx, %x, %init) <{operandSegmentSizes = array<i32: 1, 0, 1, 1>}> : (!hip.context, tensor<?x8xf32>, tensor<?x8xi1>) -> tensor<?x8xi1>

// An explicitly spelled default is dropped, a discardable attribute is kept, and
// the generic form carries the operand segments (ctx, scalars, ins, outs).
func.func @defaults(%ctx: !hip.context, %x: tensor<4xf32>, %v: f32) {
  %g = hip.gelu(%ctx) ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {approximate = "none", onnx_node_name = "g0"} -> tensor<4xf32>
  %f = hip.fill(%ctx, %v) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  func.return
}
// CHECK-LABEL: func.func @defaults
// CHECK-NEXT:    %g = hip.gelu(%ctx) ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {onnx_node_name = "g0"} -> tensor<4xf32>
// CHECK-NEXT:    %f = hip.fill(%ctx, %v) outs(%x : tensor<4xf32>) -> tensor<4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "defaults"
// GENERIC:       %g = "hip.gelu"(%ctx, %x, %x) <{approximate = "none", operandSegmentSizes = array<i32: 1, 0, 1, 1>}> {onnx_node_name = "g0"} : (!hip.context, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %f = "hip.fill"(%ctx, %v, %x) <{operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (!hip.context, f32, tensor<4xf32>) -> tensor<4xf32>
