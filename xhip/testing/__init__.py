"""Test drivers shared by the pytest suites and the benchmarks (ONNX backend node tests)."""
