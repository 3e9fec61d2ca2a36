"""Traced integers (xhip.index.symbolic): one normal form, exact arithmetic, and every
question asked of a value recorded as a guard that the generated code checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from xhip.index.symbolic import Sym, Tracer, as_int


def _function(tracer: Tracer, result: object, params: str = "B, S"):  # type: ignore[no-untyped-def]
    """The tracer's lines as a function of the atoms' sources, returning `result`'s value."""
    returned = tracer.code(result)  # first: it may add lines
    body = [*tracer.lines, f"return {returned}"]
    namespace: dict[str, object] = {}
    exec("def f(" + params + "):\n" + "".join(f"    {line}\n" for line in body), namespace)  # noqa: S102
    return namespace["f"]


def _atoms(b: int = 3, s: int = 7) -> tuple[Tracer, Sym, Sym]:
    tracer = Tracer()
    return tracer, tracer.atom("B", b), tracer.atom("S", s)  # type: ignore[return-value]


def test_equal_polynomials_compare_equal_without_a_guard():
    tracer, b, s = _atoms()
    assert b * s * 768 == (768 * s) * b
    assert (b + s) * (b - s) == b * b - s * s
    assert b - b == 0 and isinstance(b - b, int)
    assert hash(b * s) == hash(s * b)
    assert tracer.guards == 0 and tracer.specialized == 0


def test_division_that_divides_stays_a_polynomial_and_one_that_does_not_is_an_atom():
    tracer, b, s = _atoms()
    rows = b * s * 768
    assert rows // 256 == 3 * b * s and -(-rows // 256) == 3 * b * s
    assert tracer.guards == 0
    quarter = (b * s) // 4
    assert isinstance(quarter, Sym) and quarter.hint == 21 // 4
    assert (b * s) // 4 is quarter  # the same division is the same atom
    f = _function(tracer, 4 * quarter + (b * s) % 4)
    assert f(5, 9) == 45 and f(1, 1) == 1


def test_a_question_is_answered_by_the_hint_and_checked_by_the_code():
    tracer, b, s = _atoms(3, 7)
    assert (b * s > 64) is False and (b != 1) is True and bool(s) is True
    assert max(b, s) is s  # min / max ask a comparison
    f = _function(tracer, b * s)
    assert f(2, 30) == 60  # the same answers
    assert f(3, 30) is None  # b * s > 64: another class
    assert f(1, 5) is None  # b == 1
    assert f(8, 2) is None  # b > s


def test_int_and_floats_fix_the_value():
    tracer, b, s = _atoms(4, 6)
    assert math.ceil(s) is s and round(s) is s
    assert np.int64(2) + s == s + 2
    assert tracer.specialized == 0
    assert int(b) == 4 and tracer.specialized == 1
    f = _function(tracer, s)
    assert f(4, 9) == 9 and f(5, 9) is None
    assert b * 0.5 == 2.0 and (s > 2.5) is True  # a float is computed from the value itself
    f = _function(tracer, s)
    assert f(4, 6) == 6 and f(4, 9) is None


def test_width_wrapping_of_a_value_in_range_is_the_value():
    tracer, b, _ = _atoms(5, 1)
    assert b & ((1 << 64) - 1) is b and (b >> 63) == 0
    f = _function(tracer, b)
    assert f(7, 1) == 7 and f(-1, 1) is None  # a negative index would wrap: another class


def test_a_divisor_that_may_be_zero_is_asked_first():
    tracer, b, s = _atoms(3, 7)
    ratio = s // b
    f = _function(tracer, ratio)
    assert f(2, 9) == 4 and f(0, 9) is None
    with pytest.raises(ZeroDivisionError):
        _ = s // 0


def test_as_int_converts_numbers_and_keeps_traced_values():
    _, b, _ = _atoms()
    assert as_int(np.int64(3)) == 3 and type(as_int(np.int64(3))) is int
    assert as_int(b) is b


def test_values_of_two_traces_are_never_equal_and_ask_nothing():
    """A step's cache may hold a value of an earlier trace: comparing it with a value of the
    current one is identity (unequal), recorded in neither."""
    first, b1, _ = _atoms()
    second, b2, _ = _atoms()
    assert (b1 == b2) is False and (b1 != b2) is True
    assert (b1, 3) != (b2, 3)
    assert first.guards == second.guards == 0


def test_a_capped_count_is_an_atom_and_asks_nothing():
    """`at_most`: a grid-stride kernel's blocks, min(needed, cap), hold for counts on either
    side of the cap without a guard (ResNet-50's batches 7 and 32 are one class)."""
    from xhip.index.symbolic import at_most
    from xhip.kernels.abi import MAX_BLOCKS

    tracer, b, s = _atoms(3, 7)
    blocks = at_most(b * s * 10_000, MAX_BLOCKS)
    assert isinstance(blocks, Sym) and blocks.hint == MAX_BLOCKS and tracer.guards == 0
    assert at_most(b * s * 10_000, MAX_BLOCKS) is blocks  # one atom per expression and cap
    f = _function(tracer, blocks)
    assert f(3, 7) == MAX_BLOCKS and f(1, 1) == 10_000 and f(1, 0) == 0
    assert at_most(5, MAX_BLOCKS) == 5 and at_most(np.int64(1 << 20), MAX_BLOCKS) == MAX_BLOCKS
