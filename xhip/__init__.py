"""xhip: an ONNX-to-HIP compiler built on xDSL."""

__version__ = "0.1.0"
