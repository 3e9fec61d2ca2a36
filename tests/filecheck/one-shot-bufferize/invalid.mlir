// RUN: xhip-opt %s -p one-shot-bufferize --split-input-file --verify-diagnostics | filecheck %s
// RUN: not xhip-opt %s -p one-shot-bufferize --split-input-file 2>&1 | filecheck %s --check-prefix=EXIT

// Ops on tensors that the pass has no rule for are located errors, not silently kept.
func.func @unsupported(%ctx: !hip.context, %x: tensor<4xf32>, %v: f32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %y = tensor.insert %v into %x[%c0] : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: one-shot-bufferize: 'tensor.insert' on tensors is not supported
// EXIT: invalid.mlir:[[# @LINE - 4]]:3: error: one-shot-bufferize: 'tensor.insert' on tensors is not supported
// EXIT-NOT: Traceback

// -----

// An ONNX op left over by an incomplete conversion.
func.func @leftover_onnx(%ctx: !hip.context, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "onnx.Relu"(%x) {onnx_node_name = "relu0"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: one-shot-bufferize: 'onnx.Relu' on tensors is not supported

// -----

// Unranked tensors have no buffer type.
func.func @unranked(%ctx: !hip.context, %x: tensor<*xf32>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: one-shot-bufferize: argument #1 of '@unranked' is an unranked tensor (tensor<*xf32>)

// -----

// Tensors inside regions are not bufferized.
func.func @region(%ctx: !hip.context, %c: i1, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = scf.if %c -> (tensor<4xf32>) {
    scf.yield %x : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 7]]:3: error: one-shot-bufferize: tensors inside regions ('scf.if') are not supported
