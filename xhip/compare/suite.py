"""What xhip-compare runs: models, the shapes each runs at, and the numerics tolerance.

A suite is a YAML file:

    tolerance: {rtol: 1.0e-4, atol: 1.0e-6}   # optional; default: xhip-run --check's
    seed: 0                                   # optional; seed of the random inputs
    models:
      - model: ../../examples/attention.onnx  # a path relative to this file
        shapes:
          - {batch: 1, seq: 128}              # dim parameters -> extents
          - {X: [4, 512, 64]}                 # or an input's whole shape
      - model: testset:gpt2                   # an entry of xhip.testing.models.MODELS
        shapes: [{input_ids: [2, 12]}]
      - model: other.onnx
        inputs: other.npz                     # one row, with these arrays as inputs

Every mistake is one line located at the YAML node (`FILE:LINE:COL`). The
command line's `--models M.onnx ... --shapes 'batch=1,seq=128;X=4x512x64'` builds
the same `Suite` (every model at every shape).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from xhip.diagnostics import XhipError, did_you_mean, shorten
from xhip.yaml_file import YamlFile

TESTSET_PREFIX = "testset:"
SUITE_KEYS = ("models", "tolerance", "seed")
MODEL_KEYS = ("model", "shapes", "inputs")
TOLERANCE_KEYS = ("rtol", "atol")

ShapeBinding = dict[str, int | tuple[int, ...]]
"""Dim parameter -> extent (an int), or input name -> its whole shape (a tuple)."""


@dataclass(frozen=True)
class Tolerance:
    rtol: float | None = None
    atol: float | None = None
    """None: the backend's own tolerance (xhip.runtime.check.tolerances)."""


@dataclass(frozen=True)
class SuiteModel:
    source: str
    """An .onnx path, or `testset:NAME`."""
    shapes: tuple[ShapeBinding, ...] = ()
    inputs: str | None = None
    """An .npz of input arrays (then the model has one row, at the arrays' shapes)."""

    @property
    def label(self) -> str:
        return self.source.removeprefix(TESTSET_PREFIX) if self.is_testset else Path(self.source).stem

    @property
    def is_testset(self) -> bool:
        return self.source.startswith(TESTSET_PREFIX)


@dataclass(frozen=True)
class Suite:
    models: tuple[SuiteModel, ...]
    tolerance: Tolerance = field(default_factory=Tolerance)
    seed: int = 0


def shape_label(binding: ShapeBinding) -> str:
    """`batch=1,seq=128` or `X=4x512x64`: the spelling of `--shapes` (`static` for no binding)."""
    if not binding:
        return "static"
    parts = []
    for name, extent in binding.items():
        parts.append(f"{name}={'x'.join(map(str, extent)) if isinstance(extent, tuple) else extent}")
    return ",".join(parts)


# --------------------------------------------------------------------------- command line


def parse_shapes(text: str) -> tuple[ShapeBinding, ...]:
    """`batch=1,seq=128;X=4x512x64`: shapes separated by `;`, bindings by `,`."""
    shapes = []
    for shape_text in text.split(";"):
        binding: ShapeBinding = {}
        for item in shape_text.split(","):
            name, sep, value = item.strip().partition("=")
            if not sep or not name:
                raise XhipError(f"--shapes: '{shorten(item)}' is not NAME=EXTENT or INPUT=D0xD1...")
            try:
                dims = tuple(int(d) for d in value.split("x")) if value else ()
            except ValueError:
                raise XhipError(f"--shapes: '{shorten(item)}': extents must be integers separated by 'x'") from None
            if any(d < 0 for d in dims):
                raise XhipError(f"--shapes: '{shorten(item)}': extents must not be negative")
            binding[name] = dims[0] if len(dims) == 1 and "x" not in value else dims
        shapes.append(binding)
    return tuple(shapes)


def suite_from_command_line(models: list[str], shapes: str | None) -> Suite:
    """Every model at every shape; without `--shapes`, a test-set model at its SHAPE_VARIANTS."""
    bindings = parse_shapes(shapes) if shapes else None
    for model in models:
        _check_model_path(model, None)
    return Suite(tuple(SuiteModel(model, bindings or _default_shapes(model)) for model in models))


def _default_shapes(source: str) -> tuple[ShapeBinding, ...]:
    if not source.startswith(TESTSET_PREFIX):
        return ({},)
    from xhip.testing.models import SHAPE_VARIANTS

    return tuple(dict(variant) for variant in SHAPE_VARIANTS[source.removeprefix(TESTSET_PREFIX)])


def _check_model_path(path: str, where: str | None) -> None:
    if path.startswith(TESTSET_PREFIX):
        _check_testset_name(path, where)
    elif not os.path.isfile(path):
        raise XhipError(f"no such model file '{shorten(path)}'", where)


def _check_testset_name(source: str, where: str | None) -> None:
    from xhip.testing.models import MODELS

    name = source.removeprefix(TESTSET_PREFIX)
    if name not in MODELS:
        hint = did_you_mean(name, MODELS) or f"; test-set models: {', '.join(MODELS)}"
        raise XhipError(f"'{shorten(source)}' is not a test-set model{hint}", where)


# --------------------------------------------------------------------------- YAML


class _SuiteFile(YamlFile):
    """One suite file, its nodes kept so every error names a line and column."""

    def __init__(self, path: str):
        super().__init__(path, "suite", with_column=True)

    def extent(self, node: yaml.Node, what: str) -> int:
        value = self.value(node) if isinstance(node, yaml.ScalarNode) else None
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise XhipError(f"{what} must be a non-negative integer", self.at(node))
        return value

    def number(self, node: yaml.Node, what: str) -> float:
        value = self.value(node) if isinstance(node, yaml.ScalarNode) else None
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
            raise XhipError(f"{what} must be a non-negative number", self.at(node))
        return float(value)

    def relative_path(self, node: yaml.Node, what: str) -> str:
        """A path written relative to the suite file, made usable from here."""
        text = self.string(node, what)
        if text.startswith(TESTSET_PREFIX):
            return text
        return os.path.normpath(os.path.join(os.path.dirname(self.path), text))


def _binding(doc: _SuiteFile, node: yaml.Node) -> ShapeBinding:
    binding: ShapeBinding = {}
    for name, (_, value) in doc.mapping(node, "a shape", None).items():
        if isinstance(value, yaml.SequenceNode):
            binding[name] = tuple(doc.extent(d, f"an extent of '{shorten(name)}'") for d in value.value)
        else:
            binding[name] = doc.extent(value, f"the extent of '{shorten(name)}' (or an input's shape, a list)")
    return binding


def _suite_model(doc: _SuiteFile, node: yaml.Node) -> SuiteModel:
    keys = doc.mapping(node, "a model entry", MODEL_KEYS)
    if "model" not in keys:
        raise XhipError("a model entry needs 'model' (a path or testset:NAME)", doc.at(node))
    model_node = keys["model"][1]
    source = doc.relative_path(model_node, "'model'")
    _check_model_path(source, doc.at(model_node))
    if "inputs" in keys and "shapes" in keys:
        raise XhipError("a model entry has 'shapes' or 'inputs', not both", doc.at(keys["inputs"][0]))
    if "inputs" in keys:
        inputs_node = keys["inputs"][1]
        inputs = doc.relative_path(inputs_node, "'inputs'")
        if not os.path.isfile(inputs):
            raise XhipError(f"no such inputs file '{shorten(inputs)}'", doc.at(inputs_node))
        return SuiteModel(source, (), inputs)
    if "shapes" not in keys:
        raise XhipError("a model entry needs 'shapes' (a list of shapes) or 'inputs' (an .npz)", doc.at(node))
    shapes = tuple(_binding(doc, n) for n in doc.sequence(keys["shapes"][1], "'shapes'"))
    if not shapes:
        raise XhipError("'shapes' must list at least one shape", doc.at(keys["shapes"][1]))
    return SuiteModel(source, shapes)


def _tolerance(doc: _SuiteFile, node: yaml.Node) -> Tolerance:
    keys = doc.mapping(node, "'tolerance'", TOLERANCE_KEYS)
    given = {key: doc.number(value, f"'{key}'") for key, (_, value) in keys.items()}
    return Tolerance(**given)


def load_suite(path: str) -> Suite:
    """The suite in `path`, checked (model files exist, test-set names are known)."""
    doc = _SuiteFile(path)
    keys = doc.mapping(doc.root, "suite", SUITE_KEYS)
    if "models" not in keys:
        raise XhipError("a suite needs 'models' (a list of model entries)", doc.at(doc.root))
    models = tuple(_suite_model(doc, n) for n in doc.sequence(keys["models"][1], "'models'"))
    if not models:
        raise XhipError("'models' must list at least one model", doc.at(keys["models"][1]))
    tolerance = _tolerance(doc, keys["tolerance"][1]) if "tolerance" in keys else Tolerance()
    seed = doc.extent(keys["seed"][1], "'seed'") if "seed" in keys else 0
    return Suite(models, tolerance, seed)
