// RUN: xhip-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The verifier of hip.fused_elementwise: every step names an elementwise op, refers
// to existing inputs and earlier steps, satisfies its op's own type rules; every
// input and step is used; the output has the last step's element type.

func.func @unknown_op(%ctx: !hip.context, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = hip.fused_elementwise(%ctx) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {steps = [#hip.step<hip.softmax(in0) : f32>]} -> tensor<8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.fused_elementwise' op step #0 'hip.softmax' is not an elementwise hip op with a C expression
  func.return %r : tensor<8xf32>
}

// -----

func.func @bad_arg(%ctx: !hip.context, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = hip.fused_elementwise(%ctx) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {steps = [#hip.step<hip.neg(in0) : f32>, #hip.step<hip.add(t0, in1) : f32>]} -> tensor<8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.fused_elementwise' op step #1 argument 'in1' names no input or earlier step (there are 1 inputs)
  func.return %r : tensor<8xf32>
}

// -----

func.func @later_step(%ctx: !hip.context, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = hip.fused_elementwise(%ctx) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {steps = [#hip.step<hip.neg(t0) : f32>]} -> tensor<8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.fused_elementwise' op step #0 argument 't0' names no input or earlier step (there are 0 earlier steps)
  func.return %r : tensor<8xf32>
}

// -----

func.func @arg_spelling(%ctx: !hip.context, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = hip.fused_elementwise(%ctx) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {steps = [#hip.step<hip.neg(x0) : f32>]} -> tensor<8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.fused_elementwise' op step #0 argument 'x0' is neither an input (in0, in1, ...) nor an earlier step (t0, t1, ...)
  func.return %r : tensor<8xf32>
}

// -----

func.func @arity(%ctx: !hip.context, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = hip.fused_elementwise(%ctx) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {steps = [#hip.step<hip.add(in0) : f32>]} -> tensor<8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.fused_elementwise' op step #0 (hip.add): 'hip.add' op expects 2 ins operand(s), got 1
  func.return %r : tensor<8xf32>
}

// -----

func.func @step_types(%ctx: !hip.context, %x: tensor<8xf32>) -> tensor<8xi1> {
  %e = tensor.empty() : tensor<8xi1>
  %r = hip.fused_elementwise(%ctx) ins(%x : tensor<8xf32>) outs(%e : tensor<8xi1>) {steps = [#hip.step<hip.not(in0) : i1>]} -> tensor<8xi1>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.fused_elementwise' op step #0 (hip.not): 'hip.not' op input must have i1 elements, got f32
  func.return %r : tensor<8xi1>
}

// -----

func.func @comparison_result(%ctx: !hip.context, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = hip.fused_elementwise(%ctx) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {steps = [#hip.step<hip.less(in0, in0) : f32>]} -> tensor<8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.fused_elementwise' op step #0 (hip.less): 'hip.less' op comparison output must have i1 elements, got f32
  func.return %r : tensor<8xf32>
}

// -----

func.func @output_type(%ctx: !hip.context, %x: tensor<8xf32>) -> tensor<8xf16> {
  %e = tensor.empty() : tensor<8xf16>
  %r = hip.fused_elementwise(%ctx) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf16>) {steps = [#hip.step<hip.neg(in0) : f32>]} -> tensor<8xf16>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.fused_elementwise' op output element type f16 differs from the last step's f32
  func.return %r : tensor<8xf16>
}

// -----

func.func @unused_input(%ctx: !hip.context, %x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = hip.fused_elementwise(%ctx) ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {steps = [#hip.step<hip.neg(in0) : f32>]} -> tensor<8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.fused_elementwise' op in1 is never used by a step
  func.return %r : tensor<8xf32>
}

// -----

func.func @bad_property(%ctx: !hip.context, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = hip.fused_elementwise(%ctx) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {steps = [#hip.step<hip.gelu(in0) {approximate = "fast"} : f32>]} -> tensor<8xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.fused_elementwise' op step #0 (hip.gelu): 'hip.gelu' op approximate must be "none" or "tanh", got "fast"
  func.return %r : tensor<8xf32>
}

// -----

func.func @shape(%ctx: !hip.context, %x: tensor<8xf32>, %y: tensor<4x1xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %r = hip.fused_elementwise(%ctx) ins(%x, %y : tensor<8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x4xf32>) {steps = [#hip.step<hip.add(in0, in1) : f32>]} -> tensor<4x4xf32>
  // CHECK: {{.*}}invalid.mlir:[[# @LINE - 1]]:3: error: 'hip.fused_elementwise' op out #0 has shape [4, 4] but the operands broadcast to [4, 8]
  func.return %r : tensor<4x4xf32>
}
