"""Symbolic byte sizes: polynomials over runtime dims, with `max` and align-up.

A `SizeExpr` is kept in one canonical form: a sum of terms, each a positive integer
coefficient times a product of *atoms*. An atom is a runtime dim, a `max` of
expressions, or an align-up of an expression. Every dim stands for an extent, so
every atom is >= 0 and every expression is monotone in its dims; the rewrites below
rely on that and are exact for all non-negative dims:

- `max(x + c, y + c)` = `c + max(x, y)` and `max(k*m*x, k*m*y)` = `k*m*max(x, y)`;
- an argument dominated coefficient by coefficient by another one is dropped, so
  `max(256*b*s, 4*b*s)` is `256*b*s`;
- `align_up(x, a)` pulls out the terms that are already multiples of `a`:
  `align_up(256*b*s + 4*b*s^2, 256)` = `256*b*s + align_up(4*b*s^2, 256)`.

Equal expressions therefore compare and hash equal, and `emit` defines each distinct
subexpression once.
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections import defaultdict
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol, TypeVar

Value = TypeVar("Value")

DimValues = Mapping[Any, int]
"""Dim key -> extent, what `SizeExpr.evaluate` reads. The keys are whatever hashables the
dims were made with (names, SSA values); `Any` because a Mapping's key type is invariant,
so a `dict[str, int]` is no `Mapping[Hashable, int]`."""


class SizeEmitter(Protocol[Value]):
    """Builds the code that computes a size at run time (`arith` on `index` in the pass).

    `emit` folds constants itself and only asks for operations on at least one runtime
    value; a dim's key is the value that stands for it in the emitted code.
    """

    def constant(self, value: int) -> Value: ...

    def add(self, lhs: Value, rhs: Value) -> Value: ...

    def mul(self, lhs: Value, rhs: Value) -> Value: ...

    def max_unsigned(self, lhs: Value, rhs: Value) -> Value: ...

    def align_up(self, value: Value, alignment: int) -> Value: ...


# -- atoms ----------------------------------------------------------------------------------

_weak_serials: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
_strong_serials: dict[Hashable, int] = {}
_next_serial = itertools.count()


def _serial(key: Hashable) -> int:
    """A number per dim key in first-seen order: it orders dims whose names are equal.

    Keys that support weak references (SSA values) do not outlive their IR here.
    """
    try:
        table: Any = _weak_serials
        serial = table.get(key)
    except TypeError:
        table = _strong_serials
        serial = table.get(key)
    if serial is None:
        serial = table[key] = next(_next_serial)
    return serial


@dataclass(frozen=True, eq=False)
class _Dim:
    key: Hashable
    name: str
    order: tuple[Any, ...] = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "order", (0, self.name, _serial(self.key)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Dim) and self.key == other.key

    def __hash__(self) -> int:
        return hash(("dim", self.key))

    def __str__(self) -> str:
        return self.name

    @property
    def multiple(self) -> int:
        return 1


@dataclass(frozen=True)
class _Max:
    args: tuple[SizeExpr, ...]  # sorted by order, at least two, pairwise non-dominated

    @cached_property
    def order(self) -> tuple[Any, ...]:
        return (1, tuple(arg.order for arg in self.args))

    def __str__(self) -> str:
        return f"max({', '.join(map(str, self.args))})"

    @property
    def multiple(self) -> int:
        return math.gcd(*(arg.known_multiple for arg in self.args))


@dataclass(frozen=True)
class _AlignUp:
    arg: SizeExpr
    alignment: int

    @cached_property
    def order(self) -> tuple[Any, ...]:
        return (2, self.alignment, self.arg.order)

    def __str__(self) -> str:
        return f"align_up({self.arg}, {self.alignment})"

    @property
    def multiple(self) -> int:
        return self.alignment


_Atom = _Dim | _Max | _AlignUp
_Monomial = tuple[tuple[_Atom, int], ...]  # (atom, power) sorted by atom order; () is 1
_Poly = dict[_Monomial, int]


def _monomial(powers: Mapping[_Atom, int]) -> _Monomial:
    return tuple(sorted(((a, p) for a, p in powers.items() if p), key=lambda item: item[0].order))


def _times(lhs: _Monomial, rhs: _Monomial) -> _Monomial:
    powers: dict[_Atom, int] = defaultdict(int)
    for atom, power in (*lhs, *rhs):
        powers[atom] += power
    return _monomial(powers)


def _degree(monomial: _Monomial) -> int:
    return sum(power for _, power in monomial)


def _monomial_order(monomial: _Monomial) -> tuple[Any, ...]:
    return tuple((atom.order, power) for atom, power in monomial)


# -- expressions ----------------------------------------------------------------------------


class SizeExpr:
    """A non-negative byte count that may depend on runtime dims. Immutable and hashable."""

    __slots__ = ("_hash", "_order", "_terms")

    _terms: tuple[tuple[_Monomial, int], ...]  # highest degree first, the constant last

    def __init__(self, poly: _Poly):
        """Internal: use `const`, `dim` and the operators."""
        terms = [(m, c) for m, c in poly.items() if c]
        if any(c < 0 for _, c in terms):
            raise ValueError("sizes are non-negative: negative coefficient")
        terms.sort(key=lambda t: (-_degree(t[0]), _monomial_order(t[0])))
        self._terms = tuple(terms)
        self._hash = hash(self._terms)
        self._order: tuple[Any, ...] | None = None

    # -- construction ---------------------------------------------------------------------

    @staticmethod
    def const(n: int) -> SizeExpr:
        if n < 0:
            raise ValueError(f"sizes are non-negative, got {n}")
        return SizeExpr({(): n})

    @staticmethod
    def dim(key: Hashable, name: str | None = None) -> SizeExpr:
        """A runtime dim (an extent, so >= 0); `name` is how it prints."""
        atom = _Dim(key, name if name is not None else f"d{_serial(key)}")
        return SizeExpr({((atom, 1),): 1})

    @staticmethod
    def lift(value: SizeExpr | int) -> SizeExpr:
        return value if isinstance(value, SizeExpr) else SizeExpr.const(value)

    @staticmethod
    def max_of(values: Iterable[SizeExpr | int]) -> SizeExpr:
        """The maximum of `values` (0 for none: sizes are non-negative)."""
        return _maximum([SizeExpr.lift(v) for v in values])

    def __add__(self, other: SizeExpr | int) -> SizeExpr:
        poly: _Poly = defaultdict(int, dict(self._terms))
        for monomial, coeff in SizeExpr.lift(other)._terms:
            poly[monomial] += coeff
        return SizeExpr(poly)

    __radd__ = __add__

    def __mul__(self, other: SizeExpr | int) -> SizeExpr:
        poly: _Poly = defaultdict(int)
        for lm, lc in self._terms:
            for rm, rc in SizeExpr.lift(other)._terms:
                poly[_times(lm, rm)] += lc * rc
        return SizeExpr(poly)

    __rmul__ = __mul__

    def max(self, other: SizeExpr | int) -> SizeExpr:
        return _maximum([self, SizeExpr.lift(other)])

    def align_up(self, alignment: int) -> SizeExpr:
        """The smallest multiple of `alignment` that is >= self."""
        if alignment <= 0:
            raise ValueError(f"alignment must be positive, got {alignment}")
        if self.static_value is not None:
            return SizeExpr.const(-(-self.static_value // alignment) * alignment)
        aligned: _Poly = {}
        rest: _Poly = {}
        for monomial, coeff in self._terms:
            target = aligned if (coeff * _monomial_multiple(monomial)) % alignment == 0 else rest
            target[monomial] = coeff
        if not rest:
            return self
        remainder = SizeExpr(rest)
        inner = remainder._single_atom()
        if isinstance(inner, _AlignUp) and alignment % inner.alignment == 0:
            # align_up(align_up(y, b), a) with b | a rounds y up to a directly
            remainder = inner.arg
        return SizeExpr(aligned) + _atom(_AlignUp(remainder, alignment))

    # -- inspection -----------------------------------------------------------------------

    @property
    def static_value(self) -> int | None:
        if not self._terms:
            return 0
        if len(self._terms) == 1 and self._terms[0][0] == ():
            return self._terms[0][1]
        return None

    @property
    def dims(self) -> frozenset[Hashable]:
        """The keys of every runtime dim the value depends on."""
        return frozenset(atom.key for atom in self._atoms() if isinstance(atom, _Dim))

    def _atoms(self) -> Iterator[_Atom]:
        """Every atom of self, and of the expressions inside its max and align-up atoms."""
        for monomial, _ in self._terms:
            for atom, _ in monomial:
                yield atom
                inner = atom.args if isinstance(atom, _Max) else (atom.arg,) if isinstance(atom, _AlignUp) else ()
                for expr in inner:
                    yield from expr._atoms()

    def as_scaled_product(self) -> tuple[int, SizeExpr] | None:
        """`(c, p)` when self is `c * p` for one product `p` of atoms (not a constant)."""
        if len(self._terms) != 1 or self._terms[0][0] == ():
            return None
        monomial, coeff = self._terms[0]
        return coeff, SizeExpr({monomial: 1})

    @property
    def static_factor(self) -> int:
        """The c of `c * product` (the largest coefficient of a sum; a constant itself)."""
        return max((c for _, c in self._terms), default=0)

    @property
    def known_multiple(self) -> int:
        """A number every value of self is a multiple of (0 for the constant 0)."""
        return math.gcd(*(c * _monomial_multiple(m) for m, c in self._terms)) if self._terms else 0

    def evaluate(self, env: DimValues) -> int:
        """The value for the given dims (every dim of self must be in `env`)."""
        return sum(coeff * _evaluate_monomial(monomial, env) for monomial, coeff in self._terms)

    def dominates(self, other: SizeExpr) -> bool:
        """Whether self >= other for all dims, seen coefficient by coefficient."""
        mine = dict(self._terms)
        return all(mine.get(monomial, 0) >= coeff for monomial, coeff in other._terms)

    # -- identity ---------------------------------------------------------------------------

    @property
    def order(self) -> tuple[Any, ...]:
        """A total order among expressions, used to sort canonical forms."""
        if self._order is None:
            self._order = tuple((_monomial_order(m), c) for m, c in self._terms)
        return self._order

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SizeExpr) and self._terms == other._terms

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        if not self._terms:
            return "0"
        return " + ".join(_term_str(monomial, coeff) for monomial, coeff in self._terms)

    def __repr__(self) -> str:
        return f"SizeExpr({self})"

    def _single_atom(self) -> _Atom | None:
        if len(self._terms) == 1:
            monomial, coeff = self._terms[0]
            if coeff == 1 and len(monomial) == 1 and monomial[0][1] == 1:
                return monomial[0][0]
        return None

    # -- code -----------------------------------------------------------------------------

    def emit(self, emitter: SizeEmitter[Value], memo: dict[Any, Any] | None = None) -> int | Value:
        """Code computing self: an int when static, else the emitter's value.

        Pass the same `memo` to several calls to define shared subexpressions once.
        """
        return _Emission(emitter, {} if memo is None else memo).expr(self)


def _atom(atom: _Atom) -> SizeExpr:
    return SizeExpr({((atom, 1),): 1})


def _monomial_multiple(monomial: _Monomial) -> int:
    return math.prod(atom.multiple**power for atom, power in monomial)


def _evaluate_atom(atom: _Atom, env: DimValues) -> int:
    if isinstance(atom, _Dim):
        try:
            return env[atom.key]
        except KeyError:
            raise KeyError(f"no value for dim {atom.name}") from None
    if isinstance(atom, _Max):
        return max(arg.evaluate(env) for arg in atom.args)
    return -(-atom.arg.evaluate(env) // atom.alignment) * atom.alignment


def _evaluate_monomial(monomial: _Monomial, env: DimValues) -> int:
    return math.prod(_evaluate_atom(atom, env) ** power for atom, power in monomial)


def _term_str(monomial: _Monomial, coeff: int) -> str:
    factors = [str(coeff)] if coeff != 1 or not monomial else []
    factors += [f"{atom}^{power}" if power > 1 else str(atom) for atom, power in monomial]
    return "*".join(factors)


def _divide(expr: SizeExpr, coeff: int, monomial: _Monomial) -> SizeExpr:
    """expr / (coeff * monomial), for a common factor of every term."""
    strip = dict(monomial)
    poly: _Poly = {}
    for m, c in expr._terms:
        poly[_monomial({a: p - strip.get(a, 0) for a, p in m})] = c // coeff
    return SizeExpr(poly)


def _distributed(arg: SizeExpr) -> list[SizeExpr]:
    """`f * max(x, y)` as `[f*x, f*y]` (exact for f >= 0); other expressions as themselves."""
    if len(arg._terms) != 1:
        return [arg]
    monomial, coeff = arg._terms[0]
    maxima = [(atom, power) for atom, power in monomial if isinstance(atom, _Max)]
    if len(maxima) != 1 or maxima[0][1] != 1:
        return [arg]
    factor = SizeExpr({tuple(item for item in monomial if item != maxima[0]): coeff})
    return [factor * inner for inner in maxima[0][0].args]


def _maximum(values: list[SizeExpr]) -> SizeExpr:
    args = list(dict.fromkeys(d for v in values for d in _distributed(v)))
    if not args:
        return SizeExpr.const(0)
    # the part every argument has in common is added outside the max
    common: _Poly = {}
    for monomial, coeff in args[0]._terms:
        shared = min(dict(arg._terms).get(monomial, 0) for arg in args)
        if shared:
            common[monomial] = shared
    base = SizeExpr(common)
    residuals = [
        SizeExpr({m: c - common.get(m, 0) for m, c in arg._terms}) for arg in args
    ]
    kept: list[SizeExpr] = []
    for index, candidate in enumerate(residuals):
        dominated = any(
            other.dominates(candidate) and (other != candidate or other_index < index)
            for other_index, other in enumerate(residuals)
            if other_index != index
        )
        if not dominated:
            kept.append(candidate)
    if len(kept) == 1:
        return base + kept[0]
    # a common coefficient and common product of atoms move outside too
    terms = [t for arg in kept for t in arg._terms]
    coeff = math.gcd(*(c for _, c in terms))
    shared_powers = {a: p for a, p in terms[0][0]}
    for monomial, _ in terms[1:]:
        powers = dict(monomial)
        shared_powers = {a: min(p, powers.get(a, 0)) for a, p in shared_powers.items()}
    factor = _monomial(shared_powers)
    inner = sorted((_divide(arg, coeff, factor) for arg in kept), key=lambda e: e.order)
    return base + SizeExpr({factor: coeff}) * _atom(_Max(tuple(inner)))


class _Emission:
    """One emission: values already built are looked up in `memo` by what they compute."""

    def __init__(self, emitter: SizeEmitter[Any], memo: dict[Any, Any]):
        self.emitter = emitter
        self.memo = memo

    def constant(self, n: int) -> Any:
        key = ("const", n)
        if key not in self.memo:
            self.memo[key] = self.emitter.constant(n)
        return self.memo[key]

    def value(self, expr: SizeExpr) -> Any:
        """`expr` as an emitted value (constants materialized)."""
        result = self.expr(expr)
        return self.constant(result) if isinstance(result, int) else result

    def expr(self, expr: SizeExpr) -> Any:
        if expr.static_value is not None:
            return expr.static_value
        if expr not in self.memo:
            total = None
            for monomial, coeff in expr._terms:
                term = self.term(monomial, coeff) if monomial else self.constant(coeff)
                total = term if total is None else self.emitter.add(total, term)
            self.memo[expr] = total
        return self.memo[expr]

    def term(self, monomial: _Monomial, coeff: int) -> Any:
        product = self.product(monomial)
        if coeff == 1:
            return product
        key = ("term", monomial, coeff)
        if key not in self.memo:
            self.memo[key] = self.emitter.mul(product, self.constant(coeff))
        return self.memo[key]

    def product(self, monomial: _Monomial) -> Any:
        """The product of the atoms, built left to right so shared prefixes are reused."""
        factors = [atom for atom, power in monomial for _ in range(power)]
        value = self.atom(factors[0])
        for length in range(2, len(factors) + 1):
            key = ("product", tuple(factors[:length]))
            if key not in self.memo:
                self.memo[key] = self.emitter.mul(value, self.atom(factors[length - 1]))
            value = self.memo[key]
        return value

    def atom(self, atom: _Atom) -> Any:
        if isinstance(atom, _Dim):
            return atom.key
        if atom not in self.memo:
            if isinstance(atom, _Max):
                values = [self.value(arg) for arg in atom.args]
                result = values[0]
                for value in values[1:]:
                    result = self.emitter.max_unsigned(result, value)
            else:
                result = self.emitter.align_up(self.value(atom.arg), atom.alignment)
            self.memo[atom] = result
        return self.memo[atom]
