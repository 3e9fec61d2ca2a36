"""ONNX-to-HIP conversion, one module per op family; see registry.CONVERTERS."""

# Importing a family module registers its converters.
from xhip.rewrite_rules.onnx_to_hip import compositions, einsum, elementwise, linalg, movement, resize, shape_ops, windows  # noqa: F401
from xhip.rewrite_rules.onnx_to_hip.registry import CONVERTERS, Converter, converts
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered

__all__ = ["CONVERTERS", "ConversionState", "Converter", "Lowered", "converts"]
