"""Unit tests of xhip.shapes (every rule) and xhip.index.host_eval."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint

from xhip import shapes as S
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.index.host_eval import HostIndexEvaluator, evaluate
from xhip.parsing import parse_module
from xhip.shapes import INT64_MAX, INT64_MIN, Dim, IndexEmitter, ShapeFailure


class Scratch:
    """A func.func with `num_args` index arguments; the emitter appends to its body."""

    def __init__(self, num_args: int = 0):
        self.func = func.FuncOp("shape_rule", ([IndexType()] * num_args, []))
        self.block = self.func.body.block
        self.args: tuple[SSAValue, ...] = tuple(self.block.args)
        terminator = func.ReturnOp()
        self.block.add_op(terminator)
        self.em = IndexEmitter(InsertPoint.before(terminator))

    @property
    def ops(self) -> list[Operation]:
        """The ops the rule emitted (the terminator left out)."""
        return list(self.block.ops)[:-1]

    def op_names(self) -> list[str]:
        return [op.name for op in self.ops]

    def evaluate(self, dims: Sequence[Dim], values: Sequence[int]) -> list[int]:
        """The dims at runtime, with argument i bound to values[i]; checks the IR first."""
        self.func.verify()
        evaluator = HostIndexEvaluator(dict(zip(self.args, values, strict=True)))
        return evaluator.evaluate_all(dims)


def static(rule, *args, **kwargs):
    """Apply a rule to static shapes and check that it emitted no IR."""
    scratch = Scratch()
    result = rule(scratch.em, *args, **kwargs)
    assert scratch.ops == [], f"static shapes emitted {scratch.op_names()}"
    return result


def failure(result) -> str:
    assert isinstance(result, ShapeFailure), f"expected a failure, got {result}"
    return result.message


# --------------------------------------------------------------------------------------
# IndexEmitter
# --------------------------------------------------------------------------------------


def test_emitter_folds_static_values_without_ir():
    s = Scratch()
    em = s.em
    assert em.add(2, 3) == 5 and em.sub(2, 5) == -3 and em.mul(4, 5) == 20
    assert em.ceildiv(7, 2) == 4 and em.ceildiv(-7, 2) == -3 and em.div(-7, 2) == -3
    assert em.max(-1, 0) == 0 and em.min(-1, 0) == -1
    assert em.eq(3, 3) is True and em.lt(3, 2) is False
    assert em.select(True, 1, 2) == 1 and em.product([2, 3, 4]) == 24 and em.sum([]) == 0
    assert s.ops == []


def test_emitter_identities_forward_the_operand():
    s = Scratch(2)
    x, y = s.args
    em = s.em
    assert em.add(x, 0) is x and em.add(0, x) is x and em.sub(x, 0) is x
    assert em.mul(x, 1) is x and em.mul(1, x) is x and em.mul(x, 0) == 0
    assert em.sub(x, x) == 0 and em.div(x, 1) is x and em.ceildiv(x, 1) is x
    assert em.max(x, x) is x and em.min(x, INT64_MAX) is x and em.max(INT64_MIN, x) is x
    assert em.select(em.eq(x, y), y, y) is y
    assert em.eq(x, x) is True
    # Only the comparison above was needed.
    assert s.op_names() == ["arith.cmpi"]


def test_emitter_reuses_constants_and_expressions():
    s = Scratch(2)
    x, y = s.args
    em = s.em
    first = em.add(x, y)
    assert em.add(x, y) is first
    assert em.constant(7) is em.constant(7)
    assert em.select(em.eq(x, 1), y, x) is em.select(em.eq(x, 1), y, x)
    assert s.op_names() == ["arith.addi", "arith.constant", "arith.constant", "arith.cmpi", "arith.select"]


def test_emitter_uses_extent_facts_only_for_extents():
    s = Scratch(2)
    extent, value = s.args
    em = s.em
    em.mark_extents([extent])
    assert em.eq(extent, -1) is False and em.lt(extent, 0) is False
    assert em.max(extent, 0) is extent and em.min(0, extent) == 0
    assert s.ops == []
    # An arbitrary value (a Slice start, a Reshape target entry) may be negative.
    assert isinstance(em.eq(value, -1), SSAValue)
    assert isinstance(em.max(value, 0), SSAValue)
    # Sums and products of extents are extents.
    assert em.eq(em.mul(em.add(extent, extent), extent), -1) is False


def test_emitter_folds_what_offsets_and_bounds_prove():
    s = Scratch(2)
    seq, value = s.args
    em = s.em
    em.mark_extents([seq])
    seq_plus_one = em.add(seq, 1)
    # 1 + seq is seq + 1; min/max/sub/cmp against it follow from the offset.
    assert em.add(1, seq) is seq_plus_one
    assert em.min(seq, seq_plus_one) is seq and em.max(seq_plus_one, seq) is seq_plus_one
    assert em.sub(seq_plus_one, 1) is seq and em.sub(seq_plus_one, seq) == 1
    assert em.lt(seq_plus_one, 0) is False and em.min(1, seq_plus_one) == 1
    assert em.cmp("slt", seq, seq_plus_one) is True
    assert s.op_names() == ["arith.constant", "arith.addi"]
    # Not for a value that may be negative.
    assert isinstance(em.min(1, em.add(value, 1)), SSAValue)


def test_emitter_select_on_a_value_that_the_other_arm_agrees_with():
    """select(x == 0, x * y, x) is x: the arms agree wherever the condition holds."""
    s = Scratch(2)
    x, y = s.args
    em = s.em
    assert em.select(em.eq(x, 0), em.mul(x, y), x) is x
    assert em.select(em.eq(x, 1), em.mul(x, y), x) is not x


def test_moved_emitter_reuses_earlier_expressions():
    s = Scratch(2)
    x, y = s.args
    first = s.em.add(x, y)
    later = s.em.moved_to(InsertPoint.before(s.block.last_op))  # type: ignore[arg-type]
    assert later.add(y, x) is first and later.constant(3) is s.em.constant(3)
    assert s.op_names() == ["arith.addi", "arith.constant"]


def test_emitter_select_lazy_builds_only_the_chosen_side():
    s = Scratch(1)
    (x,) = s.args
    assert s.em.select_lazy(False, lambda: s.em.add(x, x), lambda: x) is x
    assert s.ops == []


# --------------------------------------------------------------------------------------
# Broadcast, variadic Max/Min, Expand
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shapes, expected",
    [
        (([2, 3], [3]), [2, 3]),
        (([4, 1], [4, 8]), [4, 8]),
        (([2, 1, 3], [5, 1]), [2, 5, 3]),
        (([0], [1]), [0]),
        (([1], [0]), [0]),
        (([0, 3], [0, 1]), [0, 3]),
        (([], []), []),
        (([], [2, 3]), [2, 3]),
        (([2, 3], []), [2, 3]),
        (([7],), [7]),
        (([2, 1], [1, 3], [4, 1, 1]), [4, 2, 3]),
        (([1, 1], [], [1]), [1, 1]),
    ],
)
def test_broadcast_static(shapes, expected):
    assert static(S.broadcast, *shapes) == expected
    assert expected == list(np.broadcast_shapes(*map(tuple, shapes)))


@pytest.mark.parametrize(
    "shapes, words",
    [
        (([0], [5]), "extents 0 and 5"),
        (([2, 3], [4, 3]), "extents 2 and 4 at result dim 0"),
        (([3], [2, 4]), "extents 3 and 4 at result dim 1"),
        (([2, 1], [1, 3], [5, 1]), "operand 2"),
    ],
)
def test_broadcast_failures_name_the_dims(shapes, words):
    assert words in failure(static(S.broadcast, *shapes))


def test_broadcast_needs_an_operand():
    assert "at least one" in failure(static(S.broadcast))


def test_dynamic_with_dynamic_emits_select_on_one():
    # The RFC's Max example: lhs ?x?, rhs ?x? must give [4, 8] for [4, 1] and [4, 8].
    s = Scratch(4)
    l0, l1, r0, r1 = s.args
    dims = S.broadcast(s.em, [l0, l1], [r0, r1])
    for d, (lhs, rhs) in zip(dims, [(l0, r0), (l1, r1)]):
        select = d.owner
        assert isinstance(select, arith.SelectOp)
        assert select.lhs is rhs and select.rhs is lhs
        cmp = select.cond.owner
        assert isinstance(cmp, arith.CmpiOp) and cmp.predicate.value.data == 0
        assert cmp.lhs is lhs and isinstance(cmp.rhs.owner, arith.ConstantOp)
        assert cmp.rhs.owner.value.value.data == 1
    assert "arith.maxsi" not in s.op_names() and "arith.maxui" not in s.op_names()
    assert s.evaluate(dims, [4, 1, 4, 8]) == [4, 8]
    assert s.evaluate(dims, [1, 8, 4, 8]) == [4, 8]
    # Zero extents: integer max would say 1 here.
    assert s.evaluate(dims, [0, 1, 1, 0]) == [0, 0]


def test_broadcast_dynamic_against_static_and_itself():
    s = Scratch(2)
    x, y = s.args
    assert S.broadcast(s.em, [x, x, y], [1, 5, y]) == [x, 5, y]
    assert S.broadcast(s.em, [x], [0]) == [0]
    assert S.broadcast(s.em, [x], []) == [x]
    assert s.ops == []


def test_variadic_max_folds_with_broadcast_at_every_step():
    s = Scratch(3)
    a, b, c = s.args
    dims = S.broadcast(s.em, [a, 1], [1, b], [c, 1, 1])
    assert len(dims) == 3 and dims[0] is c
    assert s.evaluate(dims, [2, 3, 4]) == [4, 2, 3]
    assert s.evaluate(dims, [1, 3, 4]) == [4, 1, 3]


@pytest.mark.parametrize(
    "shape, target, expected",
    [([3, 1], [2, 1, 6], [2, 3, 6]), ([3, 1], [0, 1, 5], [0, 3, 5]), ([1], [0], [0]), ([], [2], [2]), ([2], [], [2])],
)
def test_expand_static(shape, target, expected):
    assert static(S.expand, shape, target) == expected


def test_expand_failure_and_runtime_target():
    assert "Expand" in failure(static(S.expand, [3, 1], [0, 1]))
    s = Scratch(2)
    extent, target = s.args
    dims = S.expand(s.em, [extent], [target])
    assert s.evaluate(dims, [1, 6]) == [6]
    assert s.evaluate(dims, [6, 1]) == [6]
    assert s.evaluate(dims, [0, 1]) == [0]


# --------------------------------------------------------------------------------------
# Gemm, MatMul
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b, c, trans_a, trans_b, expected",
    [
        ([2, 3], [3, 4], None, False, False, [2, 4]),
        ([3, 2], [3, 4], None, True, False, [2, 4]),
        ([2, 3], [4, 3], None, False, True, [2, 4]),
        ([3, 2], [4, 3], [2, 4], True, True, [2, 4]),
        ([2, 3], [3, 4], [], False, False, [2, 4]),
        ([2, 3], [3, 4], [4], False, False, [2, 4]),
        ([2, 3], [3, 4], [2, 1], False, False, [2, 4]),
        ([2, 3], [3, 4], [1, 4], False, False, [2, 4]),
        ([2, 0], [0, 4], None, False, False, [2, 4]),
    ],
)
def test_gemm_static(a, b, c, trans_a, trans_b, expected):
    assert static(S.gemm, a, b, c, trans_a=trans_a, trans_b=trans_b) == expected


@pytest.mark.parametrize(
    "a, b, c, trans_a, trans_b, words",
    [
        ([2, 3], [4, 4], None, False, False, "contraction dims differ: 3 vs 4"),
        ([3, 2], [3, 4], None, False, False, "contraction dims differ: 2 vs 3"),
        ([2, 3], [3, 4], [2], False, False, "does not broadcast to [2, 4]"),
        ([2, 3], [3, 4], [1, 2, 4], False, False, "does not broadcast"),
        ([2, 3, 1], [3, 4], None, False, False, "rank-2"),
        ([2, 3], [3], None, False, False, "rank-2"),
    ],
)
def test_gemm_failures(a, b, c, trans_a, trans_b, words):
    assert words in failure(static(S.gemm, a, b, c, trans_a=trans_a, trans_b=trans_b))


def test_gemm_takes_m_and_n_from_the_transposed_operands():
    # The old converter copied A's dims positionally; this locks M and N to the right source.
    s = Scratch(4)
    a0, a1, b0, b1 = s.args
    assert S.gemm(s.em, [a0, a1], [b0, b1]) == [a0, b1]
    assert S.gemm(s.em, [a0, a1], [b0, b1], trans_a=True) == [a1, b1]
    assert S.gemm(s.em, [a0, a1], [b0, b1], trans_b=True) == [a0, b0]
    assert S.gemm(s.em, [128, a1], [b0, 256], [1, 256]) == [128, 256]
    assert s.ops == []


@pytest.mark.parametrize(
    "a, b",
    [
        ([2, 3], [3, 4]),
        ([3], [3]),
        ([3], [2, 3, 4]),
        ([2, 3, 4], [4]),
        ([1, 5, 2, 3], [7, 1, 3, 4]),
        ([6, 2, 3], [3, 4]),
        ([2, 3], [6, 3, 4]),
        ([0, 2, 3], [1, 3, 4]),
        ([2, 0], [0, 5]),
    ],
)
def test_matmul_static_matches_numpy(a, b):
    expected = list(np.matmul(np.ones(a), np.ones(b)).shape)
    assert static(S.matmul, a, b) == expected


@pytest.mark.parametrize(
    "a, b, words",
    [
        ([2, 3], [4, 5], "contraction dims differ: 3 vs 4"),
        ([3], [4], "contraction dims differ"),
        ([2, 2, 3], [5, 3, 4], "MatMul batch dims"),
        ([], [3], "rank >= 1"),
        ([3], [], "rank >= 1"),
    ],
)
def test_matmul_failures(a, b, words):
    assert words in failure(static(S.matmul, a, b))


def test_matmul_dynamic_batch_broadcasts_both_ways():
    s = Scratch(4)
    batch_a, m, batch_b, n = s.args
    dims = S.matmul(s.em, [batch_a, 1, m, 8], [batch_b, 8, n])
    assert dims[2] is m and dims[3] is n
    assert s.evaluate(dims, [3, 5, 1, 7]) == [3, 1, 5, 7]
    assert s.evaluate(dims, [1, 5, 4, 7]) == [1, 4, 5, 7]


# --------------------------------------------------------------------------------------
# Transpose, Softmax, LayerNormalization, Reduce, Flatten, Squeeze, Unsqueeze
# --------------------------------------------------------------------------------------


def test_transpose():
    assert static(S.transpose, [2, 3, 4]) == [4, 3, 2]
    assert static(S.transpose, [2, 3, 4], [2, 0, 1]) == [4, 2, 3]
    assert static(S.transpose, []) == []
    assert "not a permutation" in failure(static(S.transpose, [2, 3], [0, 0]))
    assert "not a permutation" in failure(static(S.transpose, [2, 3], [0, 1, 2]))
    s = Scratch(1)
    (x,) = s.args
    assert S.transpose(s.em, [2, x, 4096], [2, 0, 1]) == [4096, 2, x]


def test_softmax_and_layer_norm_axes():
    assert static(S.same_shape_on_axis, [2, 3], -1) == [2, 3]
    assert static(S.same_shape_on_axis, [2, 3], -2) == [2, 3]
    assert "Softmax axis 2 is out of range [-2, 1]" in failure(static(S.same_shape_on_axis, [2, 3], 2))
    assert "out of range" in failure(static(S.same_shape_on_axis, [], -1))
    assert "LayerNormalization" in failure(
        static(S.same_shape_on_axis, [2, 3], -3, op_name="LayerNormalization")
    )
    assert static(S.layer_norm_stats, [2, 3, 4], -1) == [2, 3, 1]
    assert static(S.layer_norm_stats, [2, 3, 4], 1) == [2, 1, 1]
    assert "out of range" in failure(static(S.layer_norm_stats, [2, 3], 2))


@pytest.mark.parametrize(
    "shape, axes, keepdims, noop, expected",
    [
        ([2, 3, 4], [1], True, False, [2, 1, 4]),
        ([2, 3, 4], [1], False, False, [2, 4]),
        ([2, 3, 4], [-1, 0], False, False, [3]),
        ([2, 3, 4], [1, -2], False, False, [2, 4]),
        ([2, 3, 4], [], True, False, [1, 1, 1]),
        ([2, 3, 4], None, False, False, []),
        ([2, 3, 4], [], False, True, [2, 3, 4]),
        ([], [], False, False, []),
        ([], None, True, False, []),
        ([0, 3], [0], True, False, [1, 3]),
    ],
)
def test_reduce(shape, axes, keepdims, noop, expected):
    assert static(S.reduce, shape, axes, keepdims=keepdims, noop_with_empty_axes=noop) == expected


def test_reduce_failures():
    assert "reduction axis 3 is out of range [-3, 2]" in failure(static(S.reduce, [2, 3, 4], [3]))
    assert "out of range" in failure(static(S.reduce, [], [0]))


def test_flatten():
    assert static(S.flatten, [2, 3, 4], 1) == [2, 12]
    assert static(S.flatten, [2, 3, 4], 0) == [1, 24]
    assert static(S.flatten, [2, 3, 4], 3) == [24, 1]
    assert static(S.flatten, [2, 3, 4], -1) == [6, 4]
    assert static(S.flatten, [], 0) == [1, 1]
    assert "out of range [-3, 3]" in failure(static(S.flatten, [2, 3, 4], 4))
    s = Scratch(2)
    x, y = s.args
    dims = S.flatten(s.em, [x, 3, y], 2)
    assert dims[1] is y and s.evaluate(dims, [5, 7]) == [15, 7]


def test_squeeze_and_unsqueeze():
    assert static(S.squeeze, [1, 3, 1], [0]) == [3, 1]
    assert static(S.squeeze, [1, 3, 1], [-1, 0]) == [3]
    assert static(S.squeeze, [1, 3, 1]) == [3]
    assert static(S.squeeze, [1]) == []
    assert "extent 3, not 1" in failure(static(S.squeeze, [1, 3], [1]))
    assert "repeated" in failure(static(S.squeeze, [1, 3], [0, -2]))
    assert static(S.unsqueeze, [3, 4], [0, -1]) == [1, 3, 4, 1]
    assert static(S.unsqueeze, [], [0]) == [1]
    assert static(S.unsqueeze, [3], [1, 0]) == [1, 1, 3]
    assert "out of range" in failure(static(S.unsqueeze, [3], [2]))
    assert "repeated" in failure(static(S.unsqueeze, [3], [0, -3]))
    assert "Squeeze axis 2 is out of range" in failure(static(S.squeeze, [1, 1], [2]))
    s = Scratch(1)
    (x,) = s.args
    assert S.squeeze(s.em, [x, 4], [0]) == [4]
    assert "needs static dims" in failure(S.squeeze(s.em, [x, 1]))
    assert S.unsqueeze(s.em, [x], [1]) == [x, 1]


# --------------------------------------------------------------------------------------
# Gather, GatherND, Concat, Split
# --------------------------------------------------------------------------------------


def test_gather():
    assert static(S.gather, [5, 6, 7], [2, 3], 1) == [5, 2, 3, 7]
    assert static(S.gather, [5, 6, 7], [], -1) == [5, 6]
    assert static(S.gather, [5], [0], 0) == [0]
    assert "out of range" in failure(static(S.gather, [], [2], 0))
    assert "Gather axis 3" in failure(static(S.gather, [5, 6, 7], [2], 3))
    assert static(S.gather_elements, [5, 6], [2, 6], 0) == [2, 6]
    assert "differ in rank" in failure(static(S.gather_elements, [5, 6], [2], 0))
    assert "GatherElements axis -3" in failure(static(S.gather_elements, [5, 6], [2, 6], -3))
    # Along the axis indices may outnumber the data; off it they may only be fewer.
    assert static(S.gather_elements, [5, 6], [9, 2], 0) == [9, 2]
    assert "exceed data [5, 6] in dim 1" in failure(static(S.gather_elements, [5, 6], [2, 7], 0))


@pytest.mark.parametrize(
    "data, indices, batch_dims, expected",
    [
        ([2, 2], [2, 2], 0, [2]),
        ([2, 2], [2, 1], 0, [2, 2]),
        ([2, 2, 2], [2, 2], 0, [2, 2]),
        ([2, 2, 2], [2, 1, 2], 0, [2, 1, 2]),
        ([2, 2, 2], [2, 1], 1, [2, 2]),
        ([3, 4, 5, 6], [3, 7, 2], 1, [3, 7, 6]),
    ],
)
def test_gather_nd(data, indices, batch_dims, expected):
    assert static(S.gather_nd, data, indices, batch_dims) == expected


def test_gather_nd_failures():
    assert "batch_dims 2" in failure(static(S.gather_nd, [2, 2], [2, 1], 2))
    assert "tuple width 3" in failure(static(S.gather_nd, [2, 2], [2, 3], 0))
    assert "tuple width 0" in failure(static(S.gather_nd, [2, 2], [2, 0], 0))
    assert "batch dim 0 differs" in failure(static(S.gather_nd, [3, 2], [4, 1], 1))
    assert "rank >= 1" in failure(static(S.gather_nd, [], [1], 0))
    s = Scratch(1)
    (x,) = s.args
    assert "static last dim" in failure(S.gather_nd(s.em, [2, 2], [3, x]))
    assert S.gather_nd(s.em, [x, 4, 5], [3, 1], 1) == [3, 5]


def test_concat():
    assert static(S.concat, [[2, 3], [2, 0], [2, 4]], 1) == [2, 7]
    assert static(S.concat, [[2, 3], [5, 3]], -2) == [7, 3]
    assert "rank" in failure(static(S.concat, [[2, 3], [3]], 0))
    assert "operand 1 has extent 4 at dim 0, expected 2" in failure(static(S.concat, [[2, 3], [4, 3]], 1))
    assert "out of range" in failure(static(S.concat, [[2], [3]], 1))
    assert "out of range" in failure(static(S.concat, [[], []], 0))
    assert "at least one" in failure(static(S.concat, [], 0))
    s = Scratch(3)
    x, y, z = s.args
    dims = S.concat(s.em, [[x, y], [4, z], [x, 1]], 1)
    assert dims[0] == 4
    assert s.op_names().count("arith.addi") == 2
    assert s.evaluate(dims, [4, 2, 3]) == [4, 6]


def test_split():
    assert static(S.split, [7, 2], 0, num_outputs=3) == [[3, 2], [3, 2], [1, 2]]
    assert static(S.split, [4], 0, num_outputs=3) == [[2], [2], [0]]
    assert static(S.split, [0], 0, num_outputs=3) == [[0], [0], [0]]
    assert static(S.split, [2, 6], -1, sizes=[1, 5]) == [[2, 1], [2, 5]]
    assert "negative last chunk" in failure(static(S.split, [5], 0, num_outputs=4))
    assert "sum to 5, not the axis extent 6" in failure(static(S.split, [6], 0, sizes=[2, 3]))
    assert "must not be negative" in failure(static(S.split, [6], 0, sizes=[7, -1]))
    assert "num_outputs" in failure(static(S.split, [6], 0))
    assert "out of range" in failure(static(S.split, [], 0, num_outputs=1))
    s = Scratch(1)
    (x,) = s.args
    outs = S.split(s.em, [x, 5], 0, num_outputs=3)
    assert outs[0][0] is outs[1][0] and outs[2][1] == 5
    assert [s.evaluate(o, [7]) for o in outs] == [[3, 5], [3, 5], [1, 5]]
    assert [s.evaluate(o, [6]) for o in outs] == [[2, 5], [2, 5], [2, 5]]
    assert S.split(s.em, [x], 0, num_outputs=1) == [[x]]


# --------------------------------------------------------------------------------------
# Slice
# --------------------------------------------------------------------------------------

SLICE_CASES = [
    (5, 1, 3, 1),
    (5, -1, -100, -2),
    (5, -100, 100, 2),
    (5, 4, -1, 1),
    (5, INT64_MAX, 0, -1),
    (5, 0, INT64_MAX, 1),
    (5, INT64_MIN, INT64_MAX, 3),
    (5, 3, 3, -1),
    (0, -1, -100, -1),
    (0, 0, 10, 1),
    (1, 0, INT64_MIN, -1),
    (8, 7, 2, -3),
]


@pytest.mark.parametrize("dim, start, end, step", SLICE_CASES)
def test_slice_static_matches_numpy(dim, start, end, step):
    expected = len(np.arange(dim)[start:end:step])
    assert static(S.slice_, [dim, 3], [start], [end], [0], [step]) == [expected, 3]


@pytest.mark.parametrize("dim, start, end, step", SLICE_CASES)
def test_slice_runtime_form_matches_numpy(dim, start, end, step):
    s = Scratch(4)
    dims = S.slice_(s.em, [s.args[0]], s.args[1:2], s.args[2:3], None, s.args[3:4])
    assert s.evaluate(dims, [dim, start, end, step]) == [len(np.arange(dim)[start:end:step])]


def test_slice_runtime_form_clamps_with_select_max_min():
    s = Scratch(3)
    d, start, end = s.args
    S.slice_(s.em, [d], [start], [end], [0], [1])
    names = s.op_names()
    assert {"arith.select", "arith.maxsi", "arith.minsi", "arith.subi"} <= set(names)
    # A static step needs no division and no direction select on the bounds.
    assert "arith.ceildivsi" not in names


def test_slice_to_the_end_forwards_the_dim():
    s = Scratch(1)
    (d,) = s.args
    assert S.slice_(s.em, [d, 4], [0, 1], [INT64_MAX, 3], [0, 1]) == [d, 2]
    assert s.ops == []


def test_slice_failures():
    assert "step must not be 0" in failure(static(S.slice_, [5], [0], [5], [0], [0]))
    assert "repeated" in failure(static(S.slice_, [5, 5], [0, 1], [2, 3], [0, -2]))
    assert "differ in length" in failure(static(S.slice_, [5], [0, 1], [2], [0]))
    assert "out of range" in failure(static(S.slice_, [5], [0], [2], [1]))


# --------------------------------------------------------------------------------------
# Reshape
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, target, allowzero, expected",
    [
        ([2, 3, 4], [0, -1], False, [2, 12]),
        ([2, 3, 4], [-1], False, [24]),
        ([2, 3, 4], [4, 0, 2], False, [4, 3, 2]),
        ([3, 0], [0, -1], False, [3, 0]),
        ([3, 0], [-1, 5], False, [0, 5]),
        ([0, 3], [0, 3], True, [0, 3]),
        ([2, 0], [0, 7], True, [0, 7]),
        ([1], [], False, []),
        ([], [1, 1], False, [1, 1]),
        ([], [-1], False, [1]),
    ],
)
def test_reshape_static(shape, target, allowzero, expected):
    assert static(S.reshape, shape, target, allowzero=allowzero) == expected


@pytest.mark.parametrize(
    "shape, target, allowzero, words",
    [
        ([2, 3], [-1, -1], False, "more than one -1"),
        ([2, 3], [2, -2], False, "negative entry"),
        ([2, 3], [6, 1, 0], False, "entry 2 is 0 but the input has rank 2"),
        ([2, 3], [4, 2], False, "(6 elements)"),
        ([2, 3], [4, -1], False, "cannot infer -1"),
        ([0, 3], [0, -1], False, "cannot infer -1"),
        ([2, 3], [0, -1], True, "both 0 and -1"),
        ([2, 3], [], False, "(1 elements)"),
    ],
)
def test_reshape_failures(shape, target, allowzero, words):
    assert words in failure(static(S.reshape, shape, target, allowzero=allowzero))


def test_reshape_dynamic_input_static_target():
    s = Scratch(2)
    x, y = s.args
    dims = S.reshape(s.em, [x, y, 4], [0, -1])
    assert dims[0] is x
    assert s.evaluate(dims, [2, 3]) == [2, 12]
    assert "arith.cmpi" not in s.op_names()


def test_reshape_runtime_target_entries_may_be_zero_or_minus_one():
    s = Scratch(2)
    t0, t1 = s.args
    dims = S.reshape(s.em, [2, 3, 4], [t0, t1])
    assert s.evaluate(dims, [0, -1]) == [2, 12]
    assert s.evaluate(dims, [6, 4]) == [6, 4]
    assert s.evaluate(dims, [-1, 8]) == [3, 8]
    assert s.evaluate(dims, [4, 0]) == [4, 3]


def test_reshape_target_of_extents_needs_no_inference():
    s = Scratch(2)
    x, y = s.args
    s.em.mark_extents([x, y])
    assert S.reshape(s.em, [x, y], [y, x], allowzero=True) == [y, x]
    assert s.ops == []


# --------------------------------------------------------------------------------------
# Range, NonZero, Shape, Size, same shape
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "start, limit, delta", [(0, 10, 3), (10, 0, -3), (0, 10, -1), (5, 5, 1), (-4, 7, 2), (3, -8, -5)]
)
def test_range(start, limit, delta):
    expected = [len(range(start, limit, delta))]
    assert static(S.range_, start, limit, delta) == expected
    s = Scratch(3)
    dims = S.range_(s.em, *s.args)
    assert s.evaluate(dims, [start, limit, delta]) == expected


def test_range_zero_delta_fails():
    assert "delta must not be 0" in failure(static(S.range_, 0, 5, 0))


def test_nonzero_capacity_and_shape_ops():
    assert static(S.nonzero_capacity, [2, 3]) == [2, 6]
    assert static(S.nonzero_capacity, []) == [0, 1]
    s = Scratch(2)
    x, y = s.args
    dims = S.nonzero_capacity(s.em, [x, y])
    assert dims[0] == 2 and s.op_names() == ["arith.muli"]
    assert s.evaluate(dims, [3, 0]) == [2, 0]
    assert S.size(s.em, [x, y]) == []
    assert S.same_shape(s.em, [x, 3]) == [x, 3]


@pytest.mark.parametrize("start, end", [(0, None), (1, None), (-1, None), (0, -1), (-10, 10), (2, 1), (4, None)])
def test_shape_of(start, end):
    dims = [5, 6, 7]
    assert static(S.shape_of, dims, start, end) == [len(dims[start:end])]
    assert static(S.shape_of, [], start, end) == [0]


# --------------------------------------------------------------------------------------
# Diagnostics
# --------------------------------------------------------------------------------------


def test_shape_failure_becomes_a_located_error():
    module = parse_module(
        make_context(),
        'func.func @f(%a: index) {\n  %c = arith.addi %a, %a : index\n  func.return\n}\n',
        "model.mlir",
    )
    addi = next(op for op in module.walk() if isinstance(op, arith.AddiOp))
    error = ShapeFailure("Gemm contraction dims differ: 3 vs 4").error(addi)
    assert str(error) == "model.mlir:2:3: error: Gemm contraction dims differ: 3 vs 4"


# --------------------------------------------------------------------------------------
# host_index_eval
# --------------------------------------------------------------------------------------

EVAL_SOURCE = """\
func.func @f(%a: index, %b: index, %n: i32, %t: tensor<?xf32>) {
  %c7 = arith.constant 7 : index
  %cm7 = arith.constant -7 : index
  %c2 = arith.constant 2 : index
  %cm1 = arith.constant -1 : index
  %true = arith.constant true
  %add = arith.addi %a, %b : index
  %sub = arith.subi %a, %b : index
  %mul = arith.muli %a, %b : index
  %divsi = arith.divsi %cm7, %c2 : index
  %divui = arith.divui %cm1, %c2 : index
  %ceildivsi = arith.ceildivsi %cm7, %c2 : index
  %ceildivui = arith.ceildivui %c7, %c2 : index
  %floordivsi = arith.floordivsi %cm7, %c2 : index
  %remsi = arith.remsi %cm7, %c2 : index
  %remui = arith.remui %c7, %c2 : index
  %maxsi = arith.maxsi %cm1, %c2 : index
  %maxui = arith.maxui %cm1, %c2 : index
  %minsi = arith.minsi %cm1, %c2 : index
  %minui = arith.minui %cm1, %c2 : index
  %lt = arith.cmpi slt, %a, %b : index
  %sel = arith.select %lt, %a, %b : index
  %pick = arith.select %true, %c7, %c2 : index
  %cast = arith.index_cast %n : i32 to index
  %back = arith.index_cast %mul : index to i32
  %wide = arith.extsi %n : i32 to i64
  %zwide = arith.extui %n : i32 to i64
  %narrow = arith.trunci %wide : i64 to i8
  %bad = arith.divsi %a, %sub : index
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %t, %c0 : tensor<?xf32>
  %use = arith.addi %dim, %a : index
  func.return
}
"""

EVAL_EXPECTED = {
    "add": 8, "sub": -2, "mul": 15, "divsi": -3, "divui": 2**63 - 1, "ceildivsi": -3,
    "ceildivui": 4, "floordivsi": -4, "remsi": -1, "remui": 1, "maxsi": 2, "maxui": -1,
    "minsi": -1, "minui": 2, "lt": 1, "sel": 3, "pick": 7, "cast": -300, "back": 15,
    "wide": -300, "zwide": 2**32 - 300, "narrow": -44,
}


@pytest.fixture(scope="module")
def eval_func():
    module = parse_module(make_context(), EVAL_SOURCE, "eval.mlir")
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    values = {op.results[0].name_hint: op.results[0] for op in fn.body.block.ops if op.results}
    return fn.body.block.args, values


@pytest.mark.parametrize("name", sorted(EVAL_EXPECTED))
def test_evaluate_each_op(eval_func, name):
    (a, b, n, _), values = eval_func
    assert evaluate(values[name], {a: 3, b: 5, n: -300}) == EVAL_EXPECTED[name]


def test_evaluate_errors_are_located(eval_func):
    (a, b, n, _), values = eval_func
    with pytest.raises(XhipError, match=r"eval\.mlir:29:3: error: division by zero in 'arith.divsi'"):
        evaluate(values["bad"], {a: 3, b: 3, n: 0})
    with pytest.raises(XhipError, match=r"eval\.mlir:31:3: error: cannot evaluate 'tensor.dim'"):
        evaluate(values["use"], {a: 3, b: 3, n: 0})
    with pytest.raises(XhipError, match=r"no value bound for block argument #1"):
        evaluate(values["add"], {a: 3, n: 0})
    # A binding for an op result (a tensor.dim the runtime read) stops the walk there.
    assert evaluate(values["use"], {values["dim"]: 10, a: 1}) == 11


@pytest.mark.parametrize(
    "predicate, lhs, rhs, expected",
    [
        ("eq", 3, 3, True), ("ne", 3, 3, False), ("slt", -1, 0, True), ("sle", 0, 0, True),
        ("sgt", -1, 0, False), ("sge", -1, -1, True), ("ult", -1, 0, False), ("ule", 0, -1, True),
        ("ugt", -1, 0, True), ("uge", 0, -1, False),
    ],
)
def test_evaluate_every_cmpi_predicate(predicate, lhs, rhs, expected):
    s = Scratch(2)
    cond = s.em.cmp(predicate, *s.args)
    assert s.evaluate([cond], [lhs, rhs]) == [int(expected)]
    assert S.IndexEmitter(InsertPoint.at_end(Scratch().block)).cmp(predicate, lhs, rhs) is expected


def test_evaluate_wraps_to_the_type_width():
    module = parse_module(
        make_context(),
        "func.func @f(%x: i8) {\n  %y = arith.addi %x, %x : i8\n  func.return\n}\n",
    )
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    (x,) = fn.body.block.args
    y = next(iter(fn.body.block.ops)).results[0]
    assert evaluate(y, {x: 100}) == -56
    assert evaluate(x, {x: 200}) == -56


def test_evaluate_memoizes_shared_subexpressions_and_deep_chains():
    # 300 doublings of a diamond: exponential without memoization, and deeper
    # than Python's recursion limit when walked recursively with the chain below.
    s = Scratch(1)
    (x,) = s.args
    value: Dim = x
    for _ in range(300):
        value = s.em.add(value, value)
    for i in range(1500):
        value = s.em.add(value, s.em.constant(i % 3 + 1))
    expected = ((3 << 300) + sum(i % 3 + 1 for i in range(1500))) % 2**64
    expected = expected - 2**64 if expected >= 2**63 else expected
    evaluator = HostIndexEvaluator({x: 3})
    assert evaluator.evaluate(value) == expected
    assert evaluator.evaluate(value) == expected
    assert evaluate(7, {}) == 7
