// Structurally invalid ONNX graphs are one located line on stderr and exit 1,
// never a traceback and never "the last writer wins".
// RUN: %python %S/Inputs/make_model.py concat-empty-input %t.concat.onnx
// RUN: not xhip-opt %t.concat.onnx 2>&1 | filecheck %s --check-prefix=CONCAT
// RUN: %python %S/Inputs/make_model.py two-writers %t.writers.onnx
// RUN: not xhip-opt %t.writers.onnx 2>&1 | filecheck %s --check-prefix=WRITERS
// RUN: %python %S/Inputs/make_model.py negative-dim %t.dim.onnx
// RUN: not xhip-opt %t.dim.onnx 2>&1 | filecheck %s --check-prefix=DIM

// CONCAT: {{.*}}concat.onnx: error: onnx node "n3" (op 'Concat') input #1 has an empty name (an omitted input), but the op requires it
// CONCAT-NOT: Traceback
// WRITERS: {{.*}}writers.onnx: error: onnx node "b" (op 'Neg') writes 'y', which onnx node "a" (op 'Relu') already defines (each value name must be written once)
// DIM: {{.*}}dim.onnx: error: graph input 'x': dim 0 is -3; a static dim must not be negative
