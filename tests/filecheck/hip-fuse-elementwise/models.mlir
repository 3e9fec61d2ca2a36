// RUN: xhip-opt %xhip_root/examples/gpt2_2layer.onnx -p 'onnx-fold-constants,hip-add-context-arg,convert-onnx-to-hip,hip-externalize-constants{externalize-min-num-elements=256},canonicalize,cse,hip-fuse-elementwise' --elide-elementsattrs-if-larger 4 | filecheck %s --check-prefix=GPT2
// RUN: %python -c "import onnx; from xhip.testing.transformer_stack import transformer_stack_model; onnx.save(transformer_stack_model(1), '%t.onnx')"
// RUN: xhip-opt %t.onnx -p 'onnx-fold-constants,hip-add-context-arg,convert-onnx-to-hip,hip-externalize-constants{externalize-min-num-elements=256},canonicalize,cse,hip-fuse-elementwise' --elide-elementsattrs-if-larger 4 | filecheck %s --check-prefix=STACK

// GPT-2 (examples/gpt2_2layer.onnx, torch.onnx dynamo export): each layer's tanh GELU,
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), is one fused op over the gemm's
// output and five scalar constants; pow, tanh and the seven arithmetic ops are gone.
// GPT2-LABEL: func.func @main_graph
// GPT2:         %[[C3:.*]] = arith.constant dense<3.000000e+00> : tensor<f32>
// GPT2:         %[[C044:.*]] = arith.constant dense<4.471500e-02> : tensor<f32>
// GPT2:         %[[C079:.*]] = arith.constant dense<0.797884583> : tensor<f32>
// GPT2-NOT:     = hip.pow
// GPT2:         %[[FF:.*]] = tensor.expand_shape %{{.*}} : tensor<?x256xf32> into tensor<?x?x256xf32>
// GPT2-NEXT:    %[[INIT:.*]] = tensor.empty
// GPT2-NEXT:    %{{.*}} = hip.fused_elementwise(%ctx) ins(%[[FF]], %[[C3]], %[[C044]], %[[C079]], %{{.*}}, %{{.*}} : tensor<?x?x256xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) outs(%[[INIT]] : tensor<?x?x256xf32>)
// GPT2-SAME:      {steps = [#hip.step<hip.pow(in0, in1) : f32>, #hip.step<hip.mul(t0, in2) : f32>, #hip.step<hip.add(in0, t1) : f32>, #hip.step<hip.mul(t2, in3) : f32>, #hip.step<hip.tanh(t3) : f32>, #hip.step<hip.add(t4, in4) : f32>, #hip.step<hip.mul(in0, in5) : f32>, #hip.step<hip.mul(t6, t5) : f32>]}
// GPT2-NOT:     = hip.tanh
// GPT2:         hip.fused_elementwise{{.*}}#hip.step<hip.tanh(t3) : f32>
// GPT2-NOT:     = hip.tanh
// GPT2-NOT:     = hip.pow
// GPT2:         func.return

// The transformer stack (xhip/testing/transformer_stack.py, one layer): the FFN's
// bias add and erf GELU, x/2 (1 + erf(x / sqrt 2)), are one fused op on the matmul's
// output; the bias value feeds two steps (t0) and is no buffer any more. Each residual
// add takes its projection's bias add. (The q/k/v bias adds stay: a reshape and a
// transpose read them, and the scale before the softmax is not this pass's part.)
// STACK-LABEL: func.func @main_graph
// STACK:         tensor.collapse_shape
// STACK-NEXT:    %[[H:.*]] = hip.matmul(%ctx) ins(%{{.*}}, %{{.*}} : tensor<?x?x256xf32>, tensor<256x256xf32>)
// STACK-NEXT:    %{{.*}} = hip.fused_elementwise(%ctx) ins(%[[H]], %{{.*}}, %arg0 : tensor<?x?x256xf32>, tensor<256xf32>, tensor<?x?x256xf32>)
// STACK-SAME:      {steps = [#hip.step<hip.add(in0, in1) : f32>, #hip.step<hip.add(in2, t0) : f32>]}
// STACK:         %[[FF1:.*]] = hip.matmul(%ctx) ins(%{{.*}}, %{{.*}} : tensor<?x?x256xf32>, tensor<256x1024xf32>)
// STACK-NEXT:    %[[GELU:.*]] = hip.fused_elementwise(%ctx) ins(%[[FF1]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?x1024xf32>, tensor<1024xf32>, tensor<f32>, tensor<f32>, tensor<f32>)
// STACK-SAME:      {steps = [#hip.step<hip.add(in0, in1) : f32>, #hip.step<hip.mul(t0, in2) : f32>, #hip.step<hip.erf(t1) : f32>, #hip.step<hip.add(t2, in3) : f32>, #hip.step<hip.mul(t0, in4) : f32>, #hip.step<hip.mul(t4, t3) : f32>]}
// STACK-NEXT:    %{{.*}} = hip.matmul(%ctx) ins(%[[GELU]], %{{.*}} : tensor<?x?x1024xf32>, tensor<1024x256xf32>)
// STACK-NEXT:    %{{.*}} = hip.fused_elementwise(%ctx)
// STACK-SAME:      {steps = [#hip.step<hip.add(in0, in1) : f32>, #hip.step<hip.add(in2, t0) : f32>]}
// STACK-NOT:     = hip.erf
// STACK-NOT:     = hip.add
// STACK:         func.return
