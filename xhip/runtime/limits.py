"""The allocation cap: no allocation larger than the machine (or a configured cap) is tried.

A garbage extent (a value read from a raced slot, an overflowing product) turns
into a request for gigabytes; attempting it gets the process killed instead of
giving an error. Every runtime allocation therefore asks `AllocationCap.require`
first, which fails with one line naming the IR op, its size expression (rendered
from the host arithmetic that computes it, at plan-build time) and its value.

The cap is the smallest of: the physical memory of the machine, the
`XHIP_MAX_DEVICE_BYTES` environment variable, and the Executable's
`max_device_bytes` option.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import BlockArgument, Operation, SSAValue

from xhip import environment
from xhip.diagnostics import XhipError
from xhip.dialects.hip.infra import PlanPoolOp

MAX_BYTES_ENV = environment.MAX_DEVICE_BYTES
MAX_EXPRESSION_DEPTH = 6

_BINARY = {
    arith.AddiOp: "+",
    arith.SubiOp: "-",
    arith.MuliOp: "*",
    arith.DivUIOp: "/",
    arith.DivSIOp: "/",
    arith.CeilDivUIOp: "ceildiv",
    arith.CeilDivSIOp: "ceildiv",
    arith.RemUIOp: "%",
    arith.RemSIOp: "%",
    arith.MaxUIOp: "max",
    arith.MaxSIOp: "max",
    arith.MinUIOp: "min",
    arith.MinSIOp: "min",
}


def physical_memory() -> int | None:
    """Bytes of RAM on this machine, when the OS says."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover (non-POSIX)
        return None


def _environment_cap() -> int | None:
    text = os.environ.get(MAX_BYTES_ENV)
    if text is None or not text.strip():
        return None
    try:
        value = int(text)
    except ValueError:
        raise XhipError(f"{MAX_BYTES_ENV}={text!r} is not a number of bytes") from None
    if value < 0:
        raise XhipError(f"{MAX_BYTES_ENV}={text!r} is negative")
    return value


@dataclass(frozen=True)
class AllocationCap:
    """The largest single allocation this run may make, and where that limit comes from."""

    max_bytes: int | None
    source: str

    @staticmethod
    def resolve(option: int | None = None) -> AllocationCap:
        """min(physical memory, $XHIP_MAX_DEVICE_BYTES, the `max_device_bytes` option)."""
        candidates = [
            (physical_memory(), "the machine's physical memory"),
            (_environment_cap(), MAX_BYTES_ENV),
            (option, "max_device_bytes"),
        ]
        known = [(value, source) for value, source in candidates if value is not None]
        if not known:
            return AllocationCap(None, "no limit")
        value, source = min(known, key=lambda pair: pair[0])
        return AllocationCap(value, source)

    def require(self, nbytes: int, location: str, expression: str, extents: Sequence[int] = ()) -> None:
        """Fail at `location` if an extent is negative or `nbytes` is above the cap."""
        negative = [extent for extent in extents if extent < 0]
        if negative or nbytes < 0:
            raise XhipError(f"allocation with a negative extent {negative[0] if negative else nbytes}: {expression}", location)
        if self.max_bytes is not None and nbytes > self.max_bytes:
            raise XhipError(
                f"allocation of {_readable(nbytes)} exceeds the cap of {_readable(self.max_bytes)} "
                f"({self.source}): {expression}",
                location,
            )


def _readable(nbytes: int) -> str:
    return f"{nbytes} bytes ({nbytes / 2**30:.1f} GiB)" if nbytes >= 2**30 else f"{nbytes} bytes"


def size_expression(value: SSAValue, depth: int = MAX_EXPRESSION_DEPTH, nested: bool = False) -> str:
    """`value` as the host arithmetic that computes it: `(%n * 256 + 255) / 256 * 256`."""
    if isinstance(value, BlockArgument) or not isinstance(value.owner, Operation):
        return _name(value)
    op = value.owner
    if isinstance(op, arith.ConstantOp):
        return str(op.value.value.data)  # type: ignore[union-attr]  # an index constant is an IntegerAttr
    if isinstance(op, arith.IndexCastOp):
        return _name(value) if value.name_hint else size_expression(op.input, depth, nested)
    if isinstance(op, PlanPoolOp) and value is op.total:
        return _run_time_plan(op, depth)
    symbol = _BINARY.get(type(op))
    if symbol is None:
        return _name(value)
    if depth == 0:
        return "..."
    if symbol in ("max", "min", "ceildiv"):
        lhs, rhs = (size_expression(operand, depth - 1) for operand in op.operands)
        return f"{symbol}({lhs}, {rhs})"
    lhs, rhs = (size_expression(operand, depth - 1, nested=True) for operand in op.operands)
    return f"({lhs} {symbol} {rhs})" if nested else f"{lhs} {symbol} {rhs}"


PLANNED_SIZES_SHOWN = 3


def _run_time_plan(op: PlanPoolOp, depth: int) -> str:
    """A pool size the run-time planner computes, by the buffer sizes it packs."""
    shown = [size_expression(size, depth - 1) for size in op.sizes[:PLANNED_SIZES_SHOWN]]
    if len(op.sizes) > PLANNED_SIZES_SHOWN:
        shown.append(f"{len(op.sizes) - PLANNED_SIZES_SHOWN} more")
    return f"the run-time plan of {len(op.sizes)} buffers ({', '.join(shown)})"


def _name(value: SSAValue) -> str:
    """How a leaf of a size expression reads: its name, else what produced it."""
    if value.name_hint:
        return f"%{value.name_hint}"
    if isinstance(value, BlockArgument):
        return f"%arg{value.index}"
    owner = value.owner
    if isinstance(owner, Operation) and owner.name in ("memref.dim", "tensor.dim"):
        source, axis = owner.operands
        return f"dim({_name(source)}, {size_expression(axis)})"
    return f"{owner.name}(...)"  # type: ignore[union-attr]


def buffer_size_expression(static: Sequence[int], dynamic: Sequence[SSAValue], itemsize: int) -> str:
    """`size = d0 * d1 * itemsize bytes` for a buffer of shape `static` whose `?` are `dynamic`."""
    extents = iter(dynamic)
    factors = [size_expression(next(extents), nested=True) if d == DYNAMIC_INDEX else str(d) for d in static]
    return "size = " + " * ".join([*factors, str(itemsize)]) + " bytes"


def byte_size_expression(value: SSAValue) -> str:
    """`size = <expression> bytes` for an op whose operand `value` is its byte size."""
    return f"size = {size_expression(value)} bytes"
