"""ONNX-to-HIP conversion, one module per op family; see registry.CONVERTERS."""

from xhip.rewrite_rules.onnx_to_hip import elementwise  # noqa: F401 (registers converters)
from xhip.rewrite_rules.onnx_to_hip.registry import CONVERTERS, Converter, converts
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered

__all__ = ["CONVERTERS", "ConversionState", "Converter", "Lowered", "converts"]
