"""xhip.pipeline: YAML pipelines, `-p` specs, `--set` overrides, instantiation.

The pass classes below are test-only stand-ins with every option type a pass
may declare; they sit next to the real registry (canonicalize, cse, dce,
hip-add-context-arg) in `REGISTRY`, which the tests hand to the loader.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass, PassPipeline

from xhip.diagnostics import XhipError
from xhip.dialects.hip import ContextType
from xhip.passes import available_passes
from xhip.pipeline import (
    PassEntry,
    Pipeline,
    apply_overrides,
    describe_passes,
    instantiate,
    load_pipeline,
    parse_pass_spec,
)

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class PoolAllocsStandIn(ModulePass):
    """Plan transient buffers into runtime pools (test stand-in).

    This second paragraph must not reach --list-passes.
    """

    name = "hip-pool-allocs"

    alignment: int = 256
    lifetime_only: bool = True
    planner: str = "tree"
    growth: float = 1.5
    tile_sizes: tuple[int, ...] = (1, 2)
    budget: int | None = None

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        pass


@dataclass(frozen=True)
class HostVisibilityStandIn(ModulePass):
    """Lower host reads of device data (test stand-in)."""

    name = "hip-lower-host-visibility"

    strategy: Literal["readback", "strict", "event"] = "readback"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        pass


@dataclass(frozen=True)
class NeedsFactorStandIn(ModulePass):
    """A pass with a required option whose __post_init__ checks it."""

    name = "test-needs-factor"

    factor: int

    def __post_init__(self) -> None:
        if self.factor <= 0:
            raise ValueError(f"factor must be positive, got {self.factor}")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        pass


REGISTRY: dict[str, type[ModulePass]] = {
    **available_passes(),
    **{p.name: p for p in (PoolAllocsStandIn, HostVisibilityStandIn, NeedsFactorStandIn)},
}

BASE = """\
name: base
description: the base pipeline
passes:
  - hip-add-context-arg
  - canonicalize
  - hip-pool-allocs: {alignment: 512, growth: 2, tile-sizes: [4, 8]}
  - cse
  - hip-lower-host-visibility
"""


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return str(path)


def load(path: str) -> Pipeline:
    return load_pipeline(path, passes=REGISTRY)


def names(pipeline: Pipeline) -> list[str]:
    return [entry.name for entry in pipeline.passes]


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(XhipError) as info:
        call(*args, **kwargs)
    text = str(info.value)
    assert "\n" not in text
    return text


# --------------------------------------------------------------------------- loading


def test_base_pipeline_keeps_order_options_and_lines(tmp_path: Path):
    path = write(tmp_path, "base.yaml", BASE)
    pipeline = load(path)
    assert (pipeline.name, pipeline.description, pipeline.path) == ("base", "the base pipeline", path)
    assert names(pipeline) == ["hip-add-context-arg", "canonicalize", "hip-pool-allocs", "cse", "hip-lower-host-visibility"]
    pool = pipeline.passes[2]
    assert pool.options == {"alignment": 512, "growth": 2.0, "tile-sizes": (4, 8)}
    assert type(pool.options["growth"]) is float
    assert [entry.source for entry in pipeline.passes] == [f"{path}:{line}" for line in (4, 5, 6, 7, 8)]


def test_yaml_values_follow_yaml_1_2(tmp_path: Path):
    path = write(
        tmp_path,
        "p.yaml",
        """\
        name: p
        passes:
          - hip-pool-allocs: {growth: 1e-5, planner: no, tile-sizes: 3, budget: null, lifetime-only: false}
        """,
    )
    options = load(path).passes[0].options
    assert options == {"growth": 1e-5, "planner": "no", "tile-sizes": (3,), "budget": None, "lifetime-only": False}


def test_pass_written_with_null_options(tmp_path: Path):
    path = write(tmp_path, "p.yaml", "name: p\npasses:\n  - cse:\n  - canonicalize: {}\n")
    assert [(e.name, e.options) for e in load(path).passes] == [("cse", {}), ("canonicalize", {})]


def test_experiment_set_remove_insert(tmp_path: Path):
    base = write(tmp_path, "base.yaml", BASE)
    experiment = write(
        tmp_path,
        "experiments/x.yaml",
        """\
        extends: ../base.yaml
        remove: [cse]
        insert:
          - {pass: dce, before: hip-pool-allocs}
          - pass: {hip-lower-host-visibility: {strategy: strict}}
            after: hip-add-context-arg
        set:
          hip-pool-allocs.planner: grouped
          hip-lower-host-visibility#1.strategy: event
        """,
    )
    pipeline = load(experiment)
    assert (pipeline.name, pipeline.description, pipeline.path) == ("base", "the base pipeline", experiment)
    assert names(pipeline) == [
        "hip-add-context-arg",
        "hip-lower-host-visibility",
        "canonicalize",
        "dce",
        "hip-pool-allocs",
        "hip-lower-host-visibility",
    ]
    pool = pipeline.passes[4]
    assert pool.options == {"alignment": 512, "growth": 2.0, "tile-sizes": (4, 8), "planner": "grouped"}
    assert pool.source == f"{base}:6"
    assert pipeline.passes[1].options == {"strategy": "event"}
    assert pipeline.passes[1].source == f"{experiment}:5"
    assert pipeline.passes[3].source == f"{experiment}:4"
    assert pipeline.passes[5].options == {}


def test_set_applies_to_an_inserted_pass(tmp_path: Path):
    write(tmp_path, "base.yaml", BASE)
    path = write(
        tmp_path,
        "x.yaml",
        """\
        extends: base.yaml
        insert: [{pass: test-needs-factor, after: cse}]
        set: {test-needs-factor.factor: 3}
        """,
    )
    entry = load(path).passes[4]
    assert (entry.name, entry.options) == ("test-needs-factor", {"factor": 3})


def test_chained_extends_and_renaming(tmp_path: Path):
    base = write(tmp_path, "base.yaml", BASE)
    write(tmp_path, "a/mid.yaml", "extends: ../base.yaml\nname: mid\nset: {hip-pool-allocs.alignment: 1024}\n")
    top = write(tmp_path, "a/b/top.yaml", "extends: ../mid.yaml\ndescription: top of the chain\nremove: [canonicalize]\n")
    pipeline = load(top)
    assert (pipeline.name, pipeline.description) == ("mid", "top of the chain")
    assert names(pipeline) == ["hip-add-context-arg", "hip-pool-allocs", "cse", "hip-lower-host-visibility"]
    assert pipeline.passes[1].options["alignment"] == 1024
    assert pipeline.passes[0].source == f"{base}:4"


def test_extends_paths_are_relative_to_the_file_not_the_cwd(tmp_path: Path, monkeypatch):
    write(tmp_path, "pipelines/default.yaml", BASE)
    write(tmp_path, "pipelines/experiments/x.yaml", "extends: ../default.yaml\nremove: [cse]\n")
    monkeypatch.chdir(tmp_path)
    pipeline = load_pipeline(Path("pipelines/experiments/x.yaml"), passes=REGISTRY)
    assert pipeline.path == "pipelines/experiments/x.yaml"
    assert pipeline.passes[0].source == "pipelines/default.yaml:4"


def test_passes_list_replaces_the_inherited_one(tmp_path: Path):
    write(tmp_path, "base.yaml", BASE)
    path = write(
        tmp_path,
        "x.yaml",
        """\
        extends: base.yaml
        name: short
        passes:
          - canonicalize
          - hip-pool-allocs: {planner: stacked}
        set: {hip-pool-allocs.alignment: 64}
        """,
    )
    pipeline = load(path)
    assert pipeline.name == "short" and pipeline.description == "the base pipeline"
    assert [(e.name, e.options) for e in pipeline.passes] == [
        ("canonicalize", {}),
        ("hip-pool-allocs", {"planner": "stacked", "alignment": 64}),
    ]


REPEATED = """\
name: twice
passes:
  - canonicalize
  - cse
  - canonicalize
  - hip-pool-allocs
"""


def test_index_references_pick_one_of_repeated_passes(tmp_path: Path):
    write(tmp_path, "twice.yaml", REPEATED)
    path = write(
        tmp_path,
        "x.yaml",
        """\
        extends: twice.yaml
        insert:
          - {pass: dce, after: canonicalize#2}
          - {pass: hip-add-context-arg, before: canonicalize#1}
        """,
    )
    assert names(load(path)) == ["hip-add-context-arg", "canonicalize", "cse", "canonicalize", "dce", "hip-pool-allocs"]
    both = write(tmp_path, "y.yaml", "extends: twice.yaml\nremove: [canonicalize#2, canonicalize#1]\n")
    assert names(load(both)) == ["cse", "hip-pool-allocs"]


def test_ambiguous_and_out_of_range_references(tmp_path: Path):
    write(tmp_path, "twice.yaml", REPEATED)
    ambiguous = write(tmp_path, "a.yaml", "extends: twice.yaml\nremove:\n  - cse\n  - canonicalize\n")
    assert error_of(load, ambiguous) == (
        f"{ambiguous}:4: error: 'remove': pass 'canonicalize' occurs 2 times in the pipeline; "
        "write 'canonicalize#1' or 'canonicalize#2'"
    )
    too_far = write(tmp_path, "b.yaml", "extends: twice.yaml\ninsert:\n  - {pass: dce, after: canonicalize#3}\n")
    assert error_of(load, too_far) == (
        f"{too_far}:3: error: 'after': 'canonicalize#3' does not exist; the pipeline has 2 'canonicalize' pass(es)"
    )
    zero = write(tmp_path, "c.yaml", "extends: twice.yaml\nremove: [cse#0]\n")
    assert error_of(load, zero) == (
        f"{zero}:2: error: 'remove': bad pass reference 'cse#0'; write NAME or NAME#N (N counts from 1)"
    )


# --------------------------------------------------------------------------- errors

ERROR_CASES = {
    "unknown pass": (
        "name: p\npasses:\n  - canonicalize\n  - hip-pol-allocs\n",
        "4: error: unknown pass 'hip-pol-allocs'; did you mean 'hip-pool-allocs'?",
    ),
    "unknown pass with options": (
        "name: p\npasses:\n  - cannonicalize: {}\n",
        "3: error: unknown pass 'cannonicalize'; did you mean 'canonicalize'?",
    ),
    "option of a pass without options": (
        "name: p\npasses:\n  - cse:\n      foo: 1\n",
        "4: error: pass 'cse' has no option 'foo'; it takes no options",
    ),
    "option with underscores": (
        "name: p\npasses:\n  - hip-pool-allocs:\n      alignment: 64\n      lifetime_only: false\n",
        "5: error: pass 'hip-pool-allocs' has no option 'lifetime_only'; did you mean 'lifetime-only'?",
    ),
    "option with no close spelling": (
        "name: p\npasses:\n  - hip-pool-allocs: {zzz: 1}\n",
        "3: error: pass 'hip-pool-allocs' has no option 'zzz'; its options are: "
        "alignment, lifetime-only, planner, growth, tile-sizes, budget",
    ),
    "yes is not a bool": (
        "name: p\npasses:\n  - hip-pool-allocs:\n      lifetime-only: yes\n",
        "4: error: option 'lifetime-only' of 'hip-pool-allocs' expects bool, got 'yes' (str)",
    ),
    "bool is not an int": (
        "name: p\npasses:\n  - hip-pool-allocs: {alignment: true}\n",
        "3: error: option 'alignment' of 'hip-pool-allocs' expects int, got true (bool)",
    ),
    "float is not an int": (
        "name: p\npasses:\n  - hip-pool-allocs: {alignment: 1.5}\n",
        "3: error: option 'alignment' of 'hip-pool-allocs' expects int, got 1.5 (float)",
    ),
    "string is not a float": (
        "name: p\npasses:\n  - hip-pool-allocs: {growth: fast}\n",
        "3: error: option 'growth' of 'hip-pool-allocs' expects float, got 'fast' (str)",
    ),
    "int is not a string": (
        "name: p\npasses:\n  - hip-pool-allocs: {planner: 3}\n",
        "3: error: option 'planner' of 'hip-pool-allocs' expects str, got 3 (int)",
    ),
    "null for a non-optional option": (
        "name: p\npasses:\n  - hip-pool-allocs: {planner: null}\n",
        "3: error: option 'planner' of 'hip-pool-allocs' expects str, got null",
    ),
    "bad tuple item": (
        "name: p\npasses:\n  - hip-pool-allocs:\n      tile-sizes: [1, x]\n",
        "4: error: option 'tile-sizes' of 'hip-pool-allocs' expects tuple[int, ...], got [1, 'x'] (list)",
    ),
    "bad optional": (
        "name: p\npasses:\n  - hip-pool-allocs: {budget: lots}\n",
        "3: error: option 'budget' of 'hip-pool-allocs' expects int | None, got 'lots' (str)",
    ),
    "literal choice": (
        "name: p\npasses:\n  - hip-lower-host-visibility: {strategy: readbak}\n",
        "3: error: option 'strategy' of 'hip-lower-host-visibility' expects 'readback' | 'strict' | 'event', "
        "got 'readbak' (str); did you mean 'readback'?",
    ),
    "missing required option": (
        "name: p\npasses:\n  - cse\n  - test-needs-factor\n",
        "4: error: pass 'test-needs-factor' needs option 'factor' (int)",
    ),
    "two pass names in one entry": (
        "name: p\npasses:\n  - {cse: {}, dce: {}}\n",
        "3: error: a pass is written NAME or {NAME: {option: value, ...}}",
    ),
    "options not a mapping": (
        "name: p\npasses:\n  - hip-pool-allocs: [1, 2]\n",
        "3: error: the options of 'hip-pool-allocs' must be a mapping",
    ),
    "passes not a list": (
        "name: p\npasses: cse\n",
        "2: error: 'passes' must be a list",
    ),
    "unknown top-level key": (
        "name: p\npases:\n  - cse\n",
        "2: error: unknown pipeline key 'pases'; did you mean 'passes'?",
    ),
    "unknown top-level key without a close one": (
        "name: p\npasses: []\nzzz: 1\n",
        "3: error: unknown pipeline key 'zzz'; expected one of: "
        "name, description, extends, passes, remove, insert, set",
    ),
    "duplicate key": (
        "name: p\npasses: [cse]\nname: q\n",
        "3: error: duplicate key 'name' in pipeline",
    ),
    "no name": (
        "description: d\npasses: [cse]\n",
        "1: error: a pipeline needs a 'name'",
    ),
    "no passes": (
        "name: p\n",
        "1: error: a pipeline needs 'passes' (or 'extends' to inherit them)",
    ),
    "not a mapping": (
        "- cse\n- dce\n",
        "1: error: a pipeline file is a mapping with keys name, description, extends, passes, remove, insert, set",
    ),
    "empty file": (
        "# nothing here\n",
        "1: error: a pipeline file is a mapping with keys name, description, extends, passes, remove, insert, set",
    ),
    "malformed YAML": (
        "name: p\npasses:\n  - cse\n  - [dce\n",
        "5: error: malformed YAML: expected ',' or ']', but got '<stream end>'",
    ),
    "unsafe tag": (
        "name: p\npasses:\n  - hip-pool-allocs: {planner: !!python/name:os.system x}\n",
        "3: error: malformed YAML: could not determine a constructor for the tag "
        "'tag:yaml.org,2002:python/name:os.system'",
    ),
    "bad indentation": (
        "name: p\npasses:\n  - cse\n   bad: 1\n",
        "4: error: malformed YAML: mapping values are not allowed here",
    ),
    "set names a pass not in the pipeline": (
        "name: p\npasses: [cse]\nset:\n  dce.foo: 1\n",
        "4: error: 'set': pass 'dce' is not in the pipeline; did you mean 'cse'?",
    ),
    "set with a misspelt pass": (
        "name: p\npasses: [canonicalize]\nset:\n  canonicalise.x: 1\n",
        "4: error: 'set': pass 'canonicalise' is not in the pipeline; did you mean 'canonicalize'?",
    ),
    "set key without option": (
        "name: p\npasses: [cse]\nset:\n  cse: 1\n",
        "4: error: 'set' key 'cse' must be PASS.OPTION",
    ),
    "set with a bad value": (
        "name: p\npasses: [hip-pool-allocs]\nset:\n  hip-pool-allocs.alignment: big\n",
        "4: error: option 'alignment' of 'hip-pool-allocs' expects int, got 'big' (str)",
    ),
    "remove a pass not in the pipeline": (
        "name: p\npasses: [cse]\nremove: [csee]\n",
        "3: error: 'remove': pass 'csee' is not in the pipeline; did you mean 'cse'?",
    ),
    "insert without anchor": (
        "name: p\npasses: [cse]\ninsert:\n  - {pass: dce}\n",
        "4: error: an 'insert' entry is {pass: P, before: REF} or {pass: P, after: REF}",
    ),
    "insert with two anchors": (
        "name: p\npasses: [cse]\ninsert:\n  - {pass: dce, before: cse, after: cse}\n",
        "4: error: an 'insert' entry is {pass: P, before: REF} or {pass: P, after: REF}",
    ),
    "insert with a misspelt key": (
        "name: p\npasses: [cse]\ninsert:\n  - {pass: dce, befor: cse}\n",
        "4: error: unknown 'insert' entry key 'befor'; did you mean 'before'?",
    ),
    "insert of an unknown pass": (
        "name: p\npasses: [cse]\ninsert:\n  - {pass: dcee, after: cse}\n",
        "4: error: unknown pass 'dcee'; did you mean 'dce'?",
    ),
    "insert after a missing anchor": (
        "name: p\npasses: [cse]\ninsert:\n  - pass: dce\n    after: canonicalize\n",
        "5: error: 'after': pass 'canonicalize' is not in the pipeline",
    ),
}


@pytest.mark.parametrize("text, expected", ERROR_CASES.values(), ids=ERROR_CASES.keys())
def test_errors_name_file_line_and_spelling(tmp_path: Path, text: str, expected: str):
    path = write(tmp_path, "bad.yaml", text)
    assert error_of(load, path) == f"{path}:{expected}"


def test_missing_extends_target_suggests_a_sibling(tmp_path: Path):
    write(tmp_path, "pipelines/default.yaml", BASE)
    path = write(tmp_path, "pipelines/experiments/x.yaml", "# try\nextends: ../defualt.yaml\n")
    target = os.path.normpath(tmp_path / "pipelines/defualt.yaml")
    assert error_of(load, path) == (
        f"{path}:2: error: 'extends' target '{target}' does not exist; did you mean '../default.yaml'?"
    )
    nowhere = write(tmp_path, "y.yaml", "extends: no/such/dir.yaml\n")
    assert error_of(load, nowhere) == (
        f"{nowhere}:1: error: 'extends' target '{tmp_path / 'no/such/dir.yaml'}' does not exist"
    )


def test_extends_cycles_are_errors(tmp_path: Path):
    a = write(tmp_path, "a.yaml", "name: a\nextends: b.yaml\n")
    b = write(tmp_path, "b.yaml", "\nextends: ./a.yaml\n")
    assert error_of(load, a) == f"{b}:2: error: 'extends' cycle: {a} -> {b} -> {a}"
    itself = write(tmp_path, "self.yaml", "extends: self.yaml\n")
    assert error_of(load, itself) == f"{itself}:1: error: 'extends' cycle: {itself} -> {itself}"


def test_errors_in_an_extended_file_point_into_it(tmp_path: Path):
    base = write(tmp_path, "base.yaml", "name: b\npasses:\n  - hip-pool-allocs: {alignment: x}\n")
    top = write(tmp_path, "top.yaml", "extends: base.yaml\n")
    assert error_of(load, top) == (
        f"{base}:3: error: option 'alignment' of 'hip-pool-allocs' expects int, got 'x' (str)"
    )


def test_unreadable_pipeline_file(tmp_path: Path):
    missing = str(tmp_path / "missing.yaml")
    assert error_of(load, missing) == f"{missing}: error: cannot read pipeline: No such file or directory"
    assert error_of(load, str(tmp_path)) == f"{tmp_path}: error: cannot read pipeline: Is a directory"
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"name: \xff\xfe\n")
    assert error_of(load, str(binary)) == f"{binary}: error: cannot read pipeline: not UTF-8 text"


# --------------------------------------------------------------------------- -p and --set


def test_pass_spec_with_options_and_tuples():
    pipeline = parse_pass_spec(
        'canonicalize,hip-pool-allocs{alignment=64 lifetime_only=false planner="lifetime only" '
        "growth=2 tile-sizes=1,2,3 budget},cse",
        passes=REGISTRY,
    )
    assert names(pipeline) == ["canonicalize", "hip-pool-allocs", "cse"]
    assert pipeline.passes[1].options == {
        "alignment": 64,
        "lifetime-only": False,
        "planner": "lifetime only",
        "growth": 2.0,
        "tile-sizes": (1, 2, 3),
        "budget": None,
    }
    assert {entry.source for entry in pipeline.passes} == {"-p"} and pipeline.path is None
    assert parse_pass_spec("", passes=REGISTRY).passes == ()


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("canonicalize,hip-pol-allocs", "-p: error: unknown pass 'hip-pol-allocs'; did you mean 'hip-pool-allocs'?"),
        ("cse{foo=1}", "-p: error: pass 'cse' has no option 'foo'; it takes no options"),
        ("hip-pool-allocs{alignment=1,2}", "-p: error: option 'alignment' of 'hip-pool-allocs' expects int, got [1, 2] (tuple)"),
        ("hip-pool-allocs{lifetime-only=yes}", "-p: error: option 'lifetime-only' of 'hip-pool-allocs' expects bool, got 'yes' (str)"),
        ("hip-pool-allocs{planner}", "-p: error: option 'planner' of 'hip-pool-allocs' expects str, got null"),
        ("test-needs-factor", "-p: error: pass 'test-needs-factor' needs option 'factor' (int)"),
        ("cse,{", "-p: error: malformed pass pipeline: Expected pass name here at column 5"),
        ("cse dce", "-p: error: malformed pass pipeline: Expected a comma or pass arguments here at column 4"),
    ],
)
def test_pass_spec_errors(spec: str, expected: str):
    assert error_of(parse_pass_spec, spec, passes=REGISTRY) == expected


def test_pass_spec_source_names_the_flag():
    assert error_of(parse_pass_spec, "nope", source="--passes", passes=REGISTRY).startswith("--passes: error: ")


def test_spec_round_trips_a_loaded_pipeline(tmp_path: Path):
    pipeline = load(write(tmp_path, "base.yaml", BASE))
    pipeline = apply_overrides(pipeline, ['hip-pool-allocs.planner="a \\"b\\""', "hip-pool-allocs.budget="], passes=REGISTRY)
    again = parse_pass_spec(pipeline.spec(), passes=REGISTRY)
    assert [(e.name, e.options) for e in again.passes] == [(e.name, e.options) for e in pipeline.passes]


OPTION_VALUES = st.fixed_dictionaries(
    {},
    optional={
        "alignment": st.integers(-(2**40), 2**40),
        "lifetime-only": st.booleans(),
        "planner": st.text(st.characters(codec="ascii", exclude_characters="\n\r\x0b\x0c"), max_size=8),
        "growth": st.floats(allow_nan=False, allow_infinity=False),
        "tile-sizes": st.lists(st.integers(0, 10**6), min_size=1, max_size=4).map(tuple),
        "budget": st.none() | st.integers(0, 10**9),
    },
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.just(PassEntry("cse")) | OPTION_VALUES.map(lambda o: PassEntry("hip-pool-allocs", o)), max_size=4))
def test_spec_round_trip_property(entries: list[PassEntry]):
    pipeline = Pipeline("p", "", tuple(entries))
    again = parse_pass_spec(pipeline.spec(), passes=REGISTRY)
    assert [(e.name, e.options) for e in again.passes] == [(e.name, e.options) for e in entries]


def test_overrides_set_typed_values_without_touching_the_input(tmp_path: Path):
    write(tmp_path, "twice.yaml", REPEATED)
    pipeline = load(str(tmp_path / "twice.yaml"))
    changed = apply_overrides(
        pipeline,
        ["hip-pool-allocs.alignment=1024", "hip-pool-allocs.lifetime_only=false", "hip-pool-allocs.tile-sizes=2,4",
         "hip-pool-allocs.growth=3", "hip-pool-allocs.planner=stacked", "hip-pool-allocs.alignment=2048"],
        passes=REGISTRY,
    )
    assert changed.passes[3].options == {
        "alignment": 2048, "lifetime-only": False, "tile-sizes": (2, 4), "growth": 3.0, "planner": "stacked",
    }
    assert pipeline.passes[3].options == {}
    assert changed.passes[3].source == pipeline.passes[3].source
    assert changed.name == pipeline.name and changed.path == pipeline.path


@pytest.mark.parametrize(
    "setting, expected",
    [
        ("hip-pool-allocs.alignment", "expected PASS.OPTION=VALUE, got 'hip-pool-allocs.alignment'"),
        ("alignment=3", "expected PASS.OPTION=VALUE, got 'alignment=3'"),
        ("dce.x=1", "pass 'dce' is not in the pipeline; did you mean 'cse'?"),
        ("hip-add-context-arg.x=1", "pass 'hip-add-context-arg' is not in the pipeline"),
        ("canonicalize.x=1", "pass 'canonicalize' occurs 2 times in the pipeline; write 'canonicalize#1' or 'canonicalize#2'"),
        ("canonicalize#2.x=1", "pass 'canonicalize' has no option 'x'; it takes no options"),
        ("hip-pool-allocs.alignmnet=1", "pass 'hip-pool-allocs' has no option 'alignmnet'; did you mean 'alignment'?"),
        ("hip-pool-allocs.alignment=big", "option 'alignment' of 'hip-pool-allocs' expects int, got 'big' (str)"),
        ("hip-pool-allocs.planner=a b", "malformed value in 'hip-pool-allocs.planner=a b' (quote strings with spaces)"),
        ("hip-pool-allocs.planner=}", "malformed value in 'hip-pool-allocs.planner=}': Unknown argument value, wrap argument in quotes to "
         "pass arbitrary string values at character 1 of the value"),
    ],
)
def test_override_errors(tmp_path: Path, setting: str, expected: str):
    pipeline = load(write(tmp_path, "twice.yaml", REPEATED))
    assert error_of(apply_overrides, pipeline, [setting], passes=REGISTRY) == f"--set: error: {expected}"


# --------------------------------------------------------------------------- instantiate / describe


def test_instantiate_converts_options_to_field_types(tmp_path: Path):
    pipeline = load(write(tmp_path, "base.yaml", BASE))
    passes = instantiate(pipeline, passes=REGISTRY)
    assert [type(p) for p in passes] == [REGISTRY[name] for name in names(pipeline)]
    assert hash(pipeline) == hash(load(pipeline.path)) and pipeline == load(pipeline.path)
    pool = passes[2]
    assert isinstance(pool, PoolAllocsStandIn)
    assert pool == PoolAllocsStandIn(alignment=512, growth=2.0, tile_sizes=(4, 8))
    assert type(pool.growth) is float and pool.lifetime_only is True and pool.budget is None


def test_instantiate_revalidates_hand_made_pipelines():
    bad_type = Pipeline("p", "", (PassEntry("hip-pool-allocs", {"alignment": "1"}, "mine.yaml:3"),))
    assert error_of(instantiate, bad_type, passes=REGISTRY) == (
        "mine.yaml:3: error: option 'alignment' of 'hip-pool-allocs' expects int, got '1' (str)"
    )
    unknown = Pipeline("p", "", (PassEntry("no-such-pass", {}, "mine.yaml:4"),))
    assert error_of(instantiate, unknown, passes=REGISTRY) == "mine.yaml:4: error: unknown pass 'no-such-pass'"
    rejected = parse_pass_spec("cse,test-needs-factor{factor=-2}", passes=REGISTRY)
    assert error_of(instantiate, rejected, passes=REGISTRY) == (
        "-p: error: pass 'test-needs-factor': factor must be positive, got -2"
    )
    accepted = instantiate(parse_pass_spec("test-needs-factor{factor=2}", passes=REGISTRY), passes=REGISTRY)
    assert accepted == [NeedsFactorStandIn(factor=2)]


def test_describe_passes_lists_options_types_and_defaults():
    text = describe_passes(passes=REGISTRY)
    assert [line for line in text.splitlines() if not line.startswith(" ")] == sorted(REGISTRY)
    pool = text[text.index("hip-pool-allocs\n"):].splitlines()[:8]
    assert pool == [
        "hip-pool-allocs",
        "    Plan transient buffers into runtime pools (test stand-in).",
        "      alignment: int = 256",
        "      lifetime-only: bool = true",
        "      planner: str = 'tree'",
        "      growth: float = 1.5",
        "      tile-sizes: tuple[int, ...] = [1, 2]",
        "      budget: int | None = null",
    ]
    assert "second paragraph" not in text
    assert "      strategy: 'readback' | 'strict' | 'event' = 'readback'\n" in text
    assert "      factor: int (required)\n" in text
    assert "cse\n    Common subexpression elimination (xDSL)" in text


def test_describe_passes_without_a_docstring():
    class Undocumented(ModulePass):
        name = "undocumented"

        def apply(self, ctx, op):
            pass

    assert describe_passes({"undocumented": Undocumented}) == "undocumented\n    (no description)\n"


def test_describe_passes_defaults_to_the_real_registry():
    text = describe_passes()
    for name in available_passes():
        assert f"\n{name}\n" in f"\n{text}"
    assert "hip-add-context-arg\n    Prepend `!hip.context` to every func.func that lacks it.\n" in text


# --------------------------------------------------------------------------- shipped pipelines

SHIPPED = sorted((REPO / "pipelines").rglob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=[str(p.relative_to(REPO)) for p in SHIPPED])
def test_shipped_pipelines_load_with_the_real_passes(path: Path):
    pipeline = load_pipeline(path)
    assert pipeline.passes
    assert len(instantiate(pipeline)) == len(pipeline.passes)


def test_default_pipeline_runs_on_real_ir():
    from xhip.context import make_context
    from xhip.parsing import parse_module

    passes = instantiate(load_pipeline(REPO / "pipelines/default.yaml"))
    ctx = make_context()
    module = parse_module(
        ctx,
        textwrap.dedent(
            """\
            func.func @main_graph(%x: index) -> index {
              %zero = arith.constant 0 : index
              %y = arith.addi %x, %zero : index
              %z = arith.addi %x, %zero : index
              func.return %y : index
            }
            """
        ),
        "main.mlir",
    )
    PassPipeline(tuple(passes)).apply(ctx, module)
    module.verify()
    fn = next(iter(module.ops))
    assert isinstance(fn.function_type.inputs.data[0], ContextType)
    body = [op.name for op in fn.body.block.ops]
    assert body == ["func.return"]  # canonicalize folded x+0, the dead copy went away

