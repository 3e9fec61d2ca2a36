"""The Python API: `xhip.compile(model, pipeline=..., backend=...) -> Executable`.

    exe = xhip.compile("examples/attention.onnx")
    out = exe.run({"X": x})          # {"out": ndarray}
    exe.report                       # pool bytes, launches, readbacks, timings

The model may be an ONNX file or ModelProto, an .mlir file, or a module. The
pipeline is a YAML path, a parsed `Pipeline`, or None for pipelines/default.yaml;
`stop_after` ends it after the named pass (the IR of any stage runs).
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import onnx
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xhip.context import make_context
from xhip.diagnostics import XhipError, did_you_mean
from xhip.pass_runner import run_passes
from xhip.passes.externalize_constants import ExternalizeConstantsPass
from xhip.pipeline import Pipeline, instantiate, load_pipeline
from xhip.runtime.executable import Executable

DEFAULT_PIPELINE = Path(__file__).resolve().parent.parent / "pipelines" / "default.yaml"

ModelLike = str | os.PathLike[str] | onnx.ModelProto | ModuleOp


def load_module(model: ModelLike) -> ModuleOp:
    """The IR of `model`: imported from ONNX, parsed from MLIR text, or a clone of a module."""
    if isinstance(model, ModuleOp):
        return model.clone()
    if isinstance(model, onnx.ModelProto):
        from xhip.importer import import_model

        return import_model(model)
    path = os.fspath(model)
    if path.endswith(".mlir"):
        from xhip.parsing import parse_module
        from xhip.verify import verify_module

        try:
            text = Path(path).read_text()
        except OSError as err:
            raise XhipError(f"cannot read input: {err.strerror}", path) from None
        module = parse_module(make_context(), text, path)
        verify_module(module)
        return module
    from xhip.importer import import_model

    return import_model(path)


def pipeline_passes(pipeline: str | os.PathLike[str] | Pipeline | None, stop_after: str | None = None) -> list[ModulePass]:
    """The pass objects of a pipeline, cut after `stop_after` when given."""
    if pipeline is None:
        pipeline = DEFAULT_PIPELINE
    chosen = pipeline if isinstance(pipeline, Pipeline) else load_pipeline(pipeline)
    passes = instantiate(chosen)
    if stop_after is None:
        return passes
    names = [p.name for p in passes]
    if stop_after not in names:
        raise XhipError(f"--stop-after: pass '{stop_after}' is not in the pipeline{did_you_mean(stop_after, names)}")
    return passes[: names.index(stop_after) + 1]


def _with_constants_dir(passes: list[ModulePass], directory: str) -> list[ModulePass]:
    """Externalized constants go to `directory` unless the pipeline names a directory."""
    return [
        dataclasses.replace(p, externalize_output_dir=directory)
        if isinstance(p, ExternalizeConstantsPass) and not p.externalize_output_dir
        else p
        for p in passes
    ]


def _constants_dir(passes: list[ModulePass], fallback: str) -> str:
    for p in passes:
        if isinstance(p, ExternalizeConstantsPass) and p.externalize_output_dir:
            return p.externalize_output_dir
    return fallback


def compile_stages(
    model: ModelLike,
    pipeline: str | os.PathLike[str] | Pipeline | None = None,
    stop_after: str | None = None,
) -> Iterator[tuple[str, ModuleOp, str]]:
    """(pass name, IR after it, constants directory) for the imported IR and each pass.

    The imported stage is named "import". Each yielded module is the live IR;
    clone it to keep it past the next step.
    """
    workdir = tempfile.mkdtemp(prefix="xhip-constants-")
    passes = _with_constants_dir(pipeline_passes(pipeline, stop_after), workdir)
    constants_dir = _constants_dir(passes, workdir)
    ctx, module = make_context(), load_module(model)
    yield "import", module, constants_dir
    for module_pass in passes:
        run_passes(ctx, module, [module_pass])
        yield module_pass.name, module, constants_dir


def compile(
    model: ModelLike,
    pipeline: str | os.PathLike[str] | Pipeline | None = None,
    backend: str = "reference",
    stop_after: str | None = None,
    *,
    deferred: bool = False,
    sanitize: bool = False,
) -> Executable:
    """Import, run the pipeline (up to `stop_after`) and build an Executable."""
    start = time.perf_counter()
    module, constants_dir = None, None
    for _, module, constants_dir in compile_stages(model, pipeline, stop_after):
        pass
    assert module is not None
    executable = Executable(module, backend, deferred=deferred, sanitize=sanitize, constants_dir=constants_dir)
    executable.report.compile_s = time.perf_counter() - start
    return executable
