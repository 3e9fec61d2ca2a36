"""The two dialects of xhip: `onnx` (imported graphs) and `hip` (device work)."""
