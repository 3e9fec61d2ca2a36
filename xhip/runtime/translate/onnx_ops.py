"""onnx ops (the imported stage): each node runs on ONNX's own reference evaluator.

Running the imported IR shows whether import kept the model's meaning; the
later stages run our kernels. Each op becomes a one-node ONNX model, built
once at plan time, so a run only feeds arrays through it.
"""

from __future__ import annotations

import numpy as np
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, NoneType, TensorType
from xdsl.ir import Operation

from xhip.diagnostics import op_error
from xhip.dialects.onnx import ONNX_OPS
from xhip.onnx_nodes import dense_array, node_model
from xhip.runtime.buffers import numpy_dtype
from xhip.runtime.translate.base import PlanBuilder, Registers, Step, translates


def _translate_onnx(op: Operation, plan: PlanBuilder) -> Step:
    try:
        evaluator = ReferenceEvaluator(node_model(op))
    except Exception as err:  # onnx raises many kinds for a node it cannot build
        raise op_error(op, f"cannot run '{op.name}' on the ONNX reference evaluator: {err}") from None
    feeds = [(f"in{i}", plan.slot(v)) for i, v in enumerate(op.operands) if not isinstance(v.type, NoneType)]
    results = plan.slots(op.results)
    dtypes = [numpy_dtype(r.type.element_type) if isinstance(r.type, TensorType) else None for r in op.results]

    def step(regs: Registers) -> None:
        values = evaluator.run(None, {name: np.asarray(regs[slot]) for name, slot in feeds})
        for slot, value, dtype in zip(results, values, dtypes):
            regs[slot] = np.asarray(value, dtype=dtype) if dtype is not None else value

    return step


@translates("onnx.Constant")
def translate_constant(op: Operation, plan: PlanBuilder) -> Step:
    value = op.attributes["value"]
    if not isinstance(value, DenseIntOrFPElementsAttr):
        raise op_error(op, "onnx.Constant without a dense value cannot run")
    array, out = dense_array(value).copy(), plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = array

    return step


@translates("onnx.NoValue")
def translate_no_value(op: Operation, plan: PlanBuilder) -> None:
    return None


for _op_type in ONNX_OPS:
    if _op_type != "Constant":
        translates(f"onnx.{_op_type}")(_translate_onnx)
