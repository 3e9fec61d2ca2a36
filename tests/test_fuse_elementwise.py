"""hip-fuse-elementwise end to end: fused chains against onnxruntime on the reference
backend (with the sanitizer), fewer launches and buffers than without fusion, and the
fused kernels' rendered source, emulated on the host, against the NumPy reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import xhip
from xhip.api import compile_stages
from xhip.dialects import hip
from xhip.runtime.check import compare, float64_outputs, onnxruntime_outputs
from xhip.kernels import emulate
from xhip.kernels.coverage import unique
from xhip.kernels.render import render, render_unit
from xhip.dialects.hip.properties import FusedStep
from xhip.kernels.families import specs_for_launch
from xhip.kernels.spec_types import Operand
from xhip.testing import kernel_specs
from xhip.testing.models import MODELS, graph_model, value
from xhip.testing.transformer_stack import transformer_stack_model
from tests.test_kernel_templates import _gpu_kernel_check, _reference_case, collect_launch_args

NO_FUSION = "pipelines/experiments/no-fusion.yaml"
UNFUSED_ATTENTION = "pipelines/experiments/unfused-attention.yaml"
"""Elementwise and softmax fusion on their own (the default also fuses attentions whole)."""
F32, F16, B1, I8, I64 = (np.dtype(t) for t in ("float32", "float16", "bool", "int8", "int64"))


def _final_ir_ops(model: onnx.ModelProto, pipeline=None) -> list[str]:
    *_, (_, module, _) = compile_stages(model, pipeline)
    return [op.name for op in module.walk() if isinstance(op, hip.DPSOp)]


def _final_ir_ops_and_steps(model: onnx.ModelProto, pipeline=None) -> list[str]:
    """The final IR's compute ops, with every fused chain's steps in place of the chain."""
    *_, (_, module, _) = compile_stages(model, pipeline)
    return [
        name
        for op in module.walk()
        if isinstance(op, hip.DPSOp)
        for name in ([step.op.data for step in op.steps] if isinstance(op, hip.FusedElementwiseOp) else [op.name])
    ]


def _run(model: onnx.ModelProto, feeds, pipeline=None, **options):
    exe = xhip.compile(model, pipeline, backend="reference", **options)
    outputs = exe.run(feeds)
    return outputs, exe.report


# ---- models against onnxruntime --------------------------------------------------------


def _formula_gelu_pipeline(tmp_path) -> str:
    """UNFUSED_ATTENTION without hip-fuse-gelu: GELU stays its formula's steps, which a
    fused chain runs kernel by kernel on the reference backend, as no-fusion does (hip.gelu
    evaluates the formula at once, so its bits differ)."""
    path = tmp_path / "formula-gelu.yaml"
    path.write_text(f"extends: {Path(UNFUSED_ATTENTION).resolve()}\nname: formula-gelu\nremove: [hip-fuse-gelu]\n")
    return str(path)


def _fused_and_unfused(model: onnx.ModelProto, feeds, fused_pipeline: str = UNFUSED_ATTENTION):
    """Both pipelines' outputs pass the check against onnxruntime (float64 run included)
    and agree bit for bit: the reference backend runs each step's own kernel, intermediates
    in their unfused dtypes. The fused run is sanitized."""
    expected, wide = onnxruntime_outputs(model, feeds), float64_outputs(model, feeds)
    fused, fused_report = _run(model, feeds, fused_pipeline, sanitize=True)
    unfused, unfused_report = _run(model, feeds, NO_FUSION)
    result = compare(fused, expected, wide)
    assert result.passed, result.problems
    for name, array in unfused.items():
        np.testing.assert_array_equal(fused[name], array)
    return fused, fused_report, unfused_report


def _gelu_fused_passes(model: onnx.ModelProto, feeds, layers: int) -> None:
    """Through the shipped fusions GELU is one hip.gelu per layer (an op, or a fused chain's
    step), and the outputs pass the check against onnxruntime (float64 run included)."""
    assert _final_ir_ops_and_steps(model).count("hip.gelu") == layers
    outputs, _ = _run(model, feeds, UNFUSED_ATTENTION)
    result = compare(outputs, onnxruntime_outputs(model, feeds), float64_outputs(model, feeds))
    assert result.passed, result.problems


@pytest.mark.parametrize("shape", [(1, 16), (2, 33)])
def test_transformer_stack_fuses_its_gelu_and_residuals(shape, tmp_path):
    """Each layer's erf GELU with its bias add is one kernel, each residual add with its
    bias add another; the numbers match onnxruntime with and without fusion (and under
    the sanitizer with it), with fewer launches and no more pool bytes."""
    model = transformer_stack_model(2)
    feeds = {"X": np.random.default_rng(3).standard_normal((*shape, 256)).astype(np.float32)}
    _gelu_fused_passes(model, feeds, layers=2)
    fused, fused_report, unfused_report = _fused_and_unfused(model, feeds, _formula_gelu_pipeline(tmp_path))
    # Per layer: the GELU (bias add + 5 ops) saves 5 launches, each residual add with its bias 1,
    # the attention scale folded into the softmax (hip-fuse-softmax, also off in no-fusion) 1.
    assert fused_report.kernel_launches == unfused_report.kernel_launches - 2 * 8
    assert fused_report.pool_bytes <= unfused_report.pool_bytes
    assert _final_ir_ops(model).count("hip.fused_elementwise") == 2 * 3


def test_gpt2_fuses_its_tanh_gelu(tmp_path):
    """GPT-2's tanh GELU (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))) is one fused op
    per layer, pow included, and one hip.gelu through the shipped fusions; numerics match
    onnxruntime."""
    model, feeds = MODELS["gpt2"](np.random.default_rng(0))
    _gelu_fused_passes(model, feeds, layers=2)
    fused, fused_report, unfused_report = _fused_and_unfused(model, feeds, _formula_gelu_pipeline(tmp_path))
    assert fused_report.kernel_launches < unfused_report.kernel_launches
    ops = _final_ir_ops(model)
    assert "hip.pow" not in ops and "hip.tanh" not in ops


_UNARY = ["Tanh", "Sigmoid", "Neg", "Abs", "Exp", "Relu"]
_BINARY = ["Add", "Sub", "Mul", "Max", "Min"]


def _random_chain(rng: np.random.Generator, length: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A chain of elementwise nodes on x [n, 6], each binary one taking a fresh operand
    of a broadcasting shape ([6], [n, 1], scalar) or an earlier value; a comparison with
    a Where, a Cast round trip and a Pow now and then."""
    nodes, inputs, feeds = [], [value("x", TensorProto.FLOAT, ["n", 6])], {"x": rng.standard_normal((4, 6)).astype(np.float32)}
    values = ["x"]
    for i in range(length):
        kind, last, out = rng.integers(0, 10), values[-1], f"v{i}"
        if kind < 3:
            nodes.append(helper.make_node(str(rng.choice(_UNARY)), [last], [out]))
        elif kind < 7:
            shape = [(6,), (4, 1), (), (4, 6)][int(rng.integers(0, 4))]
            name = f"w{i}"
            inputs.append(value(name, TensorProto.FLOAT, [{4: "n"}.get(d, d) for d in shape]))
            feeds[name] = rng.standard_normal(shape).astype(np.float32)
            other = name if rng.integers(0, 3) else str(rng.choice(values))
            nodes.append(helper.make_node(str(rng.choice(_BINARY)), [last, other], [out]))
        elif kind == 7:
            nodes += [helper.make_node("Less", [last, "x"], [f"c{i}"]), helper.make_node("Where", [f"c{i}", last, "x"], [out])]
        elif kind == 8:
            nodes += [helper.make_node("Cast", [last], [f"h{i}"], to=TensorProto.FLOAT16), helper.make_node("Cast", [f"h{i}"], [out], to=TensorProto.FLOAT)]
        else:
            nodes += [helper.make_node("Tanh", [last], [f"p{i}"]), helper.make_node("Pow", [f"p{i}", "x"], [out])]
        values.append(out)
    nodes.append(helper.make_node("Identity", [values[-1]], ["y"]))
    return graph_model(nodes, inputs, [value("y", TensorProto.FLOAT, None)]), feeds


@pytest.mark.parametrize("seed", range(8))
def test_random_chains_fuse_to_one_kernel_and_match_onnxruntime(seed):
    rng = np.random.default_rng(seed)
    model, feeds = _random_chain(rng, int(rng.integers(3, 9)))
    result = compare(_run(model, feeds, sanitize=True)[0], onnxruntime_outputs(model, feeds))
    assert result.passed, result.problems
    # Every node but the final copy into the output fuses: one chain, one kernel.
    assert [op for op in _final_ir_ops(model) if op != "hip.copy"] == ["hip.fused_elementwise"]


# ---- GPU kernels ---------------------------------------------------------------------------


def _fused_case(steps: tuple[FusedStep, ...], inputs: list[np.ndarray], out: np.ndarray) -> dict:
    return _reference_case("fused_elementwise", {"steps": steps}, inputs, [out])


def _fused_cases(rng) -> list[dict]:
    x = rng.standard_normal((3, 5, 4)).astype(np.float32)
    bias, half = rng.standard_normal((4,)).astype(np.float32), np.array(0.5, np.float32)
    erf_gelu = (
        FusedStep("hip.add", ("in0", "in1"), F32), FusedStep("hip.mul", ("t0", "in2"), F32), FusedStep("hip.erf", ("t1",), F32),
        FusedStep("hip.add", ("t2", "in3"), F32), FusedStep("hip.mul", ("t0", "in4"), F32), FusedStep("hip.mul", ("t4", "t3"), F32),
    )  # fmt: skip
    constants = [np.array(c, np.float32) for c in (0.70710677, 1.0, 0.5)]
    tanh_gelu = (
        FusedStep("hip.pow", ("in0", "in1"), F32), FusedStep("hip.mul", ("t0", "in2"), F32), FusedStep("hip.add", ("in0", "t1"), F32),
        FusedStep("hip.gelu", ("t2",), F32, (("approximate", "tanh"),)), FusedStep("hip.max", ("t3", "in0", "in2"), F32),
    )  # fmt: skip
    # Host emulation has no __half: f16 intermediates are rendered and compiled elsewhere.
    wide = np.clip(x * 30, -120, 120)
    typed = (
        FusedStep("hip.mul", ("in0", "in1"), F32), FusedStep("hip.less", ("t0", "in1"), B1),
        FusedStep("hip.where", ("t1", "t0", "in0"), F32), FusedStep("hip.cast", ("t2",), I8), FusedStep("hip.neg", ("t3",), I8),
        FusedStep("hip.cast", ("t4",), I64),
    )  # fmt: skip
    column = rng.standard_normal((5, 1)).astype(np.float32)
    return [
        _fused_case(erf_gelu, [x, bias, *constants], np.empty_like(x)),
        _fused_case(tanh_gelu, [x, np.array(3.0, np.float32), np.array(0.044715, np.float32)], np.empty_like(x)),
        _fused_case(typed, [wide, np.array(0.5, np.float32)], np.empty(x.shape, np.int64)),
        # Two inputs broadcast against each other at run time: [3, 1, 4] and [5, 1].
        _fused_case(erf_gelu[:2], [x[:, :1, :], column, half], np.empty_like(x)),
    ]


@pytest.mark.skipif(not emulate.available(), reason="g++ is not installed")
def test_emulated_fused_kernels_match_the_reference_kernel(rng=np.random.default_rng(5)):
    """Fused chains (erf and tanh GELU with a broadcast bias, f32 through i1 and a wrapping
    i8 to i64, run-time broadcasts), rendered, compiled for the CPU and run into poisoned
    outputs, both the launch's own specialization and the IR's general one."""
    check = _gpu_kernel_check()
    cases = _fused_cases(rng)
    for case in cases:
        chosen = []
        for known in (True, False):
            facts = [[Operand(a.dtype, a.shape if known else (None,) * a.ndim, True) for a in arrays] for arrays in (case["inputs"], case["outputs"])]
            chosen.append(specs_for_launch(case["op_class"], case["attributes"], *facts))
        case["specs"] = chosen
    specs = unique(s for case in cases for chosen in case["specs"] for s in chosen)
    device = check.HostDevice(render_unit(specs, "hip"), {s.name: s.abi for s in specs}, emulate)
    failing = [
        (number, known) for number, case in enumerate(cases) for known, chosen in enumerate(case["specs"])
        if not check.check_case(device, collect_launch_args(), case, [s.name for s in chosen])
    ]  # fmt: skip
    assert failing == []


def test_a_chain_is_one_kernel_named_by_its_ops_and_wiring():
    """Same ops, different wiring: two kernels, two names; intermediates are converted
    through their step's storage type (f16 here), the output only once."""
    x = Operand(F16, (None, 4), True)
    one = (FusedStep("hip.mul", ("in0", "in1"), F16), FusedStep("hip.sub", ("t0", "in1"), F16))
    other = (FusedStep("hip.mul", ("in0", "in1"), F16), FusedStep("hip.sub", ("in1", "t0"), F16))
    (first,), (second,) = (specs_for_launch(hip.FusedElementwiseOp, {"steps": s}, [x, x], [x]) for s in (one, other))
    assert first.name.startswith("xhip_ew_fused_") and "_mul_sub_f16_f16_f16_" in first.name
    assert first.name != second.name
    source = render(first).source
    assert "const auto t0 = (float)(__half)(in0_v * in1_v);" in source
    assert "const auto t1 = t0 - in1_v;" in source


def test_the_test_set_kernels_include_fused_chains():
    """What CI renders and compiles offline (benchmarks/compile_templates.py) covers the
    fused kernels the default pipeline produces."""
    assert any(spec.name.startswith("xhip_ew_fused_") for spec in kernel_specs.testset_specs())
