"""onnx-convert-precision: an fp32 model computed in half precision (fp16 or bf16).

What a user gets from exporting after `.half()`, from the fp32 export: every float32
tensor the model computes becomes `precision`, so that matmuls run on tensor cores and
every buffer in the pools takes half the bytes. What changes and what does not:

- Weights and other float32 constants are converted once, here (rounded to nearest,
  finite values beyond the half type's range saturated to its largest finite value);
  the float32 originals go with their last user.
- Graph inputs and outputs keep their declared types: a float32 input is cast to
  `precision` where the model reads it, a float32 output is cast back before it is
  returned. Integer tensors and shape arithmetic are left alone.
- Statistics stay float32 where ONNX keeps them so: LayerNormalization's Mean and
  InvStdDev (its stash type), and the kernels of every family accumulate half-precision
  operands in float32 (reductions, softmax and layer-norm statistics, GEMM accumulation).
- Ops named in `keep-fp32` (ONNX op types such as `Softmax`, or node names) run as
  exported: their float operands are cast back to float32 and their results stay float32.
  Ops that create float tensors from a dtype attribute (RandomNormal, EyeLike, ...) are
  always kept.

Casts are inserted once per value and precision, next to the value they convert; a cast
that converts a constant is a new constant instead. A float32 output cast back from half
precision costs a pool slot for its half-precision producer's result (GPT-2's logits at
8x512: 411 MB), which the float32 model writes straight into the output buffer. Run it on imported IR, after
onnx-fold-constants (which folds the casts it leaves on constants) and before conversion.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import BFloat16Type, DenseIntOrFPElementsAttr, Float16Type, Float32Type, StringAttr, TensorType, UnrankedTensorType, f32
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.diagnostics import XhipError
from xhip.dialects.hip.attributes import COMPUTE_PRECISION_ATTR
from xhip.dialects.onnx import CastOp, ConstantOfShapeOp, ConstantOp, LayerNormalizationOp
from xhip.dialects.onnx.base import NODE_NAME_ATTR, OnnxOp
from xhip.dtypes import float_info, numpy_dtype
from xhip.onnx_nodes import dense_array, dense_attr

HalfType = Float16Type | BFloat16Type
FloatElement = Float16Type | BFloat16Type | Float32Type
"""The element types this pass converts between."""
PRECISIONS: dict[str, HalfType] = {"float16": Float16Type(), "bfloat16": BFloat16Type()}
"""The `precision` option's spellings and their element types."""

CREATES_FROM_DTYPE = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "EyeLike", "Multinomial", "Bernoulli"})
"""ONNX op types whose float results take their type from an attribute: always kept."""

FLOAT32_RESULTS: dict[type[Operation], frozenset[int]] = {LayerNormalizationOp: frozenset({1, 2})}
"""Results that stay float32 in a converted op: LayerNormalization's Mean and InvStdDev
have its stash type (float32), not the input's."""


def _with_element(kind: Attribute, element: FloatElement) -> TensorType | UnrankedTensorType:
    """`kind` (a ranked or unranked tensor type: ONNX inference leaves some results unranked)
    with `element`."""
    if isinstance(kind, UnrankedTensorType):
        return UnrankedTensorType(element)
    assert isinstance(kind, TensorType)
    return TensorType(element, kind.get_shape())


def _is_f32_tensor(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType | UnrankedTensorType) and value.type.element_type == f32


@dataclass
class _Converter:
    """One function's conversion: which ops convert, and the casts between the two worlds."""

    half: HalfType
    keep: frozenset[str]
    casts: dict[tuple[SSAValue, FloatElement], SSAValue] = field(default_factory=dict)
    """(value, element type) -> the value converted to that element type (made once)."""

    def kept(self, op: Operation) -> bool:
        if not isinstance(op, OnnxOp) or isinstance(op, ConstantOp):
            return True
        op_type = op.name.removeprefix("onnx.")
        return op_type in CREATES_FROM_DTYPE or op_type in self.keep or (op.node_name or "") in self.keep

    def run(self, block: Block) -> None:
        ops = list(block.ops)
        converted = {op for op in ops if not self.kept(op)}
        for op in converted:
            self._convert_results(op)
        for op in ops:
            wanted = self.half if op in converted else f32
            for index, operand in enumerate(op.operands):
                element = operand.type.element_type if isinstance(operand.type, TensorType | UnrankedTensorType) else None
                if element in (f32, self.half) and element != wanted:
                    op.operands[index] = self._cast(operand, wanted)
        self._erase_unused_constants(ops)

    def _convert_results(self, op: Operation) -> None:
        stays = FLOAT32_RESULTS.get(type(op), frozenset())
        for index, result in enumerate(list(op.results)):
            if index not in stays and _is_f32_tensor(result):
                Rewriter.replace_value_with_new_type(result, _with_element(result.type, self.half))
        if isinstance(op, CastOp) and op.to == f32:
            op.properties["to"] = self.half
        if isinstance(op, ConstantOfShapeOp):
            value = op.value
            if value is None or value.get_element_type() == f32:
                fill = [0.0] if value is None else dense_array(value).reshape(-1).tolist()
                op.properties["value"] = _dense(np.asarray(fill, np.float32), self.half)

    def _cast(self, value: SSAValue, element: FloatElement) -> SSAValue:
        """`value` converted to `element`: a converted constant, or a Cast after its definition."""
        key = (value, element)
        if key in self.casts:
            return self.casts[key]
        owner = value.owner
        new_type = _with_element(value.type, element)
        if isinstance(owner, ConstantOp) and isinstance(owner.value, DenseIntOrFPElementsAttr):
            attributes: dict[str, Attribute] = {"value": _dense(dense_array(owner.value), element)}
            if isinstance(name := owner.attributes.get(NODE_NAME_ATTR), StringAttr):
                attributes[NODE_NAME_ATTR] = name
            new_op: Operation = ConstantOp.create(result_types=[new_type], attributes=attributes)
            Rewriter.insert_op(new_op, InsertPoint.after(owner))
        else:
            new_op = CastOp.create(operands=[value], result_types=[new_type], properties={"to": element})
            if isinstance(owner, Operation):
                Rewriter.insert_op(new_op, InsertPoint.after(owner))
            else:  # a graph input: cast where the function starts
                block = value.block  # type: ignore[attr-defined]
                Rewriter.insert_op(new_op, InsertPoint.at_start(block))
        self.casts[key] = new_op.results[0]
        return new_op.results[0]

    @staticmethod
    def _erase_unused_constants(ops: Iterable[Operation]) -> None:
        for op in ops:
            if isinstance(op, ConstantOp) and op.parent is not None and not op.results[0].uses:
                Rewriter.erase_op(op)


def _dense(values: np.ndarray, element: FloatElement) -> DenseIntOrFPElementsAttr:
    """`values` rounded to `element` (nearest even), as a dense attribute of their shape.
    A finite value beyond the type's range saturates to its largest finite value (float32's
    min, the exports' mask value, becomes float16's -65504, not -inf: a row whose keys are
    all masked keeps the uniform softmax float32 gives it, where -inf would make it NaN);
    infinities and NaN stay what they are."""
    limit = float(float_info(numpy_dtype(element)).max)
    return dense_attr(np.where(np.isfinite(values), np.clip(values, -limit, limit), values), element)


@dataclass(frozen=True)
class ConvertPrecisionPass(ModulePass):
    """Compute an fp32 model in fp16 or bf16: constants converted at compile time, casts at the graph's edges."""

    name = "onnx-convert-precision"

    precision: str = "float16"
    """The element type float32 tensors become: float16 or bfloat16."""

    keep_fp32: tuple[str, ...] = ()
    """ONNX op types (Softmax) or node names left in float32, their operands cast back."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        half = PRECISIONS.get(self.precision)
        if half is None:
            raise XhipError(f"onnx-convert-precision: precision must be one of {', '.join(PRECISIONS)}, got '{self.precision}'")
        op.attributes[COMPUTE_PRECISION_ATTR] = StringAttr(self.precision)
        for function in op.walk():
            if isinstance(function, func.FuncOp) and function.body.blocks:
                for block in function.body.blocks:
                    _Converter(half, frozenset(self.keep_fp32)).run(block)
