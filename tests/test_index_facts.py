"""xhip.index.facts: every fact it claims holds at run time.

Random host index programs over two extents (`tensor.dim` results) are built from
the ops shape rules emit; each fact about them is then checked against the values
`host_index_eval` computes for random extents. A fact may say "unknown" (None,
False), never something false. A few hand-written cases pin down what the facts
are for (GPT-2's shape code).
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType, f32
from xdsl.ir import Operation, SSAValue

from xhip.index import facts as index_facts
from xhip.index.host_eval import HostIndexEvaluator

EXTENT_VALUES = st.integers(0, 6)


@dataclass
class Program:
    """A function whose body defines two extents, then index arithmetic on them."""

    block: object
    extents: tuple[SSAValue, SSAValue]
    values: list[SSAValue]

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)  # type: ignore[attr-defined]
        result = op.results[0]
        if isinstance(result.type, IndexType):
            self.values.append(result)
        return result

    def constant(self, value: int) -> SSAValue:
        return self.add(arith.ConstantOp.from_int_and_width(value, IndexType()))


def new_program() -> Program:
    function = func.FuncOp("f", ([TensorType(f32, [DYNAMIC_INDEX, DYNAMIC_INDEX])], []))
    block = function.body.block
    program = Program(block, (None, None), [])  # type: ignore[arg-type]
    dims = []
    for axis in (0, 1):
        index = arith.ConstantOp.from_int_and_width(axis, IndexType())
        block.add_op(index)
        dims.append(program.add(tensor.DimOp(block.args[0], index.result)))
    program.extents = (dims[0], dims[1])
    return program


@st.composite
def programs(draw: st.DrawFn) -> Program:
    """Up to 12 ops of the kinds shape rules emit; divisors are never 0."""
    program = new_program()
    for _ in range(draw(st.integers(1, 12))):
        pick = st.sampled_from(program.values)
        a, b = draw(pick), draw(pick)
        c = draw(st.integers(-3, 4))
        kind = draw(st.sampled_from(["add", "add_const", "sub_const", "mul", "max", "min", "div", "ceildiv", "select"]))
        if kind == "add":
            program.add(arith.AddiOp(a, b))
        elif kind == "add_const":
            program.add(arith.AddiOp(a, program.constant(c)))
        elif kind == "sub_const":
            program.add(arith.SubiOp(a, program.constant(c)))
        elif kind == "mul":
            program.add(arith.MuliOp(a, b))
        elif kind in ("max", "min"):
            op_type = arith.MaxSIOp if kind == "max" else arith.MinSIOp
            program.add(op_type(a, draw(st.sampled_from([b, program.constant(c)]))))
        elif kind in ("div", "ceildiv"):
            # A positive constant, or max(x, 1) as Reshape's inference builds it.
            divisor = draw(
                st.sampled_from([program.constant(abs(c) + 1), program.add(arith.MaxSIOp(b, program.constant(1)))])
            )
            op_type = arith.DivSIOp if kind == "div" else arith.CeilDivSIOp
            program.add(op_type(a, divisor))
        else:
            condition = program.add(arith.CmpiOp(a, program.constant(c), "eq"))
            program.add(arith.SelectOp(condition, draw(pick), draw(pick)))
    return program


@settings(max_examples=300, deadline=None, database=None)
@given(programs(), st.data())
def test_every_fact_holds_at_run_time(program: Program, data: st.DataObject):
    bindings = dict(zip(program.extents, data.draw(st.tuples(EXTENT_VALUES, EXTENT_VALUES))))
    evaluator = HostIndexEvaluator(bindings)
    value = {v: evaluator.evaluate(v) for v in program.values}
    for v in program.values:
        low = index_facts.lower_bound(v)
        assert low is None or value[v] >= low
    for a in program.values:
        for b in program.values:
            k = index_facts.offset(a, b)
            assert k is None or value[b] == value[a] + k
            difference = index_facts.difference(a, b)
            if difference is not None:
                assert evaluator.evaluate(difference) == value[a] - value[b]
            if index_facts.at_most(a, b):
                assert value[a] <= value[b]
    for leaf, leaf_value in bindings.items():
        for v in program.values:
            known = index_facts.value_when(v, leaf, leaf_value)
            assert known is None or known == value[v]
    for op in {v.owner for v in program.values}:
        if isinstance(op, arith.SelectOp):
            folded = index_facts.select_fold(op.cond, op.lhs, op.rhs)
            assert folded is None or evaluator.evaluate(folded) == value[op.result]


def test_bounds_and_offsets_of_shifted_extents():
    program = new_program()
    batch, seq = program.extents
    one = program.constant(1)
    seq_plus_one = program.add(arith.AddiOp(seq, one))
    assert index_facts.lower_bound(seq) == 0 and index_facts.lower_bound(seq_plus_one) == 1
    assert index_facts.offset(seq, seq_plus_one) == 1 and index_facts.offset(seq_plus_one, seq) == -1
    assert index_facts.difference(seq_plus_one, one) is seq
    assert index_facts.at_most(1, seq_plus_one) and index_facts.at_most(seq, seq_plus_one)
    assert not index_facts.at_most(2, seq_plus_one) and not index_facts.at_most(batch, seq)
    # Nothing is claimed about a value that is not an extent.
    unknown = program.add(arith.SubiOp(batch, seq))
    assert index_facts.lower_bound(unknown) is None


def test_reshape_zero_copy_select_of_a_product_is_the_extent():
    """select(batch == 0, batch * 2 * seq * 32 / max(seq * 32, 1), batch) is batch."""
    program = new_program()
    batch, seq = program.extents
    zero, one, two, width = (program.constant(c) for c in (0, 1, 2, 32))
    numel = program.add(arith.MuliOp(program.add(arith.MuliOp(program.add(arith.MuliOp(batch, two)), seq)), width))
    known = program.add(arith.MaxSIOp(program.add(arith.MuliOp(seq, width)), one))
    inferred = program.add(arith.DivSIOp(numel, known))
    assert index_facts.value_when(inferred, batch, 0) == 0
    is_zero = program.add(arith.CmpiOp(batch, zero, "eq"))
    assert index_facts.select_fold(is_zero, inferred, batch) is batch
    # The same select on seq is not seq: seq == 0 copies the input's 2.
    seq_is_zero = program.add(arith.CmpiOp(seq, zero, "eq"))
    assert index_facts.select_fold(seq_is_zero, two, seq) is None
    assert index_facts.value_when(inferred, seq, 0) == 0  # no elements at all
