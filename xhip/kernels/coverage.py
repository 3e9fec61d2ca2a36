"""The kernel specializations CI compiles beyond what the test set uses: one per
elementwise op class (so every C_EXPR compiles), half-float forms, and the family forms
the test set does not reach (`benchmarks/compile_templates.py`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from xhip.dialects import hip
from xhip.dialects.hip.properties import FusedStep
from xhip.kernels.attention import attention_spec
from xhip.kernels.copy import copy_spec, pad_spec
from xhip.kernels.families import specs_for_launch
from xhip.kernels.gather import gather_spec
from xhip.kernels.matmul import matmul_spec
from xhip.kernels.reduce import REDUCTIONS
from xhip.kernels.spec_types import CTYPES, KernelSpec, Operand


def unique(specs: Iterable[KernelSpec]) -> list[KernelSpec]:
    """One spec per kernel name, first seen first. Two different specs of one name would
    be two kernels under one symbol: that is a bug in the naming, raised here."""
    chosen: dict[str, KernelSpec] = {}
    for spec in specs:
        seen = chosen.setdefault(spec.name, spec)
        if seen != spec:
            raise ValueError(f"two different kernels are both named {spec.name}")
    return list(chosen.values())


def coverage_specs() -> list[KernelSpec]:
    """One spec per elementwise op class (so every C_EXPR compiles), half-float forms,
    and the family forms the test set does not reach (reductions, gather_elements,
    fill, integer matmul, exclusive reverse cumsum, trilu, attention)."""
    f32, f16, i32, i64, b1 = (np.dtype(t) for t in ("float32", "float16", "int32", "int64", "bool"))
    specs: list[KernelSpec] = []
    for op_class in hip.HIP.operations:
        if getattr(op_class, "TEMPLATE", None) != "elementwise" or op_class is hip.FusedElementwiseOp:
            continue
        kind = getattr(op_class, "ELEMENT", hip.ElementKind.ANY).name
        for dtype in {"FLOAT": (f32, f16), "NUMERIC": (f32, f16, i32), "BOOL": (b1,)}.get(kind, (i64, f16)):
            specs.extend(_elementwise_cover(op_class, dtype))
    matrix = lambda dtype, rank=2: Operand(dtype, (None,) * rank, True)  # noqa: E731
    for op_class, _ in REDUCTIONS:
        for dtype in (f32, f16) if op_class.ELEMENT is hip.ElementKind.FLOAT else (f32, f16, i64):
            specs += specs_for_launch(op_class, {"axes": (1,)}, [matrix(dtype, 3)], [matrix(dtype, 3)])
    for op_class in (hip.ArgMaxOp, hip.ArgMinOp):  # both tie rules, floats and integers
        for dtype, last in ((f32, False), (f16, True), (i32, False)):
            specs += specs_for_launch(op_class, {"axes": (1,), "select_last_index": last}, [matrix(dtype, 3)], [matrix(i64, 3)])
    specs += specs_for_launch(hip.SoftmaxOp, {"axis": 1}, [matrix(f16, 3)], [matrix(f16, 3)])
    specs += specs_for_launch(hip.LayerNormOp, {"axis": 1}, [matrix(f32, 3), matrix(f32, 2)], [matrix(f32, 3)])
    specs += specs_for_launch(hip.CumSumOp, {"axis": 0, "exclusive": True, "reverse": True}, [matrix(f32)], [matrix(f32)])
    # Window pooling: 2-d max (a float and an 8-bit int), 1-d mean counting the padding in f16, 3-d dilated mean, an f16 3-norm.
    pools: list[tuple[np.dtype, int, dict[str, object]]] = [
        (f32, 4, {"kind": "max", "kernel_shape": (3, 3), "strides": (2, 2), "dilations": (1, 1), "pads": (1, 1, 1, 1)}),
        (np.dtype(np.uint8), 4, {"kind": "max", "kernel_shape": (2, 2), "strides": (1, 1), "dilations": (1, 1), "pads": (0, 0, 0, 0)}),
        (f16, 3, {"kind": "average", "kernel_shape": (3,), "strides": (2,), "dilations": (1,), "pads": (1, 1), "count_include_pad": True}),
        (f32, 5, {"kind": "average", "kernel_shape": (2, 2, 2), "strides": (1, 1, 1), "dilations": (2, 1, 1), "pads": (0, 1, 0, 0, 1, 0)}),
        (f16, 4, {"kind": "lp", "p": 3, "kernel_shape": (2, 2), "strides": (2, 2), "dilations": (1, 1), "pads": (0, 0, 1, 1)}),
    ]
    for dtype, rank, attributes in pools:
        specs += specs_for_launch(hip.PoolOp, attributes, [matrix(dtype, rank)], [matrix(dtype, rank)])
    # Direct convolution: 2-d 3x3 with a bias (f32, f16), 1-d strided and dilated without one.
    conv_2d = {"strides": (1, 1), "dilations": (1, 1), "pads": (1, 1, 1, 1), "group": 1}
    for dtype in (f32, f16):
        x, w, b = Operand(dtype, (None, None, None, None), True), Operand(dtype, (None, None, 3, 3), True), Operand(dtype, (None,), True)
        specs += specs_for_launch(hip.ConvOp, conv_2d, [x, w, b], [matrix(dtype, 4)])
    conv_1d = {"strides": (2,), "dilations": (2,), "pads": (0, 1), "group": 2}
    specs += specs_for_launch(hip.ConvOp, conv_1d, [matrix(f32, 3), Operand(f32, (None, None, 5), True)], [matrix(f32, 3)])
    # im2col: ResNet's 3x3 (f32, f16) and strided 7x7 stem, a 1-d strided dilated window, a 3-d one.
    im2cols: list[tuple[np.dtype, int, dict[str, object]]] = [
        (f32, 4, {"kernel_shape": (3, 3), "strides": (1, 1), "dilations": (1, 1), "pads": (1, 1, 1, 1)}),
        (f16, 4, {"kernel_shape": (3, 3), "strides": (1, 1), "dilations": (1, 1), "pads": (1, 1, 1, 1)}),
        (f32, 4, {"kernel_shape": (7, 7), "strides": (2, 2), "dilations": (1, 1), "pads": (3, 3, 3, 3)}),
        (f32, 3, {"kernel_shape": (3,), "strides": (2,), "dilations": (2,), "pads": (1, 0)}),
        (f16, 5, {"kernel_shape": (3, 3, 3), "strides": (1, 2, 2), "dilations": (1, 1, 1), "pads": (1, 1, 1, 1, 1, 1)}),
    ]
    for dtype, rank, attributes in im2cols:
        specs += specs_for_launch(hip.Im2ColOp, attributes, [matrix(dtype, rank)], [matrix(dtype, 3)])
    # Transposed: 2-d strided with a bias (f32), 1-d dilated in 2 groups (f16).
    up_2d = {"strides": (2, 2), "dilations": (1, 1), "pads": (1, 1, 1, 1), "group": 1, "output_padding": (1, 1), "output_shape": ()}
    x, w, b = Operand(f32, (None,) * 4, True), Operand(f32, (None, None, 3, 3), True), Operand(f32, (None,), True)
    specs += specs_for_launch(hip.ConvTransposeOp, up_2d, [x, w, b], [matrix(f32, 4)])
    up_1d = {"strides": (1,), "dilations": (2,), "pads": (0, 0), "group": 2, "output_padding": (0,), "output_shape": ()}
    specs += specs_for_launch(hip.ConvTransposeOp, up_1d, [matrix(f16, 3), Operand(f16, (None, None, 4), True)], [matrix(f16, 3)])
    # Resize: nearest 2x (f16), linear to a run-time size, cubic with exclude_outside, a crop;
    # antialiased linear (f16, 8 and 2 taps) and cubic with exclude_outside (8 taps).
    resizes: list[tuple[np.dtype, dict[str, object]]] = [
        (f16, {"mode": "nearest", "coordinate_mode": "asymmetric", "scales": (1.0, 1.0, 2.0, 2.0), "resized": (0, 0, 1, 1), "roi": ()}),
        (f32, {"mode": "linear", "coordinate_mode": "pytorch_half_pixel", "scales": (1.0, 1.0, 0.0, 0.0), "resized": (0, 0, 1, 1), "roi": ()}),
        (f32, {"mode": "cubic", "coordinate_mode": "half_pixel", "scales": (1.0, 1.0, 2.0, 0.5), "resized": (0, 0, 1, 1), "roi": (), "exclude_outside": True}),
        (f32, {"mode": "linear", "coordinate_mode": "tf_crop_and_resize", "scales": (1.0, 1.0, 0.0, 0.0), "resized": (0, 0, 1, 1),
               "roi": (0.0, 0.0, 0.1, 0.2, 1.0, 1.0, 0.9, 1.1), "extrapolation_value": 1.5}),
        (f16, {"mode": "linear", "coordinate_mode": "half_pixel", "scales": (1.0, 1.0, 0.3, 2.0), "resized": (0, 0, 1, 1), "roi": (), "antialias": True}),
        (f32, {"mode": "cubic", "coordinate_mode": "asymmetric", "scales": (1.0, 1.0, 0.6, 0.6), "resized": (0, 0, 1, 1), "roi": (),
               "antialias": True, "exclude_outside": True}),
    ]
    for dtype, attributes in resizes:
        specs += specs_for_launch(hip.ResizeOp, attributes, [matrix(dtype, 4)], [matrix(dtype, 4)])
    specs += specs_for_launch(hip.FillOp, {}, [], [matrix(f16, 3)])
    specs += specs_for_launch(hip.RangeOp, {}, [], [matrix(f32, 1)])
    specs += specs_for_launch(hip.NonZeroOp, {}, [matrix(f32, 0)], [matrix(i64), Operand(i32, (), True)])
    bf16 = next((d for d in map(np.dtype, CTYPES) if d.name == "bfloat16"), None)
    if bf16 is not None:  # bfloat16 storage, float arithmetic, both directions of a cast
        specs += specs_for_launch(hip.AddOp, {}, [matrix(bf16), matrix(bf16)], [matrix(bf16)])
        specs += specs_for_launch(hip.CastOp, {}, [matrix(f32)], [matrix(bf16)])
        specs += specs_for_launch(hip.CastOp, {}, [matrix(bf16)], [matrix(f16)])
    specs += _fused_cover(f16) + _fused_cover(i32)
    specs.append(gather_spec("gather_elements", 4, i32, 3, 3, 3, axis=1))
    specs.append(matmul_spec(i32, 1, False))
    specs.append(matmul_spec(f16, 1, False, f32))  # half operands into float32 (hip-fold-cast-into-matmul)
    specs.append(copy_spec(2, 0, True))
    specs += [pad_spec(4, 3, mode) for mode in ("constant", "reflect", "edge", "wrap")] + [pad_spec(2, 4, "constant")]
    specs += [copy_spec(4, 3, False, "upper"), copy_spec(1, 2, True, "lower")]  # Trilu
    # Attention: the head dims fusion takes (the seed's 64, 16/32 of the exports, 128), each mask kind, f16.
    specs += [attention_spec(f32, 1, d, d) for d in (16, 32, 64, 128)] + [attention_spec(f32, 2, 64, 64, "keep")]
    specs += [attention_spec(f16, 2, 32, 32, "additive", k_transposed=True, zero_nan_rows=True)]
    # Matrix-instruction attention (half floats): each mask kind and K layout, both key tiles
    # (64; 32 at head dims of 128), and a head dim it does not take (8: the tiled kernel in f16).
    specs += [attention_spec(f16, 2, 64, 64), attention_spec(f16, 2, 64, 64, "keep", k_transposed=True), attention_spec(f16, 1, 128, 128, k_transposed=True)]
    specs += [attention_spec(f16, 2, 8, 32, "keep")]
    if bf16 is not None:
        specs += [attention_spec(bf16, 2, 64, 64, "additive"), attention_spec(bf16, 1, 128, 64, zero_nan_rows=True)]
    return unique(specs)


def _elementwise_cover(op_class: Any, dtype: Any) -> list[KernelSpec]:
    low, high = op_class.INPUTS
    arity = 3 if high is None else low
    result = {"BOOL": np.dtype("bool")}.get(getattr(getattr(op_class, "RESULT", None), "name", ""), dtype)
    if issubclass(op_class, hip.ComparisonOp):
        result = np.dtype("bool")
    ins = [Operand(dtype, (None, None), True) for _ in range(arity)]  # type: ignore[arg-type]
    if op_class is hip.WhereOp:
        ins[0] = Operand(np.dtype("bool"), (None, None), True)
    out = Operand(np.dtype("int64") if op_class is hip.CastOp else result, (None, None), True)  # type: ignore[arg-type]
    attrs_list = [{"approximate": a} for a in ("none", "tanh")] if op_class is hip.GeluOp else [{}]
    return [s for attrs in attrs_list for s in specs_for_launch(op_class, attrs, ins, [out])]


def _fused_cover(dtype: Any) -> list[KernelSpec]:
    """A fused chain through a predicate and a cast: intermediates of three element types
    (`dtype`, i1, i64) converted as stored, one operand broadcast from a scalar."""
    b1, i64 = np.dtype("bool"), np.dtype("int64")
    steps = (
        FusedStep("hip.mul", ("in0", "in1"), dtype),
        FusedStep("hip.less", ("t0", "in1"), b1),
        FusedStep("hip.where", ("t1", "t0", "in0"), dtype),
        FusedStep("hip.cast", ("t2",), i64),
        FusedStep("hip.max", ("t3", "t3", "t3"), i64),
    )
    ins = [Operand(dtype, (None, None), True), Operand(dtype, (), True)]
    return specs_for_launch(hip.FusedElementwiseOp, {"steps": steps}, ins, [Operand(i64, (None, None), True)])
