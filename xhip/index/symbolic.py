"""Integers of a traced run: polynomials in a run's atoms, each carrying the value it has in
the run being traced (its hint).

A trace (`xhip.runtime.trace`) runs a launch program once with its input extents,
addresses and the results of its opaque steps (pool plans, allocations) as atoms. Arithmetic
on them builds polynomials with integer coefficients, kept in one normal form, so that two
ways of computing `B * S * 768` are the same value and compare equal without a test. Where
code asks a question of a value (a comparison, `bool`, a division that does not divide
exactly, `int()`), the answer is the hint's, and the question is recorded as a guard: the
traced run holds for exactly the inputs whose guards give the same answers. A question the
polynomial answers for every value of its atoms (`x - x == 0`) records nothing.

A `Tracer` names every atom and every shared subexpression once, as a line of the Python
function the trace becomes; the guards are lines that return None when an input gives
another answer.
"""

from __future__ import annotations

import itertools
import numbers
import operator
from collections.abc import Callable
from typing import cast

Monomial = tuple[int, ...]
"""Atom ids, sorted, repeated for powers; () is the constant term."""
Terms = tuple[tuple[Monomial, int], ...]
"""A polynomial: (monomial, coefficient) pairs, sorted, no zero coefficient."""

_atom_ids = itertools.count()
"""Atom ids are never reused, so a stale value of an earlier trace never equals a new one."""

_NEGATED = {"<": ">=", "<=": ">", "==": "!=", "!=": "==", ">": "<=", ">=": "<"}
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt, ">=": operator.ge,
}  # fmt: skip


class Tracer:
    """The atoms, shared subexpressions and guards of one trace, as lines of Python."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        """The function's body so far: atoms, subexpressions and guards in the order met."""
        self.specialized = 0
        """Questions answered only by the value itself (`int()` of a value): guards of equality."""
        self.guards = 0
        self._names: dict[Terms, str] = {}
        self._atoms: dict[int, str] = {}
        self._derived: dict[tuple[object, ...], Sym | int] = {}
        self._asked: set[tuple[Terms, str]] = set()
        self._temps = itertools.count()

    def atom(self, code: str, hint: int) -> Sym | int:
        """A new atom: its value is `code` (an expression over the function's locals)."""
        atom_id = next(_atom_ids)
        name = f"a{atom_id}"
        self.lines.append(f"{name} = {code}")
        self._atoms[atom_id] = name
        return Sym(self, (((atom_id,), 1),), int(hint))

    def atom_names(self) -> list[str]:
        """Every atom's local name, in the order made."""
        return list(self._atoms.values())

    def derived(self, key: tuple[object, ...], code: Callable[[], str], hint: int) -> Sym | int:
        """The atom an expression that is no polynomial defines (a floor division), made once
        per `key`: the same division in twelve layers is one value."""
        known = self._derived.get(key)
        if known is None:
            known = self._derived[key] = self.atom(code(), hint)
        return known

    def ask(self, terms: Terms, op: str, hint: int) -> bool:
        """`polynomial op 0`, answered by its hint and recorded as a guard."""
        outcome = _COMPARE[op](hint, 0)
        asked = (terms, op if outcome else _NEGATED[op])
        if asked not in self._asked:
            self._asked.add(asked)
            self.guards += 1
            failing = _NEGATED[asked[1]]
            self.lines.append(f"if {self.code_of(terms)} {failing} 0: return None")
        return outcome

    def known_equal(self, value: Sym, other: object) -> bool:
        """Whether `value == other` holds in every run of this trace without a new guard: the
        same polynomial, or two whose equality a guard of this trace already holds."""
        terms = _terms(other)
        if terms is None or (isinstance(other, Sym) and other.tracer is not self):
            return False
        if terms == value.terms:
            return True
        difference = _normal(_add(value.terms, terms, -1))
        negated = tuple((m, -c) for m, c in difference)
        return (difference, "==") in self._asked or (negated, "==") in self._asked

    def code_of(self, terms: Terms) -> str:
        """An expression of the polynomial, a local name when it is more than one atom."""
        if len(terms) == 1 and terms[0][1] == 1 and len(terms[0][0]) == 1:
            return self._atoms[terms[0][0][0]]
        if len(terms) == 1 and terms[0][0] == ():
            return repr(terms[0][1])
        name = self._names.get(terms)
        if name is None:
            parts = []
            for monomial, coefficient in terms:
                factors = [self._atoms[a] for a in monomial]
                if coefficient != 1 or not factors:
                    factors.insert(0, repr(coefficient))
                parts.append("*".join(factors))
            name = self._names[terms] = f"t{next(self._temps)}"
            self.lines.append(f"{name} = {' + '.join(parts)}")
        return name

    def inline(self, terms: Terms) -> str:
        """The polynomial written out over its atoms (no line added)."""
        if not terms:
            return "0"
        parts = []
        for monomial, coefficient in terms:
            parts.append("*".join([repr(coefficient), *(self._atoms[a] for a in monomial)]))
        return "(" + " + ".join(parts) + ")"

    def code(self, value: object) -> str:
        """An int or `Sym` as an expression."""
        if isinstance(value, Sym):
            return self.code_of(value.terms)
        if type(value) is bool or type(value) is int:
            return repr(value)
        if type(value) is float:
            return repr(value) if value == value and abs(value) != float("inf") else f"float('{value!r}')"
        raise TypeError(f"no code for {type(value).__name__}")


def _terms(value: object) -> Terms | None:
    """A polynomial's terms; None for what is no integer (a float is asked of the hint)."""
    if isinstance(value, Sym):
        return value.terms
    if isinstance(value, numbers.Integral):
        return (((), int(value)),) if value else ()
    return None


def _normal(terms: dict[Monomial, int]) -> Terms:
    """A polynomial's one normal form: its nonzero terms, sorted."""
    return tuple(sorted((m, c) for m, c in terms.items() if c))


def _make(tracer: Tracer, terms: dict[Monomial, int], hint: int) -> Sym | int:
    items = _normal(terms)
    if not items:
        return 0
    if len(items) == 1 and items[0][0] == ():
        return items[0][1]
    return Sym(tracer, items, hint)


def _add(a: Terms, b: Terms, sign: int) -> dict[Monomial, int]:
    total = dict(a)
    for monomial, coefficient in b:
        total[monomial] = total.get(monomial, 0) + sign * coefficient
    return total


def _mul(a: Terms, b: Terms) -> dict[Monomial, int]:
    total: dict[Monomial, int] = {}
    for ma, ca in a:
        for mb, cb in b:
            monomial = tuple(sorted(ma + mb))
            total[monomial] = total.get(monomial, 0) + ca * cb
    return total


class Sym:
    """A traced integer (module doc). Immutable; hashable by its polynomial."""

    __slots__ = ("tracer", "terms", "hint")

    def __init__(self, tracer: Tracer, terms: Terms, hint: int):
        self.tracer, self.terms, self.hint = tracer, terms, hint

    def __repr__(self) -> str:
        return f"Sym({self.terms}, hint={self.hint})"

    def __hash__(self) -> int:
        return hash(self.terms)

    # -- arithmetic: polynomials --------------------------------------------------------

    def _binary(self, other: object, sign: int) -> Sym | int:
        terms = _terms(other)
        if terms is None:
            return int(self) + sign * other if isinstance(other, float) else NotImplemented  # type: ignore[return-value]
        return _make(self.tracer, _add(self.terms, terms, sign), self.hint + sign * _hint(other))

    def __add__(self, other: object) -> Sym | int:
        return self._binary(other, 1)

    __radd__ = __add__

    def __sub__(self, other: object) -> Sym | int:
        return self._binary(other, -1)

    def __rsub__(self, other: object) -> Sym | int:
        terms = _terms(other)
        if terms is None:
            return other - int(self) if isinstance(other, float) else NotImplemented  # type: ignore[return-value]
        return _make(self.tracer, _add(terms, self.terms, -1), _hint(other) - self.hint)

    def __mul__(self, other: object) -> Sym | int:
        terms = _terms(other)
        if terms is None:
            return int(self) * other if isinstance(other, float) else NotImplemented  # type: ignore[return-value]
        return _make(self.tracer, _mul(self.terms, terms), self.hint * _hint(other))

    __rmul__ = __mul__

    def __neg__(self) -> Sym | int:
        return _make(self.tracer, {m: -c for m, c in self.terms}, -self.hint)

    def __pos__(self) -> Sym:
        return self

    def __abs__(self) -> Sym | int:
        return self if self >= 0 else -self

    def __pow__(self, exponent: object) -> Sym | int:
        if type(exponent) is not int or exponent < 0:
            return NotImplemented
        result: Sym | int = 1
        for _ in range(exponent):
            result = result * self
        return result

    def __lshift__(self, shift: object) -> Sym | int:
        if type(shift) is not int or shift < 0:
            return int(self) << int(shift)  # type: ignore[call-overload]
        return self * (1 << shift)

    # -- arithmetic that asks ----------------------------------------------------------

    def __floordiv__(self, other: object) -> Sym | int:
        return _floordiv(self, other)

    def __rfloordiv__(self, other: object) -> Sym | int:
        return _floordiv(other, self)

    def __mod__(self, other: object) -> Sym | int:
        return self - (self // other) * other  # type: ignore[operator]

    def __rmod__(self, other: object) -> Sym | int:
        return other - (other // self) * self  # type: ignore[operator]

    def __divmod__(self, other: object) -> tuple[Sym | int, Sym | int]:
        quotient = self // other
        return quotient, self - quotient * other  # type: ignore[operator]

    def __and__(self, mask: object) -> Sym | int:
        # Wrapping to a width (xhip.index.host_eval): a value in range is itself.
        if type(mask) is int and mask >= 0 and mask & (mask + 1) == 0 and 0 <= self <= mask:
            return self
        return int(self) & int(mask)  # type: ignore[call-overload]

    __rand__ = __and__

    def __rshift__(self, shift: object) -> Sym | int:
        if type(shift) is int and shift >= 0 and 0 <= self < (1 << shift):
            return 0
        return int(self) >> int(shift)  # type: ignore[call-overload]

    def __truediv__(self, other: object) -> float:
        return int(self) / (int(other) if isinstance(other, Sym) else other)  # type: ignore[operator]

    def __rtruediv__(self, other: object) -> float:
        return other / int(self)  # type: ignore[operator]

    # -- questions -----------------------------------------------------------------------

    def _compare(self, other: object, op: str) -> bool:
        if isinstance(other, Sym) and other.tracer is not self.tracer:
            # A value of an earlier trace (left in a step's cache): unrelated, never equal.
            return NotImplemented  # type: ignore[return-value]
        terms = _terms(other)
        if terms is None:
            return _COMPARE[op](int(self), other) if isinstance(other, float) else NotImplemented  # type: ignore[return-value,arg-type]
        if op in ("==", "!=") and terms == self.terms:
            return op == "=="
        difference = _make(self.tracer, _add(self.terms, terms, -1), self.hint - _hint(other))
        if not isinstance(difference, Sym):
            return _COMPARE[op](difference, 0)
        return self.tracer.ask(difference.terms, op, difference.hint)

    def __eq__(self, other: object) -> bool:  # type: ignore[override]
        return self._compare(other, "==")

    def __ne__(self, other: object) -> bool:  # type: ignore[override]
        return self._compare(other, "!=")

    def __lt__(self, other: object) -> bool:
        return self._compare(other, "<")

    def __le__(self, other: object) -> bool:
        return self._compare(other, "<=")

    def __gt__(self, other: object) -> bool:
        return self._compare(other, ">")

    def __ge__(self, other: object) -> bool:
        return self._compare(other, ">=")

    def __bool__(self) -> bool:
        return self.tracer.ask(self.terms, "!=", self.hint)

    def __index__(self) -> int:
        """The value itself: the trace then holds for this value alone (a guard of equality)."""
        self.tracer.specialized += 1
        self._compare(self.hint, "==")
        return self.hint

    __int__ = __index__

    def __float__(self) -> float:
        return float(int(self))

    def __ceil__(self) -> Sym:
        return self

    __floor__ = __trunc__ = __ceil__

    def __round__(self, ndigits: int | None = None) -> Sym:
        return self


def _hint(value: object) -> int:
    return value.hint if isinstance(value, Sym) else int(value)  # type: ignore[call-overload]


__all__ = ["Sym", "Tracer", "as_int", "at_most", "same_extent"]


def _floordiv(numerator: object, denominator: object) -> Sym | int:
    """`numerator // denominator`: a polynomial where a positive integer divides every
    coefficient, else an atom of its own (after asking that the divisor is not 0)."""
    top, bottom = _terms(numerator), _terms(denominator)
    if top is None or bottom is None:
        return NotImplemented
    tracer = numerator.tracer if isinstance(numerator, Sym) else cast(Sym, denominator).tracer
    if not isinstance(denominator, Sym):
        divisor = int(denominator)  # type: ignore[call-overload]
        if divisor > 0 and all(c % divisor == 0 for _, c in top):
            return _make(tracer, {m: c // divisor for m, c in top}, _hint(numerator) // divisor)
        if divisor == 0:
            raise ZeroDivisionError("integer division by zero")
    elif not denominator:  # asks: a divisor that is 0 at another shape fails its guard first
        raise ZeroDivisionError("integer division by zero")
    hint = _hint(numerator) // _hint(denominator)
    return tracer.derived(
        ("//", top, bottom), lambda: f"({tracer.code(numerator)}) // ({tracer.code(denominator)})", hint
    )


def at_most(value: object, bound: int) -> int:
    """`min(value, bound)` without asking which: for a traced value an atom of its own (the
    `min` written in the traced function), so that a class does not split where a count
    meets a cap (a grid-stride kernel's blocks) whose answer changes only that number."""
    if not isinstance(value, Sym):
        return min(as_int(value), bound)
    tracer = value.tracer
    # Typed int as `as_int` is: a traced value stands for the int it is in each run.
    return tracer.derived(("min", value.terms, bound), lambda: f"min({tracer.code(value)}, {bound})", min(value.hint, bound))  # type: ignore[return-value]


def as_int(value: object) -> int:
    """`value` as an int (a NumPy integer, a 0-d array), where a traced value stays itself:
    what code on a launch's path calls instead of `int()`, which would fix it to its hint."""
    if type(value) is int or isinstance(value, Sym):
        return value  # type: ignore[return-value]
    return int(value)  # type: ignore[call-overload]


def same_extent(a: object, b: object) -> bool:
    """Whether two extents are known to be the same value, without asking: equal ints, the
    same polynomial, or polynomials a guard holds equal (`Tracer.known_equal`). False says
    nothing (a static 1 against a run-time extent that is 1 in some runs): code that only
    needs "the same dim" asks this instead of `==`, so that a trace does not split its class
    on a question whose answer changes nothing."""
    if a is b:
        return True
    if isinstance(a, Sym):
        return a.tracer.known_equal(a, b)
    if isinstance(b, Sym):
        return b.tracer.known_equal(b, a)
    return bool(a == b)
