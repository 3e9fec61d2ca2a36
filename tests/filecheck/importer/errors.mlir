// Import errors are one line on stderr, naming the file, the node, its op and
// domain, and xhip-opt exits 1.
// RUN: %python %S/Inputs/make_model.py depth-to-space %t.d2s.onnx
// RUN: not xhip-opt %t.d2s.onnx 2>&1 | filecheck %s --check-prefix=UNKNOWN-OP
// RUN: %python %S/Inputs/make_model.py custom-domain %t.domain.onnx
// RUN: not xhip-opt %t.domain.onnx 2>&1 | filecheck %s --check-prefix=DOMAIN
// RUN: %python %S/Inputs/make_model.py opset12 %t.opset.onnx
// RUN: not xhip-opt %t.opset.onnx 2>&1 | filecheck %s --check-prefix=OPSET
// RUN: not xhip-opt %t.missing.onnx 2>&1 | filecheck %s --check-prefix=MISSING

// UNKNOWN-OP: {{.*}}d2s.onnx: error: onnx node "d2s" (op 'DepthToSpace', domain 'ai.onnx') is not supported
// UNKNOWN-OP-NOT: Traceback
// DOMAIN: {{.*}}domain.onnx: error: onnx node "fused" (op 'FusedMatMul', domain 'com.microsoft') is not supported (xhip imports the ai.onnx domain only)
// OPSET: {{.*}}opset.onnx: error: onnx node "relu" (op 'Relu', domain 'ai.onnx') has its opset-6 form at opset 12, which xhip does not support (xhip knows the forms of opsets 13 to 21)
// MISSING: {{.*}}missing.onnx: error: cannot read ONNX model: no such file
