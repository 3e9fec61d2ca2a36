"""The tensor-mode op producing a value that one op alone reads: what a fusion pass may
take into that op (nothing else sees the value, so nothing else needs it computed)."""

from __future__ import annotations

from typing import TypeVar

from xdsl.ir import SSAValue

from xhip.dialects.hip import DPSOp

Op = TypeVar("Op", bound=DPSOp)


def sole_use_producer(value: SSAValue, kind: type[Op] | tuple[type[Op], ...]) -> Op | None:
    """The op of `kind` producing `value`, when it is in tensor mode with no run-time
    scalars and one result, and `value` has exactly one use; else None."""
    producer = value.owner
    if (
        not isinstance(producer, kind)
        or not producer.is_tensor_mode
        or producer.scalars
        or len(producer.res) != 1
        or value.uses.get_length() != 1
    ):
        return None
    return producer
