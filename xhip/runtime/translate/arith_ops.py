"""arith: host scalar arithmetic with the exact wrap-around semantics of the types."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr
from xdsl.ir import Operation

from xhip.index.host_eval import (
    bitwidth,
    canonical,
    compare,
    fold_binary,
    is_binary_supported,
    to_unsigned,
)
from xhip.runtime.buffers import numpy_dtype
from xhip.runtime.translate.base import PlanBuilder, Registers, Step, TRANSLATORS, translates


def constant_value(op: arith.ConstantOp) -> object:
    value = op.value
    if isinstance(value, IntegerAttr):
        return value.value.data
    if isinstance(value, FloatAttr):
        return float(value.value.data)
    if isinstance(value, DenseIntOrFPElementsAttr):
        dtype = numpy_dtype(value.get_element_type())
        raw = np.frombuffer(value.data.data, dtype=np.bool_ if dtype == np.bool_ else dtype)
        array = raw.reshape(value.get_shape()).copy()
        array.flags.writeable = False
        return array
    raise ValueError(f"unsupported constant {value}")


@translates("arith.constant")
def translate_constant(op: Operation, plan: PlanBuilder) -> Step:
    assert isinstance(op, arith.ConstantOp)
    value, out = constant_value(op), plan.slot(op.result)

    def step(regs: Registers) -> None:
        regs[out] = value

    return step


def _integer_binary(op: Operation, plan: PlanBuilder) -> Step:
    op_type, width = type(op), bitwidth(op.results[0].type)
    lhs, rhs, out = plan.slot(op.operands[0]), plan.slot(op.operands[1]), plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = fold_binary(op_type, int(regs[lhs]), int(regs[rhs]), width)  # type: ignore[arg-type]

    return step


for _name, _cls in vars(arith).items():
    if isinstance(_cls, type) and issubclass(_cls, Operation) and is_binary_supported(_cls):
        TRANSLATORS.setdefault(_cls.name, _integer_binary)


@translates("arith.cmpi")
def translate_cmpi(op: Operation, plan: PlanBuilder) -> Step:
    assert isinstance(op, arith.CmpiOp)
    predicate, width = op.predicate.value.data, bitwidth(op.lhs.type)
    lhs, rhs, out = plan.slot(op.lhs), plan.slot(op.rhs), plan.slot(op.result)

    def step(regs: Registers) -> None:
        regs[out] = int(compare(predicate, int(regs[lhs]), int(regs[rhs]), width))  # type: ignore[arg-type]

    return step


@translates("arith.select")
def translate_select(op: Operation, plan: PlanBuilder) -> Step:
    cond, a, b = plan.slots(op.operands)
    out = plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = regs[a] if regs[cond] else regs[b]

    return step


@translates("arith.index_cast", "arith.extsi", "arith.trunci")
def translate_signed_cast(op: Operation, plan: PlanBuilder) -> Step:
    width = bitwidth(op.results[0].type)
    source, out = plan.slot(op.operands[0]), plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = canonical(int(regs[source]), width)  # type: ignore[arg-type]

    return step


@translates("arith.extui")
def translate_extui(op: Operation, plan: PlanBuilder) -> Step:
    source_width, width = bitwidth(op.operands[0].type), bitwidth(op.results[0].type)
    source, out = plan.slot(op.operands[0]), plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = canonical(to_unsigned(int(regs[source]), source_width), width)  # type: ignore[arg-type]

    return step


_FLOAT_BINARY = {
    "arith.addf": np.add,
    "arith.subf": np.subtract,
    "arith.mulf": np.multiply,
    "arith.divf": np.divide,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
}


@translates(*_FLOAT_BINARY)
def translate_float_binary(op: Operation, plan: PlanBuilder) -> Step:
    ufunc, dtype = _FLOAT_BINARY[op.name], numpy_dtype(op.results[0].type)
    lhs, rhs, out = plan.slot(op.operands[0]), plan.slot(op.operands[1]), plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = float(ufunc(dtype.type(regs[lhs]), dtype.type(regs[rhs])))

    return step


@translates("math.ceil", "math.floor")
def translate_rounding(op: Operation, plan: PlanBuilder) -> Step:
    rounding, dtype = (np.ceil if op.name == "math.ceil" else np.floor), numpy_dtype(op.results[0].type)
    source, out = plan.slot(op.operands[0]), plan.slot(op.results[0])

    def step(regs: Registers) -> None:
        regs[out] = float(rounding(dtype.type(regs[source])))

    return step


@translates("arith.sitofp", "arith.fptosi", "arith.extf", "arith.truncf")
def translate_numeric_cast(op: Operation, plan: PlanBuilder) -> Step:
    dtype = numpy_dtype(op.results[0].type)
    source, out = plan.slot(op.operands[0]), plan.slot(op.results[0])
    to_python = int if np.issubdtype(dtype, np.integer) else float

    def step(regs: Registers) -> None:
        regs[out] = to_python(dtype.type(regs[source]))

    return step
