"""The Python API: `xhip.compile(model, pipeline=..., backend=...) -> Executable`.

    exe = xhip.compile("examples/attention.onnx")
    out = exe.run({"X": x})          # {"out": ndarray}
    exe.report                       # pool bytes, launches, readbacks, timings

The model may be an ONNX file or ModelProto, an .mlir file, or a module. The
pipeline is a YAML path, the name of a shipped pipeline ("default", "seed-003"),
a parsed `Pipeline`, or None for the default one; `stop_after` ends it after the
named pass (the IR of any stage runs).

Externalized constants stay in memory (nothing is written, nothing is left in a
temp folder); an .mlir model's constants file is read from beside it, checked
against the size and SHA-256 its IR records (see `xhip.constants_file`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import onnx
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xhip.constants_file import ConstantsStore
from xhip.context import make_context
from xhip.diagnostics import XhipError, check_not_directory, did_you_mean
from xhip.pass_runner import PassRunner
from xhip.passes.externalize_constants import storing_constants_into
from xhip.pipeline import Pipeline, instantiate, load_pipeline
from xhip.runtime.executable import Executable
from xhip.shipped import default_pipeline, resolve_pipeline

DEFAULT_PIPELINE = default_pipeline()

ModelLike = str | os.PathLike[str] | onnx.ModelProto | ModuleOp
PipelineLike = str | os.PathLike[str] | Pipeline | None


def load_module(model: ModelLike) -> ModuleOp:
    """The IR of `model`: imported from ONNX, parsed from MLIR text, or a clone of a module."""
    if isinstance(model, ModuleOp):
        return model.clone()
    if isinstance(model, onnx.ModelProto):
        from xhip.importer import import_model

        return import_model(model)
    path = os.fspath(model)
    check_not_directory(path)
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


def load_pipeline_like(pipeline: PipelineLike) -> Pipeline:
    """A parsed pipeline from a path, a shipped pipeline's name, or None (the default)."""
    if isinstance(pipeline, Pipeline):
        return pipeline
    return load_pipeline(DEFAULT_PIPELINE if pipeline is None else resolve_pipeline(pipeline))


def pipeline_passes(pipeline: PipelineLike, stop_after: str | None = None) -> list[ModulePass]:
    """The pass objects of a pipeline, cut after `stop_after` when given."""
    chosen = load_pipeline_like(pipeline)
    passes = instantiate(chosen)
    if stop_after is None:
        return passes
    names = [p.name for p in passes]
    if stop_after not in names:
        raise XhipError(f"--stop-after: pass '{stop_after}' is not in the pipeline{did_you_mean(stop_after, names)}")
    return passes[: names.index(stop_after) + 1]


def constants_store_for(model: ModelLike) -> ConstantsStore:
    """An in-memory store; an .mlir model's own constants file is found beside it."""
    if isinstance(model, (str, os.PathLike)):
        return ConstantsStore(directory=Path(os.fspath(model)).parent)
    return ConstantsStore()


def compile_stages(
    model: ModelLike,
    pipeline: PipelineLike = None,
    stop_after: str | None = None,
    *,
    verify_each: bool = False,
) -> Iterator[tuple[str, ModuleOp, ConstantsStore]]:
    """(pass name, IR after it, constants store) for the imported IR and each pass.

    The imported stage is named "import". Each yielded module is the live IR;
    clone it to keep it past the next step. `Executable(module, constants=store)`
    runs any stage. `verify_each` verifies the whole module after every pass
    (default: the ops each pass changed, and the whole module after the last).
    """
    store = constants_store_for(model)
    passes = storing_constants_into(pipeline_passes(pipeline, stop_after), store)
    ctx, module = make_context(), load_module(model)
    runner = PassRunner(ctx, verify_each=verify_each)
    yield "import", module, store
    for index, module_pass in enumerate(passes):
        runner.run(module, [module_pass])
        if index == len(passes) - 1:
            runner.finish(module)
        yield module_pass.name, module, store


def compile(
    model: ModelLike,
    pipeline: PipelineLike = None,
    backend: str = "auto",
    stop_after: str | None = None,
    *,
    deferred: bool = False,
    sanitize: bool = False,
    max_device_bytes: int | None = None,
    verify_each: bool = False,
    graphs: bool | None = None,
    trace_ahead: bool | None = None,
) -> Executable:
    """Import, run the pipeline (up to `stop_after`) and build an Executable.

    `backend` "auto" runs on a usable GPU (cuda, then hip), else on the reference
    backend; `max_device_bytes` caps every allocation of a run (see Executable);
    `verify_each` verifies the whole module after every pass (see compile_stages);
    `graphs` replays repeated input shapes from a captured graph, and runs new shapes
    through graphs captured at other shapes with their changed nodes updated (default: on
    a GPU; see xhip.runtime.replay and xhip.runtime.backends.gpu.graph_updates);
    `trace_ahead` traces the launch program's common classes of shapes now, so that a
    first run at a new shape runs traced (default: on a GPU; see Executable).
    """
    start = time.perf_counter()
    module, store = None, None
    for _, module, store in compile_stages(model, pipeline, stop_after, verify_each=verify_each):
        pass
    assert module is not None
    executable = Executable(
        module, backend, deferred=deferred, sanitize=sanitize, constants=store, max_device_bytes=max_device_bytes,
        graphs=graphs, trace_ahead=trace_ahead,
    )
    executable.report.compile_s = time.perf_counter() - start
    return executable
