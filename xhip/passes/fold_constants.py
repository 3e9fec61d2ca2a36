"""onnx-fold-constants: evaluate ONNX ops whose operands are all constants, at compile time.

An op whose every operand is an `onnx.Constant` (or the absent `onnx.NoValue`)
computes the same tensor on every call: the Transpose of a tied embedding,
shape arithmetic on initializers, a Cast of a constant. Run at compile time it
costs no pool bytes and no launch at run time. Each such op runs once on ONNX's
own reference evaluator (the evaluator the imported stage runs on,
xhip.runtime.bind_tensor) and is replaced by an `onnx.Constant` of its
result; constants that only fed folded ops are erased. Ops fold in block order,
so a chain of constant ops folds in one sweep.

Ops that are not pure ONNX compute ops (side effects, random outputs) never fold.
A data-dependent shape (NonZero) folds too: its inputs are known, so is its
extent; the folded constant then has the static type, which its ONNX users
accept. Results with more than `max-result-elements` elements stay ops, so
folding never turns a small constant into a huge one (an Expand of a scalar).

A Transpose of a weight that only MatMul and Gemm read stays too: their hip
forms read the weight transposed (xhip.rewrite_rules.transposed_weights), so
a folded copy (GPT-2's lm_head: 154 MB) would only cost time and memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseIntOrFPElementsAttr, StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import is_side_effect_free

from xhip.diagnostics import XhipError, op_error
from xhip.dialects.onnx import ConstantOp, NoValueOp
from xhip.dialects.onnx.base import NODE_NAME_ATTR, OnnxOp, is_none
from xhip.onnx_nodes import constant_value, dense_array, dense_attr, node_model
from xhip.rewrite_rules.transposed_weights import read_through

NEVER_FOLDED = frozenset({"Constant", "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
                          "Multinomial", "Bernoulli", "Dropout"})  # fmt: skip
"""ONNX op types that must run (or already are constants): random outputs differ per call."""


def _known_constant(value: SSAValue) -> DenseIntOrFPElementsAttr:
    """The dense tensor of an operand that `_foldable` found constant."""
    constant = constant_value(value)
    assert constant is not None
    return constant


def _is_absent(value: SSAValue) -> bool:
    return isinstance(value.owner, NoValueOp)


def _foldable(op: Operation) -> bool:
    """A pure ONNX compute op with at least one operand, each a dense constant or absent,
    that its users do not read through (a weight's Transpose that MatMul reads transposed)."""
    if not isinstance(op, OnnxOp) or op.name.removeprefix("onnx.") in NEVER_FOLDED:
        return False
    if op.regions or not is_side_effect_free(op) or not op.operands or read_through(op):
        return False
    return all(constant_value(v) is not None or _is_absent(v) for v in op.operands)


def _evaluate(op: Operation) -> list[np.ndarray]:
    """The results of `op` on its constant operands, from ONNX's reference evaluator."""
    # Imported here: building its operator table costs 12 ms of every xhip-opt start-up,
    # and a model with nothing to fold (GPT-2) never needs it.
    from onnx.reference import ReferenceEvaluator

    feeds = {f"in{i}": dense_array(_known_constant(v)) for i, v in enumerate(op.operands) if not _is_absent(v)}
    try:
        values = ReferenceEvaluator(node_model(op)).run(None, feeds)
    except Exception as err:  # the evaluator raises many kinds for a node it cannot run
        raise op_error(op, f"onnx-fold-constants: cannot evaluate '{op.name}' on its constant operands: {err}") from None
    return [np.asarray(value) for value in values]


def _dense_result(op: Operation, index: int, value: np.ndarray) -> DenseIntOrFPElementsAttr:
    """`value` as the dense constant of result #index, checked against the declared type."""
    declared = op.results[index].type
    assert isinstance(declared, TensorType)
    shape = declared.get_shape()
    if len(shape) != value.ndim or any(d != DYNAMIC_INDEX and d != n for d, n in zip(shape, value.shape)):
        raise op_error(
            op,
            f"onnx-fold-constants: result #{index} evaluates to shape {list(value.shape)}, "
            f"but the IR declares {declared}",
        )
    return dense_attr(value, declared.element_type)


def _accepts(result: SSAValue, value: DenseIntOrFPElementsAttr) -> bool:
    """Whether every user of `result` takes the folded constant's type: equal, or an ONNX op.

    A dynamic result (NonZero's count) folds to a static type; ONNX ops accept
    it, a `func.return` would no longer match the function's type."""
    return value.type == result.type or all(isinstance(use.operation, OnnxOp) for use in result.uses)


def _replace_by_constants(op: Operation, values: list[DenseIntOrFPElementsAttr | None]) -> None:
    """Each result by the constant of its value; a None value is an absent optional result
    (typed none, unused), erased."""
    attributes = {}
    if isinstance(node := op.attributes.get(NODE_NAME_ATTR), StringAttr):
        attributes[NODE_NAME_ATTR] = node  # errors about the constant still name the node
    constants = [
        None if v is None else ConstantOp.create(result_types=[v.type], attributes={"value": v, **attributes}) for v in values
    ]
    Rewriter.replace_op(op, [c for c in constants if c is not None], [None if c is None else c.results[0] for c in constants])


def _erase_if_unused(operands: list[Operation | Block]) -> None:
    for owner in operands:
        if isinstance(owner, ConstantOp | NoValueOp) and owner.parent is not None and not owner.results[0].uses:
            Rewriter.erase_op(owner)


def _declared_elements(result: SSAValue) -> int:
    """The element count of a statically shaped result; 0 when its type leaves it open."""
    shape = result.type.get_shape() if isinstance(result.type, TensorType) else (DYNAMIC_INDEX,)
    return 0 if DYNAMIC_INDEX in shape else math.prod(shape)


def _fold(op: Operation, max_result_elements: int) -> bool:
    """Replace `op` by the constants of its results; False when a result is too large to fold."""
    if any(_declared_elements(r) > max_result_elements for r in op.results):
        return False  # known too large without evaluating it (an Expand to a static shape)
    arrays = _evaluate(op)
    if len(arrays) != len(op.results) or any(a.size > max_result_elements for a in arrays):
        return False
    # An optional result the model leaves out (LayerNormalization's Mean) is typed none: the
    # evaluator computes it anyway, and it goes with the op.
    if any(is_none(r) and r.uses for r in op.results):
        return False
    values = [None if is_none(r) else _dense_result(op, i, a) for i, (r, a) in enumerate(zip(op.results, arrays))]
    if not all(value is None or _accepts(result, value) for result, value in zip(op.results, values)):
        return False
    operand_owners = list({id(v.owner): v.owner for v in op.operands}.values())
    _replace_by_constants(op, values)
    _erase_if_unused(operand_owners)
    return True


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Evaluate ONNX ops whose operands are all constants and replace them by onnx.Constant."""

    name = "onnx-fold-constants"

    max_result_elements: int = 1 << 27
    """Ops with a result of more elements than this stay ops and run at run time (must be >= 1)."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.max_result_elements < 1:
            raise XhipError(f"onnx-fold-constants: max-result-elements must be >= 1, got {self.max_result_elements}")
        for candidate in list(op.walk()):
            if candidate.parent is not None and _foldable(candidate):
                _fold(candidate, self.max_result_elements)
