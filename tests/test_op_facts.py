"""Each elementwise op's facts are written once: on its onnx op class and its hip op class.

The converter's tables (ONNX name -> hip op), the reference kernels (NumPy expressions),
the GPU kernels (C expressions) and both dialects' op lists are derived from the classes
in xhip/dialects/onnx/ops.py and xhip/dialects/hip/compute.py. The first test proves it
the honest way: it copies the package, adds Softplus to exactly those two files, and
runs the copy end to end in a fresh interpreter (import, convert, reference run against
onnxruntime, GPU kernel render, and compile where nvcc or hipcc is on PATH).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from xdsl.irdl import IRDLOperation

from xhip.dialects import hip, onnx
from xhip.dialects.hip import compute, linalg, movement
from xhip.dialects.onnx import ops as onnx_ops
from xhip.kernels.compilers import offline_compilers

REPO = Path(__file__).resolve().parents[1]

ONNX_SOFTPLUS = '''

@irdl_op_definition
class SoftplusOp(UnaryOp):
    name = "onnx.Softplus"
'''

HIP_SOFTPLUS = '''

@irdl_op_definition
class SoftplusOp(UnaryElementwiseOp):
    name = "hip.softplus"
    C_EXPR: ClassVar[str | None] = "log1p(exp({a}))"
    ONNX: ClassVar[str | None] = "onnx.Softplus"
    REFERENCE: ClassVar[str | None] = "np.log1p(np.exp(a))"
'''

CHECK_SOFTPLUS = textwrap.dedent('''
    import numpy as np
    from onnx import TensorProto, helper

    from xhip.api import compile_stages
    from xhip.dialects import hip
    from xhip.runtime.check import compare, onnxruntime_outputs
    from xhip.runtime.executable import Executable
    from xhip.kernels.compilers import offline_compilers
    from xhip.kernels.render import render
    from xhip.kernels.families import specs_for_launch
    from xhip.kernels.spec_types import Operand

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 5])
    graph = helper.make_graph([helper.make_node("Softplus", ["x"], ["y"])], "softplus", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    *_, (_, module, constants) = compile_stages(model, None)
    assert any(op.name == "hip.softplus" for op in module.walk()), "not converted to hip.softplus"
    feeds = {"x": np.random.default_rng(0).normal(size=(3, 5)).astype(np.float32) * 4}
    result = compare(Executable(module, constants=constants).run(feeds), onnxruntime_outputs(model, feeds))
    assert result.passed, result.problems
    f32 = np.dtype("float32")
    (spec,) = specs_for_launch(hip.SoftplusOp, {}, [Operand(f32, (None, 5), True)], [Operand(f32, (None, 5), True)])
    source = render(spec).source_for("cuda")
    assert "log1p(exp(" in source, source
    for compiler in offline_compilers():
        if compiler.available:
            compiler.compile(render(spec).source_for(compiler.kind))
            print("compiled with", compiler.tool)
    print("softplus ok")
''')


def _tree_with_softplus(root: Path) -> Path:
    """A copy of the package with Softplus added to the two dialect modules, and nothing else."""
    shutil.copytree(REPO / "xhip", root / "xhip", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("templates", "pipelines"):
        (root / folder).symlink_to(REPO / folder)
    _add_op(root / "xhip/dialects/onnx/ops.py", ONNX_SOFTPLUS, "OPERATORS: tuple[type[OnnxOp], ...] = (")
    _add_op(root / "xhip/dialects/hip/compute.py", HIP_SOFTPLUS, "COMPUTE_OPS: tuple[type[DPSOp], ...] = (")
    return root


def _add_op(module: Path, op_class: str, op_list: str) -> None:
    """What a new op takes in its module: the class, its entry in the op list, and its name in
    the module's `__all__` (spelled out for type checkers: see test_every_op_is_exported)."""
    text = module.read_text()
    assert text.count(op_list) == 1, f"{module}: no op list {op_list!r}"
    assert text.count("\n__all__ = [\n") == 1, f"{module}: no __all__ list"
    text = text.replace(f"\n\n{op_list}", f"{op_class}\n\n{op_list}\n    SoftplusOp,")
    text = text.replace("\n__all__ = [\n", '\n__all__ = [\n    "SoftplusOp",\n')
    module.write_text(text)


def test_every_op_is_exported():
    """Each dialect module's `__all__` names every op of its op list (the package re-exports
    the ops through it, statically, so that mypy sees them)."""
    from xhip.dialects import onnx as onnx_dialect
    from xhip.dialects.hip import compute
    from xhip.dialects.onnx import ops

    assert {op.__name__ for op in compute.COMPUTE_OPS} <= set(compute.__all__)
    assert {op.__name__ for op in ops.OPERATORS} <= set(ops.__all__)
    assert all(hasattr(hip, op.__name__) for op in compute.COMPUTE_OPS)
    assert all(hasattr(onnx_dialect, op.__name__) for op in ops.OPERATORS)


def test_a_new_unary_op_is_two_edits_in_two_files(tmp_path):
    tree = _tree_with_softplus(tmp_path)
    changed = [
        str(path.relative_to(tree))
        for path in sorted((tree / "xhip").rglob("*.py"))
        if path.read_bytes() != (REPO / path.relative_to(tree)).read_bytes()
    ]
    assert changed == ["xhip/dialects/hip/compute.py", "xhip/dialects/onnx/ops.py"]
    run = subprocess.run(
        [sys.executable, "-c", CHECK_SOFTPLUS],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    assert "softplus ok" in run.stdout
    for compiler in offline_compilers():
        assert (f"compiled with {compiler.tool}" in run.stdout) == compiler.available


def _elementwise_facts() -> list[type]:
    """The hip ops whose tables are derived: one-to-one ONNX ops and REFERENCE expressions."""
    return [op for op in hip.COMPUTE_OPS if getattr(op, "ONNX", None) or getattr(op, "REFERENCE", None)]


DERIVED_TABLE_MODULES = [
    REPO / "xhip/rewrite_rules/onnx_to_hip/elementwise.py",
    # The kernel families (each registers its reference kernels); coverage.py picks example ops on purpose.
    *sorted(path for path in (REPO / "xhip/kernels").glob("*.py") if path.name != "coverage.py"),
]


def _names_of(op: type) -> list[str]:
    """How a table would spell the op: its hip class, its ONNX name (as a table key or a
    `converts` argument), its kernel's registration. An op without a REFERENCE expression
    has its reference kernel written out, which registers under its class (`@register(hip.PowOp`)."""
    if getattr(op, "REFERENCE", None):
        names = [rf"\bhip\.{op.__name__}\b", rf"""register\(\s*["']{op.name.removeprefix("hip.")}["']"""]
    else:
        names = [rf"(?<!@register\()\bhip\.{op.__name__}\b"]
    if getattr(op, "ONNX", None):
        onnx_name = op.ONNX.removeprefix("onnx.")
        names += [rf"""["']onnx\.{onnx_name}["']""", rf"""converts\([^)]*["']{onnx_name}["']"""]
    return names


def test_no_table_outside_the_dialects_names_an_elementwise_op():
    found = []
    for module in DERIVED_TABLE_MODULES:
        text = module.read_text()
        for op in _elementwise_facts():
            found += [f"{module.relative_to(REPO)}: {op.name} as {m.group(0)}" for p in _names_of(op) for m in re.finditer(p, text)]
    assert found == []


def _ops_defined_in(module: object) -> set[type]:
    return {
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, IRDLOperation) and value.__module__ == module.__name__  # type: ignore[attr-defined]
        and "name" in vars(value)
    }


def test_every_op_class_is_in_its_dialect_list():
    """The op lists beside the ops hold every op the modules define (none forgotten)."""
    assert _ops_defined_in(compute) | _ops_defined_in(linalg) | _ops_defined_in(movement) == set(compute.COMPUTE_OPS)
    assert _ops_defined_in(onnx_ops) == {*onnx_ops.OPERATORS, onnx.NoValueOp, onnx.EntryPointOp}
    assert set(compute.COMPUTE_OPS) <= set(hip.HIP.operations)
    assert all(getattr(hip, op.__name__) is op for op in compute.COMPUTE_OPS)
    assert all(getattr(onnx, op.__name__) is op for op in onnx_ops.OPERATORS)


def test_converter_tables_match_the_onnx_dialect():
    """Every hip op's ONNX name is an op the onnx dialect models."""
    from xhip.rewrite_rules.onnx_to_hip.elementwise import BINARY, COMPARISONS, UNARY

    for name in (*UNARY, *BINARY, *COMPARISONS):
        assert name.removeprefix("onnx.") in onnx.ONNX_OPS, name
