"""Evaluate host index arithmetic at concrete values.

Result-shape rules (`xhip.shapes`) and the memory planner emit `arith` ops on
`index` (and small integer) values; the runtime and the tests need the number
such a value takes once the runtime extents are known. Host ops of dialects above
this package join through `register_host_op` (the hip dialect's `hip.plan_pool`,
pool offsets planned at run time, evaluates as the runtime plans it). `evaluate` walks the
defining ops of a value back to constants and to bound values (block arguments
or any op result the caller already knows, such as a `tensor.dim`).

Values follow the `arith` semantics on two's-complement integers of the value's
width (`index` is 64 bits): results wrap, signed ops read their operands as
signed, unsigned ops as unsigned. A value is represented by its signed Python
int, except `i1`, which is 0 or 1. Division by zero (undefined in `arith`) is
reported as an error rather than guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xhip.diagnostics import XhipError, op_location

INDEX_BITWIDTH = 64


def bitwidth(type: Attribute) -> int:
    """Width in bits of an integer-like type (`index` counts as 64)."""
    if isinstance(type, IndexType):
        return INDEX_BITWIDTH
    if isinstance(type, IntegerType):
        return type.width.data
    raise XhipError(f"host index arithmetic on non-integer type {type}")


def to_unsigned(value: int, width: int) -> int:
    return value & ((1 << width) - 1)


def to_signed(value: int, width: int) -> int:
    value = to_unsigned(value, width)
    return value - (1 << width) if value >> (width - 1) else value


def canonical(value: int, width: int) -> int:
    """The representation of `value` wrapped to `width` bits (i1: 0 or 1)."""
    return to_unsigned(value, 1) if width == 1 else to_signed(value, width)


def _trunc_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _trunc_rem(a: int, b: int) -> int:
    return a - b * _trunc_div(a, b)


# Each entry: (reads operands as signed?, the operation on Python ints).
# Division-like entries are listed in _DIVISIONS so a zero divisor is caught.
_BINARY: dict[type[Operation], tuple[bool, Callable[[int, int], int]]] = {
    arith.AddiOp: (True, lambda a, b: a + b),
    arith.SubiOp: (True, lambda a, b: a - b),
    arith.MuliOp: (True, lambda a, b: a * b),
    arith.DivSIOp: (True, _trunc_div),
    arith.DivUIOp: (False, lambda a, b: a // b),
    arith.CeilDivSIOp: (True, _ceil_div),
    arith.CeilDivUIOp: (False, _ceil_div),
    arith.FloorDivSIOp: (True, lambda a, b: a // b),
    arith.RemSIOp: (True, _trunc_rem),
    arith.RemUIOp: (False, lambda a, b: a % b),
    arith.MaxSIOp: (True, max),
    arith.MaxUIOp: (False, max),
    arith.MinSIOp: (True, min),
    arith.MinUIOp: (False, min),
    arith.AndIOp: (False, lambda a, b: a & b),
    arith.OrIOp: (False, lambda a, b: a | b),
    arith.XOrIOp: (False, lambda a, b: a ^ b),
    arith.ShLIOp: (False, lambda a, b: a << b),
    arith.ShRUIOp: (False, lambda a, b: a >> b),
    arith.ShRSIOp: (True, lambda a, b: a >> b),
}

_DIVISIONS: frozenset[type[Operation]] = frozenset(
    {
        arith.DivSIOp,
        arith.DivUIOp,
        arith.CeilDivSIOp,
        arith.CeilDivUIOp,
        arith.FloorDivSIOp,
        arith.RemSIOp,
        arith.RemUIOp,
    }
)

# cmpi predicates in the order of their integer encoding (eq = 0 ... uge = 9).
_COMPARISONS: tuple[tuple[bool, Callable[[int, int], bool]], ...] = (
    (True, lambda a, b: a == b),
    (True, lambda a, b: a != b),
    (True, lambda a, b: a < b),
    (True, lambda a, b: a <= b),
    (True, lambda a, b: a > b),
    (True, lambda a, b: a >= b),
    (False, lambda a, b: a < b),
    (False, lambda a, b: a <= b),
    (False, lambda a, b: a > b),
    (False, lambda a, b: a >= b),
)

_CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def constant_int(value: SSAValue) -> int | None:
    """The integer an `arith.constant` of integer or index type holds; None for anything else."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def is_binary_supported(op_type: type[Operation]) -> bool:
    return op_type in _BINARY


def fold_binary(op_type: type[Operation], lhs: int, rhs: int, width: int = INDEX_BITWIDTH) -> int:
    """The value `op_type(lhs, rhs)` computes on `width`-bit integers.

    Raises ZeroDivisionError for a zero divisor (callers turn it into a located error).
    """
    signed, compute = _BINARY[op_type]
    read = to_signed if signed else to_unsigned
    a, b = read(lhs, width), read(rhs, width)
    if op_type in _DIVISIONS and b == 0:
        raise ZeroDivisionError(f"division by zero in {op_type.name}")
    return canonical(compute(a, b), width)


def compare(predicate: int | str, lhs: int, rhs: int, width: int = INDEX_BITWIDTH) -> bool:
    """The result of `arith.cmpi predicate, lhs, rhs` on `width`-bit integers."""
    index = _CMPI_PREDICATES.index(predicate) if isinstance(predicate, str) else predicate
    signed, compute = _COMPARISONS[index]
    read = to_signed if signed else to_unsigned
    return compute(read(lhs, width), read(rhs, width))


_UNARY_CASTS = (arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp)


HostOpRule = Callable[[Operation, list[int]], list[int]]
"""All the results of a host op of another dialect, from its operands' values."""

_HOST_OPS: dict[type[Operation], HostOpRule] = {}


def register_host_op(op_type: type[Operation], rule: HostOpRule) -> None:
    """Teach evaluation an op of a dialect above this package (the hip dialect registers
    `hip.plan_pool`, planned as the runtime plans it), without this package importing it."""
    _HOST_OPS[op_type] = rule


def _is_evaluable(op: Operation) -> bool:
    if isinstance(op, arith.ConstantOp):
        return isinstance(op.value, IntegerAttr)
    return type(op) in _BINARY or type(op) in _HOST_OPS or isinstance(op, (arith.CmpiOp, arith.SelectOp, *_UNARY_CASTS))


class HostIndexEvaluator:
    """Evaluates host index values for one set of bindings, remembering every result.

    Reuse one evaluator for many values of the same program point (the runtime
    evaluates every extent of a plan with the same bindings); shared
    subexpressions are then computed once.
    """

    def __init__(self, bindings: Mapping[SSAValue, int]):
        self._values: dict[SSAValue, int] = {
            value: canonical(int(number), bitwidth(value.type)) for value, number in bindings.items()
        }

    def evaluate(self, value: SSAValue | int) -> int:
        if isinstance(value, int):
            return value
        # Iterative post-order walk: chains of shape arithmetic can be deeper
        # than Python's recursion limit.
        stack = [value]
        expanded: set[SSAValue] = set()
        while stack:
            current = stack[-1]
            if current in self._values:
                stack.pop()
                continue
            op = self._defining_op(current)
            if not _is_evaluable(op):
                raise XhipError(
                    f"cannot evaluate '{op.name}' as host index arithmetic", op_location(op)
                )
            pending = [operand for operand in op.operands if operand not in self._values]
            if pending:
                if current in expanded:
                    raise XhipError(
                        f"cyclic host index arithmetic through '{op.name}'", op_location(op)
                    )
                expanded.add(current)
                stack.extend(pending)
                continue
            stack.pop()
            self._values[current] = self._compute(op, current)
        return self._values[value]

    def evaluate_all(self, values: Iterable[SSAValue | int]) -> list[int]:
        return [self.evaluate(value) for value in values]

    @staticmethod
    def _defining_op(value: SSAValue) -> Operation:
        owner = value.owner
        if isinstance(owner, Block):
            parent = owner.parent_op()
            where = op_location(parent) if parent is not None else None
            raise XhipError(
                f"no value bound for block argument #{owner.args.index(value)} "
                "in host index arithmetic",
                where,
            )
        return owner

    def _compute(self, op: Operation, result: SSAValue) -> int:
        width = bitwidth(result.type)
        operands = [self._values[operand] for operand in op.operands]
        if type(op) in _HOST_OPS:
            # Every result at once (a hip.plan_pool plans all its offsets together).
            self._values.update(zip(op.results, _HOST_OPS[type(op)](op, operands)))
            return self._values[result]
        if isinstance(op, arith.ConstantOp):
            assert isinstance(op.value, IntegerAttr)
            return canonical(op.value.value.data, width)
        if type(op) in _BINARY:
            lhs, rhs = operands
            try:
                return fold_binary(type(op), lhs, rhs, width=width)
            except ZeroDivisionError:
                raise XhipError(
                    f"division by zero in '{op.name}' of host index arithmetic", op_location(op)
                ) from None
        if isinstance(op, arith.CmpiOp):
            operand_width = bitwidth(op.lhs.type)
            lhs, rhs = operands
            return int(compare(op.predicate.value.data, lhs, rhs, width=operand_width))
        if isinstance(op, arith.SelectOp):
            condition, if_true, if_false = operands
            return if_true if condition else if_false
        if isinstance(op, (arith.IndexCastOp, arith.ExtSIOp, arith.TruncIOp)):
            return canonical(to_signed(operands[0], bitwidth(op.operands[0].type)), width)
        assert isinstance(op, arith.ExtUIOp)
        return canonical(to_unsigned(operands[0], bitwidth(op.operands[0].type)), width)


def evaluate(value: SSAValue | int, bindings: Mapping[SSAValue, int]) -> int:
    """The integer `value` takes when the SSA values in `bindings` take theirs."""
    return HostIndexEvaluator(bindings).evaluate(value)
