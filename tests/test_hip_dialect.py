"""The hip dialect in-process: memory effects, what CSE/DCE may do, the builder API.

The textual syntax and every verifier message are covered by tests/filecheck/hip/.
"""

from __future__ import annotations

import pytest
from helpers import parse_verified
from xdsl.dialects.builtin import DenseArrayBase, MemRefType, ModuleOp, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import MemoryEffect, MemoryEffectKind, get_effects
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.dialects import hip
from xhip.parsing import parse_module

READ, WRITE, ALLOC, FREE = (
    MemoryEffectKind.READ,
    MemoryEffectKind.WRITE,
    MemoryEffectKind.ALLOC,
    MemoryEffectKind.FREE,
)


def ops_named(module: ModuleOp, name: str) -> list[Operation]:
    return [op for op in module.walk() if op.name == name]


def only(module: ModuleOp, name: str) -> Operation:
    (op,) = ops_named(module, name)
    return op


def effects(op: Operation) -> set[tuple[MemoryEffectKind, SSAValue | None]]:
    found = get_effects(op)
    assert found is not None, f"{op.name} has unknown effects"
    return {(e.kind, e.value) for e in found}


def run_pass(module: ModuleOp, pass_type: type[ModulePass]) -> None:
    pass_type().apply(make_context(), module)
    module.verify()


INFRA = """
func.func @f(%ctx: !hip.context, %n: index, %i: i64, %cnt: memref<i32>, %t: tensor<i64>) {
  %a = hip.alloc(%ctx, %n) : memref<?xf32>
  hip.free(%ctx, %a) : memref<?xf32>
  %pool = hip.get_pool(%ctx, %n) {domain_id = 1 : i64} : memref<?xi8>
  %scratch = hip.get_host_scratch(%ctx, %n) : memref<?xi8>
  %out = hip.alloc_output(%ctx, %n) {out_idx = 0 : i64} : memref<?xf32>
  %k = hip.get_constant(%ctx, %i) : memref<4xf32>
  %v = hip.readback_scalar(%ctx, %cnt) : memref<i32> -> i32
  %d = hip.readback_dim(%ctx, %cnt) : memref<i32> -> index
  %vt = hip.readback_scalar(%ctx, %t) : tensor<i64> -> index
  func.return
}
"""


class TestInfrastructureEffects:
    module = parse_verified(INFRA)

    def test_allocations_allocate_their_result(self):
        for name in ("hip.alloc", "hip.get_pool", "hip.get_host_scratch"):
            op = only(self.module, name)
            assert effects(op) == {(ALLOC, op.results[0])}, name

    def test_free_frees_its_memref(self):
        op = only(self.module, "hip.free")
        assert effects(op) == {(FREE, op.operands[1])}

    def test_alloc_output_only_writes(self):
        op = only(self.module, "hip.alloc_output")
        assert effects(op) == {(WRITE, op.results[0])}

    def test_constants_are_read(self):
        op = only(self.module, "hip.get_constant")
        assert effects(op) == {(READ, op.results[0])}

    def test_readbacks_read_their_memref_source(self):
        readbacks = [op for op in self.module.walk() if op.name.startswith("hip.readback_")]
        memref_readbacks = [op for op in readbacks if isinstance(op.operands[1].type, MemRefType)]
        assert len(memref_readbacks) == 2
        for op in memref_readbacks:
            assert effects(op) == {(READ, op.operands[1])}, op.name

    def test_tensor_readback_has_no_memory_effect(self):
        readbacks = ops_named(self.module, "hip.readback_scalar")
        (op,) = [op for op in readbacks if isinstance(op.operands[1].type, TensorType)]
        assert effects(op) == set()


def test_every_op_has_known_effects_and_compute_ops_name_a_shape_rule():
    for op_type in hip.HIP.operations:
        assert op_type.get_traits_of_type(MemoryEffect), op_type.name
        if issubclass(op_type, hip.DPSOp):
            assert isinstance(op_type.SHAPE_RULE, hip.ShapeRule), op_type.name


COMPUTE = """
func.func @f(%ctx: !hip.context, %a: memref<?x4xf32>, %b: memref<4xf32>, %o: memref<?x4xf32>,
             %ta: tensor<?x4xf32>, %tb: tensor<4xf32>, %ti: tensor<?x4xf32>) {
  hip.add(%ctx) ins(%a, %b : memref<?x4xf32>, memref<4xf32>) outs(%o : memref<?x4xf32>)
  %r = hip.add(%ctx) ins(%ta, %tb : tensor<?x4xf32>, tensor<4xf32>) outs(%ti : tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return
}
"""


def test_memref_mode_reads_ins_and_writes_outs_per_value():
    memref_add, tensor_add = ops_named(parse_verified(COMPUTE), "hip.add")
    a, b, o = memref_add.operands[1:]
    assert effects(memref_add) == {(READ, a), (READ, b), (WRITE, o)}
    assert effects(tensor_add) == set()


def test_in_place_memref_op_reads_and_writes_the_same_buffer():
    module = parse_verified("""
func.func @f(%ctx: !hip.context, %x: memref<8xf32>) {
  hip.exp(%ctx) ins(%x : memref<8xf32>) outs(%x : memref<8xf32>)
  func.return
}""")
    op = only(module, "hip.exp")
    x = op.operands[1]
    assert effects(op) == {(READ, x), (WRITE, x)}


def test_cse_never_merges_output_allocations():
    module = parse_verified("""
func.func @f(%ctx: !hip.context, %n: index) -> (memref<?xf32>, memref<?xf32>) {
  %o0 = hip.alloc_output(%ctx, %n) {out_idx = 0 : i64} : memref<?xf32>
  %o1 = hip.alloc_output(%ctx, %n) {out_idx = 0 : i64} : memref<?xf32>
  func.return %o0, %o1 : memref<?xf32>, memref<?xf32>
}""")
    run_pass(module, CommonSubexpressionElimination)
    assert len(ops_named(module, "hip.alloc_output")) == 2


def test_cse_never_merges_allocations_but_merges_pure_tensor_ops_and_constant_reads():
    module = parse_verified("""
func.func @f(%ctx: !hip.context, %n: index, %i: i64, %x: tensor<4xf32>)
    -> (memref<?xi8>, memref<?xi8>, memref<?xf32>, memref<?xf32>, memref<4xf32>, memref<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %p0 = hip.get_pool(%ctx, %n) : memref<?xi8>
  %p1 = hip.get_pool(%ctx, %n) : memref<?xi8>
  %a0 = hip.alloc(%ctx, %n) : memref<?xf32>
  %a1 = hip.alloc(%ctx, %n) : memref<?xf32>
  %k0 = hip.get_constant(%ctx, %i) : memref<4xf32>
  %k1 = hip.get_constant(%ctx, %i) : memref<4xf32>
  %e0 = hip.exp(%ctx) ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  %e1 = hip.exp(%ctx) ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  func.return %p0, %p1, %a0, %a1, %k0, %k1, %e0, %e1 : memref<?xi8>, memref<?xi8>, memref<?xf32>, memref<?xf32>, memref<4xf32>, memref<4xf32>, tensor<4xf32>, tensor<4xf32>
}""")
    run_pass(module, CommonSubexpressionElimination)
    assert len(ops_named(module, "hip.get_pool")) == 2
    assert len(ops_named(module, "hip.alloc")) == 2
    assert len(ops_named(module, "hip.get_constant")) == 1
    assert len(ops_named(module, "hip.exp")) == 1


def test_cse_does_not_merge_readbacks_across_a_device_write():
    module = parse_verified("""
func.func @f(%ctx: !hip.context, %cnt: memref<i32>, %src: memref<i32>) -> (index, index) {
  %d0 = hip.readback_dim(%ctx, %cnt) : memref<i32> -> index
  hip.copy(%ctx) ins(%src : memref<i32>) outs(%cnt : memref<i32>)
  %d1 = hip.readback_dim(%ctx, %cnt) : memref<i32> -> index
  func.return %d0, %d1 : index, index
}""")
    run_pass(module, CommonSubexpressionElimination)
    assert len(ops_named(module, "hip.readback_dim")) == 2


def test_dce_keeps_memref_writes_whose_outs_are_used_later():
    module = parse_verified("""
func.func @f(%ctx: !hip.context, %n: index, %x: memref<?xf32>) {
  %pool = hip.get_pool(%ctx, %n) : memref<?xi8>
  %c0 = arith.constant 0 : index
  %tmp = memref.view %pool[%c0][%n] : memref<?xi8> to memref<?xf32>
  %out = hip.alloc_output(%ctx, %n) {out_idx = 0 : i64} : memref<?xf32>
  hip.exp(%ctx) ins(%x : memref<?xf32>) outs(%tmp : memref<?xf32>)
  hip.relu(%ctx) ins(%tmp : memref<?xf32>) outs(%out : memref<?xf32>)
  func.return
}""")
    run_pass(module, DeadCodeElimination)
    assert len(ops_named(module, "hip.exp")) == 1
    assert len(ops_named(module, "hip.relu")) == 1
    assert len(ops_named(module, "hip.get_pool")) == 1
    assert len(ops_named(module, "hip.alloc_output")) == 1


def test_dce_removes_unused_tensor_ops_allocations_and_reads_but_not_outputs():
    module = parse_verified("""
func.func @f(%ctx: !hip.context, %n: index, %i: i64, %x: tensor<4xf32>, %cnt: memref<i32>) -> tensor<4xf32> {
  %unused = hip.exp(%ctx) ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  %used = hip.relu(%ctx) ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  %a = hip.alloc(%ctx, %n) : memref<?xf32>
  %p = hip.get_pool(%ctx, %n) : memref<?xi8>
  %s = hip.get_host_scratch(%ctx, %n) : memref<?xi8>
  %k = hip.get_constant(%ctx, %i) : memref<4xf32>
  %d = hip.readback_dim(%ctx, %cnt) : memref<i32> -> index
  %o = hip.alloc_output(%ctx, %n) {out_idx = 0 : i64} : memref<?xf32>
  func.return %used : tensor<4xf32>
}""")
    run_pass(module, DeadCodeElimination)
    remaining = [op.name for op in module.walk() if op.name.startswith("hip.")]
    assert remaining == ["hip.relu", "hip.alloc_output"]


class Builder:
    """A fresh function to insert built ops into: passes build ops in memory, and the
    constructors must give ops that verify."""

    def __init__(self):
        module = parse_verified("""
func.func @f(%ctx: !hip.context, %n: index, %t: tensor<?x4xf32>, %m: memref<?x4xf32>, %v: f32) {
  func.return
}""")
        self.block = only(module, "func.func").regions[0].blocks[0]
        self.ctx, self.n, self.t, self.m, self.v = self.block.args

    def add(self, op: Operation) -> Operation:
        assert self.block.last_op is not None
        self.block.insert_op_before(op, self.block.last_op)
        op.verify()
        return op


@pytest.fixture
def b() -> Builder:
    return Builder()


def test_tensor_mode_results_follow_inits(b: Builder):
    op = b.add(hip.AddOp(b.ctx, [b.t, b.t], [b.t]))
    assert isinstance(op, hip.DPSOp) and op.is_tensor_mode
    assert [r.type for r in op.results] == [b.t.type]


def test_memref_mode_has_no_results(b: Builder):
    perm = DenseArrayBase.from_list(i64, [0, 1])
    op = b.add(hip.TransposeOp(b.ctx, [b.m], [b.m], properties={"perm": perm}))
    assert isinstance(op, hip.DPSOp) and not op.is_tensor_mode and not op.results


def test_scalars_and_slice_accessors(b: Builder):
    op = b.add(hip.SliceOp(b.ctx, [b.m], [b.m], scalars=[b.n, b.n, b.n, b.n]))
    assert isinstance(op, hip.SliceOp)
    assert list(op.starts) == [b.n, b.n] and list(op.steps) == [b.n, b.n]
    b.add(hip.FillOp(b.ctx, [], [b.m], scalars=[b.v]))


def test_infrastructure_builders(b: Builder):
    alloc = b.add(hip.AllocOp(b.ctx, b.m.type, [b.n]))
    b.add(hip.FreeOp(b.ctx, alloc.results[0]))
    pool = b.add(hip.GetPoolOp(b.ctx, b.n, domain_id=3))
    assert pool.results[0].type == hip.BYTE_BUFFER
    b.add(hip.GetHostScratchOp(b.ctx, b.n))
    out = b.add(hip.AllocOutputOp(b.ctx, b.m.type, 2, [b.n]))
    assert isinstance(out, hip.AllocOutputOp) and out.out_idx.value.data == 2


def test_verifier_errors_are_one_line(b: Builder):
    with pytest.raises(XhipError) as info:
        b.add(hip.AllocOp(b.ctx, b.m.type, []))
    message = str(info.value)
    assert "\n" not in message
    assert "'hip.alloc' op expected 1 dynamic size operand(s) for memref<?x4xf32>, got 0" in message


def test_verifier_error_names_the_source_line():
    text = """func.func @f(%ctx: !hip.context, %x: memref<2x3xf32>, %y: memref<3x2xf32>) {
  hip.transpose(%ctx) ins(%x : memref<2x3xf32>) outs(%y : memref<3x2xf32>) {perm = array<i64: 1, 1>}
  func.return
}"""
    module = parse_module(make_context(), text, "model.mlir")
    expected = r"^model\.mlir:2:3: error: 'hip\.transpose' op perm \[1, 1\] is not a permutation"
    with pytest.raises(XhipError, match=expected):
        module.verify()

