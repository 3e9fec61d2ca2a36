"""xhip.memory: symbolic sizes, the pool planners, and the layout checks.

Unit cases reproduce the seeds' examples (PR 570's shared slab, the overlap
guardrail, the small-allocation round-up, the attention pool of seed 003); the
property tests run every planner on random interval sets with random static and
dynamic sizes and check the layout at random dims.
"""

from __future__ import annotations

import math
import operator
from functools import reduce

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xhip.memory import (
    PLANNERS,
    Buffer,
    Placement,
    SizeExpr,
    check_layout,
    lower_bound,
    lower_bound_expr,
    plan_grouped,
    plan_lifetime_only,
    plan_stacked,
    plan_tree,
)
from xhip.testing.memory_cases import SEED_SHAPES, seed_attention_buffers

PROPERTY = settings(deadline=None, database=None)
ALIGN = 256

b, s, d0, d1 = (SizeExpr.dim(name, name) for name in ("b", "s", "d0", "d1"))


def align256(x: SizeExpr) -> SizeExpr:
    return x.align_up(ALIGN)


class Evaluating:
    """A SizeEmitter that computes with ints, and counts the operations it is asked for."""

    def __init__(self, env):
        self.env = env
        self.ops: list[str] = []

    def _op(self, name, value):
        self.ops.append(name)
        return value

    def constant(self, n):
        return self._op("constant", n)

    def add(self, lhs, rhs):
        return self._op("add", self.env.get(lhs, lhs) + self.env.get(rhs, rhs))

    def mul(self, lhs, rhs):
        return self._op("mul", self.env.get(lhs, lhs) * self.env.get(rhs, rhs))

    def max_unsigned(self, lhs, rhs):
        return self._op("max", max(self.env.get(lhs, lhs), self.env.get(rhs, rhs)))

    def align_up(self, value, alignment):
        return self._op("align", -(-self.env.get(value, value) // alignment) * alignment)


def emitted(expr: SizeExpr, env) -> int:
    value = expr.emit(Evaluating(env))
    return env.get(value, value) if not isinstance(value, int) else value


# -- SizeExpr ----------------------------------------------------------------------------------


def test_canonical_form_ignores_construction_order():
    assert 256 * b * s + 4 * s == s * 4 + s * b * 256
    assert hash(b * s * 3) == hash(3 * s * b)
    assert (b + s) * (b + s) == b * b + 2 * b * s + s * s
    assert str(256 * b * s + 4 * b * s * s) == "4*b*s^2 + 256*b*s"
    assert SizeExpr.const(0) + b == b and b * 1 == b and (b * 0).static_value == 0


def test_max_keeps_only_what_can_be_larger():
    assert (4 * b * s).max(2 * b * s) == 4 * b * s, "dominated term by term"
    assert b.max(0) == b
    assert (b + 7).max(s + 7) == 7 + b.max(s), "a common part goes outside"
    assert str(SizeExpr.max_of([256 * b * s, 4 * b * s * s])) == "4*b*s*max(64, s)"
    assert SizeExpr.max_of([b, SizeExpr.max_of([s, d0])]) == SizeExpr.max_of([d0, s, b]), "flattened"
    assert SizeExpr.const(3).max(9).static_value == 9
    assert SizeExpr.max_of([]).static_value == 0


def test_align_up_pulls_out_aligned_terms():
    assert align256(256 * b * s) == 256 * b * s
    assert align256(256 * b * s + 4 * b * s * s) == 256 * b * s + align256(4 * b * s * s)
    assert str(align256(4 * b * s * s)) == "align_up(4*b*s^2, 256)"
    assert align256(align256(4 * b)) == align256(4 * b), "idempotent"
    assert align256(4 * b).align_up(64) == align256(4 * b), "a coarser alignment already holds"
    assert align256(4 * b).align_up(1024) == (4 * b).align_up(1024)
    assert align256(align256(4 * b).max(256 * s)) == align256(4 * b).max(256 * s)
    assert SizeExpr.const(5).align_up(256).static_value == 256
    with pytest.raises(ValueError):
        b.align_up(0)


def test_static_value_dims_and_scaled_product():
    assert SizeExpr.const(12).static_value == 12 and (b * s).static_value is None
    assert (b * s + align256(4 * d0)).dims == frozenset({"b", "s", "d0"})
    assert (768 * b * s).as_scaled_product() == (768, b * s)
    assert (b + s).as_scaled_product() is None and SizeExpr.const(4).as_scaled_product() is None
    with pytest.raises(ValueError):
        SizeExpr.const(-1)


def test_evaluate():
    expr = 256 * b * s + SizeExpr.max_of([align256(4 * b * s * s), 512 * b])
    env = {"b": 3, "s": 5}
    assert expr.evaluate(env) == 256 * 15 + max(-(-4 * 75 // 256) * 256, 512 * 3)
    with pytest.raises(KeyError, match="no value for dim s"):
        s.evaluate({"b": 1})


def test_emit_folds_constants_and_shares_subexpressions():
    a = align256(256 * b * s)
    big = align256(4 * b * s * s)
    total = 2 * a.max(big) + 2 * a
    env = {"b": 4, "s": 512}
    emitter = Evaluating(env)
    memo: dict = {}
    assert total.emit(emitter, memo) == total.evaluate(env)
    count = len(emitter.ops)
    assert a.emit(emitter, memo) == a.evaluate(env)
    assert len(emitter.ops) == count, "256*b*s was already built for the total"
    assert emitter.ops.count("max") == 1 and emitter.ops.count("align") == 1
    assert SizeExpr.const(768).emit(emitter) == 768 and b.emit(emitter) == "b"


# -- the seeds' examples -----------------------------------------------------------------------


def test_pr570_disjoint_buffers_with_different_dims_share_one_slab():
    """Seed 001: memref<?x8192xf32> by %d0 and memref<?x4096xf32> by %d1, never live together."""
    a = Buffer("a", 32768 * d0, 0, 1, group=("d0",))
    c = Buffer("b", 16384 * d1, 2, 3, group=("d1",))
    for name in ("lifetime-only", "grouped", "tree"):
        plan = PLANNERS[name]([a, c], ALIGN)
        assert plan.offsets["a"].static_value == 0 and plan.offsets["b"].static_value == 0, name
        assert plan.total == (32768 * d0).max(16384 * d1), name
    stacked = plan_stacked([a, c], ALIGN)
    assert stacked.total == 32768 * d0 + 16384 * d1 and stacked.offsets["b"] == 32768 * d0


def test_overlapping_buffers_are_stacked():
    a = Buffer("a", 32768 * d0, 0, 2)
    c = Buffer("b", 16384 * d1, 2, 3)  # both live at point 2
    for name in ("lifetime-only", "grouped", "tree"):
        plan = PLANNERS[name]([a, c], ALIGN)
        assert plan.total == 32768 * d0 + 16384 * d1, name
        offsets = set(plan.offsets.values())
        assert offsets in ({SizeExpr.const(0), 32768 * d0}, {SizeExpr.const(0), 16384 * d1}), name


def test_small_non_multiple_rounds_the_slab_width_up():
    """memref<?x3xi32> by %d0 and memref<?x2xi32> by %d1 (never live together) share the
    first slab; the slab above starts at an aligned offset whatever the dims."""
    small = Buffer("small", 12 * d0, 0, 1)
    other = Buffer("other", 8 * d1, 2, 3)
    late = Buffer("late", 4 * d0 * d1, 0, 3)  # smaller static factor: colored last
    plan = plan_lifetime_only([small, other, late], ALIGN)
    assert plan.offsets["small"].static_value == 0 and plan.offsets["other"].static_value == 0
    assert plan.offsets["late"] == align256(12 * d0).max(align256(8 * d1)), "the shared slab, rounded up"
    for env in ({"d0": 3, "d1": 5}, {"d0": 100, "d1": 7}, {"d0": 1, "d1": 1000}):
        assert plan.offsets["late"].evaluate(env) % ALIGN == 0
        assert check_layout([small, other, late], plan, env, ALIGN) == []
    static = plan_lifetime_only([Buffer("x", 100, 0, 1), Buffer("y", 4 * d0, 0, 1)], ALIGN)
    assert static.offsets["y"].static_value == 256, "a 100-byte static prefix is one aligned block"


def attention() -> list[Buffer]:
    return seed_attention_buffers()[0]




@pytest.mark.parametrize("name", sorted(PLANNERS))
def test_seed_attention_pool_is_never_above_the_seeds_stacked_pool(name):
    seed_pool = 4 * align256(256 * b * s) + 2 * align256(4 * b * s * s)
    buffers = attention()
    plan = PLANNERS[name](buffers, ALIGN)
    for batch, seq in SEED_SHAPES:
        env = {"b": batch, "s": seq}
        assert check_layout(buffers, plan, env, ALIGN) == []
        assert lower_bound(buffers, env, ALIGN) <= plan.total.evaluate(env) <= seed_pool.evaluate(env)
    if name == "stacked":
        assert plan.total == seed_pool, "the seed's Pass 16 layout"


def test_seed_attention_shapes():
    """lifetime-only shares two slabs; tree reaches the max-live lower bound at every shape."""
    buffers = attention()
    a, big = 256 * b * s, align256(4 * b * s * s)
    lifetime = plan_lifetime_only(buffers, ALIGN)
    assert lifetime.total == 2 * a + 2 * a.max(big)
    assert lifetime.offsets["scaled"] == lifetime.offsets["q"], "scaled scores reuse q's slab"
    assert lifetime.offsets["scores"] == lifetime.offsets["k"], "scores reuse k's slab"
    assert [r.kind for r in lifetime.slabs] == ["slab"] * 4
    assert sum((r.width for r in lifetime.slabs), SizeExpr.const(0)) == lifetime.total
    tree = plan_tree(buffers, ALIGN)
    for batch, seq in [*SEED_SHAPES, (2, 7), (3, 64), (1, 1)]:
        env = {"b": batch, "s": seq}
        assert tree.total.evaluate(env) == lower_bound(buffers, env, ALIGN)
    for batch, seq in SEED_SHAPES:
        env = {"b": batch, "s": seq}
        assert tree.total.evaluate(env) < lifetime.total.evaluate(env)


def test_grouped_packs_static_factors_within_a_group_and_bins_the_rest():
    group = ("n",)
    buffers = [
        Buffer("x", 512 * d0, 0, 1, group=group),
        Buffer("y", 256 * d0, 0, 1, group=group),
        Buffer("z", 768 * d0, 2, 3, group=group),  # reuses x and y's units
        Buffer("p", 12 * d0, 0, 3, group=group),  # 12 is no multiple of 256: a bin of its own
        Buffer("q", 12 * d0, 4, 5, group=group),  # same size, disjoint from p: same bin
    ]
    plan = plan_grouped(buffers, ALIGN)
    assert plan.total == 768 * d0 + align256(12 * d0)
    assert plan.offsets["p"] == plan.offsets["q"]
    assert plan.offsets["z"] == plan.offsets["x"] or plan.offsets["z"] == plan.offsets["y"]
    for env in ({"d0": 1}, {"d0": 3}, {"d0": 1000}):
        assert check_layout(buffers, plan, env, ALIGN) == []


def test_grouped_keeps_different_groups_apart_when_live_together():
    buffers = [Buffer("x", 256 * d0, 0, 1, group=("a",)), Buffer("y", 256 * d0, 1, 2, group=("b",))]
    assert plan_grouped(buffers, ALIGN).total == 512 * d0


def test_static_buffers_best_fit_into_gaps():
    buffers = [
        Buffer("big", 1024, 0, 1),
        Buffer("mid", 512, 0, 3),
        Buffer("small", 300, 2, 3),  # fits into big's 1024 bytes once big is dead
    ]
    plan = plan_lifetime_only(buffers, ALIGN)
    assert plan.total.static_value == 1536
    assert plan.offsets["small"] == plan.offsets["big"]


def test_bad_alignment_and_duplicate_ids_are_errors():
    for alignment in (0, -256, 3, 100):
        with pytest.raises(ValueError, match="positive power of 2"):
            plan_tree([Buffer("x", b, 0, 1)], alignment)
    with pytest.raises(ValueError, match="two buffers have the id"):
        plan_stacked([Buffer("x", b, 0, 1), Buffer("x", s, 0, 1)], ALIGN)
    with pytest.raises(ValueError, match="empty"):
        Buffer("x", b, 3, 2)


def test_empty_and_zero_sized_inputs():
    for planner in PLANNERS.values():
        assert planner([], ALIGN).total.static_value == 0
        zero = [Buffer("z", 0, 0, 5), Buffer("x", 4 * b, 1, 2)]
        plan = planner(zero, ALIGN)
        assert check_layout(zero, plan, {"b": 0}, ALIGN) == []
        assert check_layout(zero, plan, {"b": 9}, ALIGN) == []


# -- the checks themselves -----------------------------------------------------------------------


def test_check_layout_reports_each_kind_of_mistake():
    buffers = [Buffer("x", 256 * b, 0, 2), Buffer("y", 256 * b, 1, 3), Buffer("z", 64, 3, 4)]
    zero = SizeExpr.const(0)
    overlap = Placement({"x": zero, "y": 128 * b, "z": zero}, 512 * b)
    problems = check_layout(buffers, overlap, {"b": 2}, ALIGN)
    assert any("'x'" in p and "'y'" in p and "overlap" in p for p in problems)
    outside = Placement({"x": zero, "y": 256 * b, "z": 512 * b}, 512 * b)
    assert any("past the pool size" in p for p in check_layout(buffers, outside, {"b": 1}, ALIGN))
    missing = Placement({"x": zero}, 1024 * b)
    assert sum("has no offset" in p for p in check_layout(buffers, missing, {"b": 1}, ALIGN)) == 2
    misaligned = Placement({"x": zero, "y": 256 * b + 4, "z": zero}, 1024 * b)
    assert any("not aligned" in p for p in check_layout(buffers, misaligned, {"b": 1}, ALIGN))
    disjoint_share = Placement({"x": zero, "y": 256 * b, "z": zero}, 512 * b)
    assert check_layout(buffers, disjoint_share, {"b": 1}, ALIGN) == [], "x is dead when z starts"


def test_lower_bound():
    buffers = attention()
    env = {"b": 1, "s": 128}
    a, big = 256 * 128, 4 * 128 * 128
    assert lower_bound(buffers, env, ALIGN) == max(4 * a, 3 * a + big, a + 2 * big)
    assert lower_bound_expr(buffers, ALIGN).evaluate(env) == lower_bound(buffers, env, ALIGN)
    assert lower_bound([Buffer("x", 1, 0, 0), Buffer("y", 1, 1, 1)], {}, ALIGN) == 256


# -- properties on random buffer sets -------------------------------------------------------------

DIMS = ("b", "s", "h")


@st.composite
def sizes(draw, dims: tuple[str, ...]) -> SizeExpr:
    kind = draw(st.sampled_from(["static", "dynamic", "dynamic", "dynamic+const"]))
    if kind == "static":
        return SizeExpr.const(draw(st.sampled_from([0, 1, 4, 100, 256, 1000, 4096, 70000])))
    coeff = draw(st.sampled_from([1, 2, 4, 12, 64, 256, 768, 1024, 3072]))
    chosen = draw(st.lists(st.sampled_from(dims), min_size=1, max_size=3))
    expr = coeff * reduce(operator.mul, (SizeExpr.dim(d, d) for d in chosen))
    return expr + draw(st.integers(1, 300)) if kind == "dynamic+const" else expr


@st.composite
def buffer_sets(draw) -> list[Buffer]:
    dims = DIMS[: draw(st.integers(2, 3))]
    buffers = []
    for index in range(draw(st.integers(0, 16))):
        first = draw(st.integers(0, 20))
        last = first + draw(st.integers(0, 8))
        group = draw(st.sampled_from([None, "g0", "g1"]))
        buffers.append(Buffer(f"t{index}", draw(sizes(dims)), first, last, group=group))
    return buffers


dim_values = st.fixed_dictionaries({d: st.one_of(st.integers(0, 8), st.integers(0, 3000)) for d in DIMS})


@settings(PROPERTY, max_examples=300)
@given(buffer_sets(), st.lists(dim_values, min_size=1, max_size=4), st.sampled_from([64, 256]))
def test_every_planner_gives_a_valid_layout_ordered_by_reuse(buffers, envs, alignment):
    plans = {name: planner(buffers, alignment) for name, planner in PLANNERS.items()}
    for name, plan in plans.items():
        regions = sorted(str(member) for region in plan.slabs for member in region.members)
        assert regions == sorted(str(buffer.id) for buffer in buffers), f"{name}: each buffer in one region"
    for env in envs:
        bound = lower_bound(buffers, env, alignment)
        totals = {name: plan.total.evaluate(env) for name, plan in plans.items()}
        for name, plan in plans.items():
            assert check_layout(buffers, plan, env, alignment) == [], name
            assert totals[name] >= bound, name
            assert totals[name] % alignment == 0, name
        assert totals["tree"] <= totals["lifetime-only"] <= totals["stacked"], totals
        assert totals["grouped"] <= totals["stacked"], totals
        assert lower_bound_expr(buffers, alignment).evaluate(env) == bound


@st.composite
def expressions(draw, depth: int = 3) -> tuple[SizeExpr, object]:
    """A random SizeExpr and the same computation as a Python function of the dims."""
    if depth == 0 or draw(st.booleans()):
        if draw(st.booleans()):
            n = draw(st.integers(0, 600))
            return SizeExpr.const(n), lambda env, n=n: n
        d = draw(st.sampled_from(DIMS))
        return SizeExpr.dim(d, d), lambda env, d=d: env[d]
    op = draw(st.sampled_from(["add", "mul", "max", "align"]))
    lhs, lf = draw(expressions(depth - 1))
    if op == "align":
        k = draw(st.sampled_from([1, 2, 64, 256]))
        return lhs.align_up(k), lambda env: -(-lf(env) // k) * k
    rhs, rf = draw(expressions(depth - 1))
    if op == "add":
        return lhs + rhs, lambda env: lf(env) + rf(env)
    if op == "mul":
        return lhs * rhs, lambda env: lf(env) * rf(env)
    return lhs.max(rhs), lambda env: max(lf(env), rf(env))


@settings(PROPERTY, max_examples=300)
@given(expressions(), expressions(), dim_values)
def test_canonical_forms_evaluate_and_emit_like_the_computation(first, second, env):
    (expr, compute), (other, other_compute) = first, second
    assert expr.evaluate(env) == compute(env)
    assert emitted(expr, env) == compute(env)
    assert (expr + other).evaluate(env) == compute(env) + other_compute(env)
    assert expr.max(other) == other.max(expr)
    assert expr.max(other).evaluate(env) == max(compute(env), other_compute(env))
    aligned = expr.align_up(ALIGN)
    assert aligned.evaluate(env) == math.ceil(compute(env) / ALIGN) * ALIGN
    assert aligned.known_multiple % ALIGN == 0 or aligned.static_value == 0
