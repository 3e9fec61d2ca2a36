// RUN: xhip-opt %s --split-input-file -p hip-fuse-elementwise | filecheck %s
// RUN: xhip-opt %s --split-input-file -p hip-fuse-elementwise,hip-fuse-elementwise | filecheck %s
// RUN: xhip-opt %s --split-input-file -p 'hip-fuse-elementwise{fuse-broadcast-producers=false}' | filecheck %s --check-prefix=SAME-SHAPE
// RUN: xhip-opt %s --split-input-file -p 'hip-fuse-elementwise{max-steps=2}' | filecheck %s --check-prefix=TWO

// A chain mul -> add -> tanh whose intermediates have one use each becomes one op
// over the chain's three inputs; the dead inits go too. A second run changes nothing.

func.func @chain(%ctx: !hip.context, %x: tensor<?x8xf32>, %y: tensor<?x8xf32>, %z: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e0 = tensor.empty(%d) : tensor<?x8xf32>
  %m = hip.mul(%ctx) ins(%x, %y : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e0 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %e1 = tensor.empty(%d) : tensor<?x8xf32>
  %a = hip.add(%ctx) ins(%m, %z : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e1 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %e2 = tensor.empty(%d) : tensor<?x8xf32>
  %t = hip.tanh(%ctx) ins(%a : tensor<?x8xf32>) outs(%e2 : tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %t : tensor<?x8xf32>
}
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x8xf32>, %[[Y:.*]]: tensor<?x8xf32>, %[[Z:.*]]: tensor<?x8xf32>)
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x8xf32>
// CHECK-NEXT:    %[[R:.*]] = hip.fused_elementwise(%[[CTX]]) ins(%[[X]], %[[Y]], %[[Z]] : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) outs(%[[E]] : tensor<?x8xf32>)
// CHECK-SAME:      {steps = [#hip.step<hip.mul(in0, in1) : f32>, #hip.step<hip.add(t0, in2) : f32>, #hip.step<hip.tanh(t1) : f32>]}
// CHECK-NEXT:    func.return %[[R]]
// TWO-LABEL:   func.func @chain
// TWO:           hip.fused_elementwise{{.*}}{steps = [#hip.step<hip.mul(in0, in1) : f32>, #hip.step<hip.add(t0, in2) : f32>]}
// TWO:           hip.tanh

// -----

// A value with two uses stays a buffer: neither user may absorb its producer.
// The exp feeds the sub alone, so that pair fuses.

func.func @two_uses(%ctx: !hip.context, %x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %s = hip.sigmoid(%ctx) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %n = hip.neg(%ctx) ins(%s : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %p = hip.exp(%ctx) ins(%s : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %q = hip.sub(%ctx) ins(%p, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  func.return %n, %q : tensor<8xf32>, tensor<8xf32>
}
// CHECK-LABEL: func.func @two_uses
// CHECK:         %[[S:.*]] = hip.sigmoid
// CHECK-NEXT:    %[[N:.*]] = hip.neg(%{{.*}}) ins(%[[S]] : tensor<8xf32>)
// CHECK-NEXT:    %[[Q:.*]] = hip.fused_elementwise(%{{.*}}) ins(%[[S]], %{{.*}} : tensor<8xf32>, tensor<8xf32>)
// CHECK-SAME:      {steps = [#hip.step<hip.exp(in0) : f32>, #hip.step<hip.sub(t0, in1) : f32>]}
// CHECK-NEXT:    func.return %[[N]], %[[Q]]

// -----

// A graph output is a use outside the chain: the producer is returned, so it stays.

func.func @returned(%ctx: !hip.context, %x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = hip.abs(%ctx) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = hip.sqrt(%ctx) ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  func.return %a, %s : tensor<8xf32>, tensor<8xf32>
}
// CHECK-LABEL: func.func @returned
// CHECK-NOT:     hip.fused_elementwise
// CHECK:         func.return

// -----

// Broadcast operands: the bias [8] and the scalar scale enter the fused op as they
// are (the kernel broadcasts them). The scaled bias is a producer of a smaller shape:
// by default it is recomputed per output element; with fuse-broadcast-producers=false
// it stays its own op and only the same-shape add fuses into the relu.

func.func @broadcast(%ctx: !hip.context, %x: tensor<?x8xf32>, %bias: tensor<8xf32>, %scale: tensor<f32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x8xf32>
  %eb = tensor.empty() : tensor<8xf32>
  %b = hip.mul(%ctx) ins(%bias, %scale : tensor<8xf32>, tensor<f32>) outs(%eb : tensor<8xf32>) -> tensor<8xf32>
  %e = tensor.empty(%d) : tensor<?x8xf32>
  %a = hip.add(%ctx) ins(%x, %b : tensor<?x8xf32>, tensor<8xf32>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %r = hip.relu(%ctx) ins(%a : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %r : tensor<?x8xf32>
}
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[X:.*]]: tensor<?x8xf32>, %[[BIAS:.*]]: tensor<8xf32>, %[[SCALE:.*]]: tensor<f32>)
// CHECK-NOT:     tensor.empty() : tensor<8xf32>
// CHECK:         hip.fused_elementwise(%[[CTX]]) ins(%[[BIAS]], %[[SCALE]], %[[X]] : tensor<8xf32>, tensor<f32>, tensor<?x8xf32>) outs(%{{.*}} : tensor<?x8xf32>)
// CHECK-SAME:      {steps = [#hip.step<hip.mul(in0, in1) : f32>, #hip.step<hip.add(in2, t0) : f32>, #hip.step<hip.relu(t1) : f32>]}
// SAME-SHAPE-LABEL: func.func @broadcast
// SAME-SHAPE:       %[[B:.*]] = hip.mul
// SAME-SHAPE:       hip.fused_elementwise(%{{.*}}) ins(%{{.*}}, %[[B]] : tensor<?x8xf32>, tensor<8xf32>)
// SAME-SHAPE-SAME:    {steps = [#hip.step<hip.add(in0, in1) : f32>, #hip.step<hip.relu(t0) : f32>]}

// -----

// Element types change along a chain: a comparison's i1 feeds a where, a cast ends
// it; each step spells its result's element type. A value used twice by one op
// (%m in the where) is one input of the chain.

func.func @types(%ctx: !hip.context, %x: tensor<8xf32>, %zero: tensor<f32>) -> tensor<8xi32> {
  %e = tensor.empty() : tensor<8xf32>
  %eb = tensor.empty() : tensor<8xi1>
  %ei = tensor.empty() : tensor<8xi32>
  %m = hip.mul(%ctx) ins(%x, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %l = hip.less(%ctx) ins(%m, %zero : tensor<8xf32>, tensor<f32>) outs(%eb : tensor<8xi1>) -> tensor<8xi1>
  %w = hip.where(%ctx) ins(%l, %zero, %m : tensor<8xi1>, tensor<f32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %c = hip.cast(%ctx) ins(%w : tensor<8xf32>) outs(%ei : tensor<8xi32>) -> tensor<8xi32>
  func.return %c : tensor<8xi32>
}
// CHECK-LABEL: func.func @types
// CHECK-NOT:     tensor.empty() : tensor<8xi1>
// CHECK:         hip.fused_elementwise(%{{.*}}) ins(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<f32>) outs(%{{.*}} : tensor<8xi32>)
// CHECK-SAME:      {steps = [#hip.step<hip.mul(in0, in0) : f32>, #hip.step<hip.less(t0, in1) : i1>, #hip.step<hip.where(t1, in1, t0) : f32>, #hip.step<hip.cast(t2) : i32>]}
// CHECK-SAME:      -> tensor<8xi32>

// -----

// Ops whose kernel is not the elementwise template (softmax, matmul) end a chain.

func.func @barrier(%ctx: !hip.context, %x: tensor<4x8xf32>, %s: tensor<f32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %m = hip.mul(%ctx) ins(%x, %s : tensor<4x8xf32>, tensor<f32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = hip.softmax(%ctx) ins(%m : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = hip.exp(%ctx) ins(%p : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @barrier
// CHECK-NEXT:    tensor.empty
// CHECK-NEXT:    hip.mul
// CHECK-NEXT:    hip.softmax
// CHECK-NEXT:    hip.exp

// -----

// Memref mode (after one-shot-bufferize, or a compiled artifact run again) is left
// alone: the buffers are already chosen.

func.func @memref_mode(%ctx: !hip.context, %x: memref<8xf32>, %y: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  hip.neg(%ctx) ins(%x : memref<8xf32>) outs(%t : memref<8xf32>)
  hip.exp(%ctx) ins(%t : memref<8xf32>) outs(%y : memref<8xf32>)
  func.return
}
// CHECK-LABEL: func.func @memref_mode
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    hip.neg
// CHECK-NEXT:    hip.exp
