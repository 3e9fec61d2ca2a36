"""Translators from ops to plan steps, one module per dialect; importing registers them."""

from xhip.runtime.translate import arith_ops, hip_ops, memref_ops, onnx_ops, tensor_ops  # noqa: F401
from xhip.runtime.translate.base import TRANSLATORS, PlanBuilder, Registers, RunState, Session, Step, located

__all__ = ["TRANSLATORS", "PlanBuilder", "Registers", "RunState", "Session", "Step", "located"]
