"""The table of ONNX-to-HIP converters, filled by the op-family modules."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import Operation

from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered

Converter = Callable[[Operation, ConversionState], Sequence[Lowered]]
"""Converts one ONNX op (its new IR goes before it); returns one Lowered per result."""

CONVERTERS: dict[str, Converter] = {}


def converts(*op_types: str) -> Callable[[Converter], Converter]:
    """Register a converter for ONNX op types, spelled as in ONNX (`"MatMul"`)."""

    def register(converter: Converter) -> Converter:
        for op_type in op_types:
            name = f"onnx.{op_type}"
            assert name not in CONVERTERS, f"two converters for {name}"
            CONVERTERS[name] = converter
        return converter

    return register
