"""The onnx dialect (placeholder until the dialect lands)."""

from xdsl.ir import Dialect

ONNX = Dialect("onnx", [], [])
