// RUN: xhip-opt %xhip_root/examples/gpt2_2layer.onnx -p hip-add-context-arg,convert-onnx-to-hip,canonicalize,cse --elide-elementsattrs-if-larger 4 | filecheck %s
// RUN: xhip-opt %xhip_root/examples/gpt2_2layer.onnx -p hip-add-context-arg,convert-onnx-to-hip,canonicalize,cse | grep -o -E '"onnx\.|tensor\.dim|tensor\.reshape|tensor\.extract_slice|= hip\.(cumsum|layer_norm|gemm|split|matmul|softmax|isnan)' | filecheck %s --check-prefix=ORDER

// A real GPT-2 export (examples/gpt2_2layer.onnx: torch.onnx dynamo, opset 18,
// 2 layers, hidden 64, vocabulary 256) converts completely. Its shape code
// (Shape/Slice/Concat into Reshape, Range + Expand + GatherND for the causal
// mask, CumSum over positions) becomes host index arithmetic on the two extents
// of input_ids, each read once; the destinations of the attention and of the
// logits are sized by those very values.

// CHECK-NOT:     "onnx.
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME:    (%[[CTX:.*]]: !hip.context, %[[IDS:.*]]: tensor<?x?xi64> {onnx.dim_params = "0:batch,1:seq", onnx.name = "input_ids"})
// CHECK-SAME:    -> (tensor<?x?x256xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "logits"})
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[BATCH:.*]] = tensor.dim %[[IDS]], %[[C0]] : tensor<?x?xi64>
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[SEQ:.*]] = tensor.dim %[[IDS]], %[[C1]] : tensor<?x?xi64>
// CHECK:         %[[ROWS:.*]] = arith.muli %[[BATCH]], %[[SEQ]] : index
// CHECK-NOT:     "onnx.
// Token embedding: a gather of the [256, 64] table at input_ids.
// CHECK:         hip.gather(%[[CTX]]) ins(%[[WTE:[^,]*]], %[[IDS]] : tensor<256x64xf32>, tensor<?x?xi64>) outs(%{{.*}} : tensor<?x?x64xf32>)
// Position numbering for the mask: a cumsum over the last axis.
// CHECK:         hip.cumsum(%[[CTX]]) ins(%{{.*}} : tensor<?x?xi64>) outs(%{{.*}} : tensor<?x?xi64>) {axis = -1 : i64}
// First layer: layer norm, the fused q/k/v projection on [batch * seq, 64], split
// into three heads' worth: three views of it.
// CHECK:         hip.layer_norm(%[[CTX]])
// CHECK:         %[[QKV_INIT:.*]] = tensor.empty(%[[ROWS]]) : tensor<?x192xf32>
// CHECK-NEXT:    hip.gemm(%[[CTX]]) ins(%{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<64x192xf32>) outs(%[[QKV_INIT]] : tensor<?x192xf32>)
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0] [%[[BATCH]], %[[SEQ]], 64] [1, 1, 1] : tensor<?x?x192xf32> to tensor<?x?x64xf32>
// Attention scores [batch, 2, seq, seq], softmax on the last axis, NaNs zeroed.
// CHECK:         %[[SCORES:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]], %[[SEQ]]) : tensor<?x2x?x?xf32>
// CHECK-NEXT:    hip.matmul(%[[CTX]]) ins(%{{.*}}, %{{.*}} : tensor<?x2x?x32xf32>, tensor<?x2x32x?xf32>) outs(%[[SCORES]] : tensor<?x2x?x?xf32>)
// CHECK:         %[[PROBS:.*]] = hip.softmax(%[[CTX]]) ins(%{{.*}} : tensor<?x2x?x?xf32>) outs(%[[SCORES]] : tensor<?x2x?x?xf32>)
// CHECK-NEXT:    %[[NAN_INIT:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]], %[[SEQ]]) : tensor<?x2x?x?xi1>
// CHECK-NEXT:    hip.isnan(%[[CTX]]) ins(%[[PROBS]] : tensor<?x2x?x?xf32>) outs(%[[NAN_INIT]] : tensor<?x2x?x?xi1>)
// The attention output projection goes back to [batch, seq, 64] by an expand_shape.
// CHECK:         %[[PROJ:.*]] = hip.gemm(%[[CTX]]) ins(%{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<64x64xf32>)
// CHECK-NEXT:    tensor.expand_shape %[[PROJ]] {{\[\[}}0 : i64, 1 : i64], [2 : i64]] output_shape [%[[BATCH]], %[[SEQ]], 64]
// Logits: the final layer norm times the (tied) embedding table, read transposed:
// no transpose of the table, no transposed copy.
// CHECK-NOT:     hip.transpose(%[[CTX]]) ins(%[[WTE]] :
// CHECK:         %[[LOGITS_INIT:.*]] = tensor.empty(%[[BATCH]], %[[SEQ]]) : tensor<?x?x256xf32>
// CHECK-NOT:     hip.transpose(%[[CTX]]) ins(%[[WTE]] :
// CHECK:         %[[LOGITS:.*]] = hip.matmul(%[[CTX]]) ins(%{{.*}}, %[[WTE]] : tensor<?x?x64xf32>, tensor<256x64xf32>) outs(%[[LOGITS_INIT]] : tensor<?x?x256xf32>) {trans_b = true}
// CHECK-NEXT:    func.return %[[LOGITS]] : tensor<?x?x256xf32>

// The order of extents, views that need a runtime shape, and the model's main
// compute: two layers of (layer norm, q/k/v gemm, three views of it, the key transpose's two
// reshapes, scores, softmax, isnan, context, projection, layer norm, two MLP
// gemms), a final layer norm and the logits matmul. Nothing else is a
// tensor.reshape, and no onnx op is left.
// ORDER-NOT:       "onnx.
// ORDER:           {{^}}tensor.dim{{$}}
// ORDER-NEXT:      {{^}}tensor.dim{{$}}
// ORDER-COUNT-3:   {{^}}tensor.extract_slice{{$}}
// ORDER-NEXT:      {{^}}= hip.cumsum{{$}}
// ORDER-NEXT:      {{^}}= hip.layer_norm{{$}}
// ORDER-NEXT:      {{^}}= hip.gemm{{$}}
// ORDER-NEXT:      {{^}}tensor.extract_slice{{$}}
// ORDER-NEXT:      {{^}}tensor.extract_slice{{$}}
// ORDER-NEXT:      {{^}}tensor.extract_slice{{$}}
// ORDER-NEXT:      {{^}}tensor.reshape{{$}}
// ORDER-NEXT:      {{^}}tensor.reshape{{$}}
// ORDER-NEXT:      {{^}}= hip.matmul{{$}}
// ORDER-NEXT:      {{^}}= hip.softmax{{$}}
// ORDER-NEXT:      {{^}}= hip.isnan{{$}}
// ORDER-NEXT:      {{^}}= hip.matmul{{$}}
// ORDER-NEXT:      {{^}}= hip.gemm{{$}}
// ORDER-NEXT:      {{^}}= hip.layer_norm{{$}}
// ORDER-NEXT:      {{^}}= hip.gemm{{$}}
// ORDER-NEXT:      {{^}}= hip.gemm{{$}}
// ORDER-NEXT:      {{^}}= hip.layer_norm{{$}}
// ORDER-NEXT:      {{^}}= hip.gemm{{$}}
// ORDER-NEXT:      {{^}}tensor.extract_slice{{$}}
// ORDER-NEXT:      {{^}}tensor.extract_slice{{$}}
// ORDER-NEXT:      {{^}}tensor.extract_slice{{$}}
// ORDER-NEXT:      {{^}}tensor.reshape{{$}}
// ORDER-NEXT:      {{^}}tensor.reshape{{$}}
// ORDER-NEXT:      {{^}}= hip.matmul{{$}}
// ORDER-NEXT:      {{^}}= hip.softmax{{$}}
// ORDER-NEXT:      {{^}}= hip.isnan{{$}}
// ORDER-NEXT:      {{^}}= hip.matmul{{$}}
// ORDER-NEXT:      {{^}}= hip.gemm{{$}}
// ORDER-NEXT:      {{^}}= hip.layer_norm{{$}}
// ORDER-NEXT:      {{^}}= hip.gemm{{$}}
// ORDER-NEXT:      {{^}}= hip.gemm{{$}}
// ORDER-NEXT:      {{^}}= hip.layer_norm{{$}}
// ORDER-NEXT:      {{^}}= hip.matmul{{$}}
// ORDER-NOT:       {{.}}
