"""A value a pass rejects is blamed where it was written, and messages echo user values capped.

Before: a rejected `--set` or experiment `set:` value was reported at the pass's
line in pipelines/default.yaml, `--set OPTION=/a/path` did not parse, and a
`set:` value of nested YAML aliases became a 35 MB error line. The passes here
are the real ones (hip-pool-allocs checks `alignment` when built,
hip-materialize-host-scalars checks `max-elements` when run).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

from xhip.api import DEFAULT_PIPELINE
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.pass_options import show_value
from xhip.pass_runner import run_passes
from xhip.pipeline import apply_overrides, instantiate, load_pipeline, parse_pass_spec


def rejection(call, *args) -> XhipError:
    with pytest.raises(XhipError) as info:
        call(*args)
    assert "\n" not in str(info.value)
    return info.value


def experiment(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "experiment.yaml"
    path.write_text(f"extends: {DEFAULT_PIPELINE}\n{body}")
    return path


ALIGNMENT_3 = "pass 'hip-pool-allocs': alignment must be a positive power of 2, got 3"


def test_value_rejected_when_built_is_blamed_on_the_set_flag():
    pipeline = apply_overrides(load_pipeline(DEFAULT_PIPELINE), ["hip-pool-allocs.alignment=3"])
    assert str(rejection(instantiate, pipeline)) == f"--set hip-pool-allocs.alignment=3: error: {ALIGNMENT_3}"


def test_value_rejected_when_built_is_blamed_on_the_experiments_set_line(tmp_path: Path):
    path = experiment(tmp_path, "set:\n  hip-pool-allocs.planner: tree\n  hip-pool-allocs.alignment: 3\n")
    assert str(rejection(instantiate, load_pipeline(path))) == f"{path}:4: error: {ALIGNMENT_3}"


def test_value_rejected_when_built_is_blamed_on_its_yaml_value(tmp_path: Path):
    path = tmp_path / "own.yaml"
    path.write_text("name: own\npasses:\n  - hip-pool-allocs:\n      planner: tree\n      alignment: 3\n")
    assert str(rejection(instantiate, load_pipeline(path))) == f"{path}:5: error: {ALIGNMENT_3}"


def test_the_last_writer_of_an_option_is_blamed(tmp_path: Path):
    path = experiment(tmp_path, "set:\n  hip-pool-allocs.alignment: 3\n")
    pipeline = apply_overrides(load_pipeline(path), ["hip-pool-allocs.alignment=5"])
    assert rejection(instantiate, pipeline).location == "--set hip-pool-allocs.alignment=5"


def test_pass_spec_rejections_stay_at_the_flag():
    assert str(rejection(instantiate, parse_pass_spec("hip-pool-allocs{alignment=3}"))) == f"-p: error: {ALIGNMENT_3}"


def test_value_rejected_when_run_is_blamed_on_the_set_flag():
    pipeline = apply_overrides(parse_pass_spec("hip-materialize-host-scalars"), ["hip-materialize-host-scalars.max-elements=0"])
    passes = instantiate(pipeline)
    error = rejection(run_passes, make_context(), ModuleOp([]), passes)
    assert str(error) == (
        "--set hip-materialize-host-scalars.max-elements=0: error: "
        "hip-materialize-host-scalars: option max-elements must be >= 1, got 0"
    )


def test_value_rejected_when_run_is_located_after_other_fields_are_replaced(tmp_path: Path):
    path = experiment(tmp_path, "set:\n  hip-externalize-constants.externalize-min-num-elements: -1\n")
    passes = instantiate(load_pipeline(path))
    externalize = next(p for p in passes if p.name == "hip-externalize-constants")
    # xhip.compile gives the pass its constants directory this way.
    moved = dataclasses.replace(externalize, externalize_output_dir=str(tmp_path))
    assert rejection(run_passes, make_context(), ModuleOp([]), [moved]).location == f"{path}:3"


def test_set_takes_a_plain_path_for_a_string_option(tmp_path: Path):
    target = tmp_path / "x" / "y"
    pipeline = apply_overrides(
        load_pipeline(DEFAULT_PIPELINE), [f"hip-externalize-constants.externalize-output-dir={target}"]
    )
    externalize = next(p for p in instantiate(pipeline) if p.name == "hip-externalize-constants")
    assert externalize.externalize_output_dir == str(target)


def test_set_plain_word_for_an_int_option_is_a_type_error():
    error = rejection(apply_overrides, load_pipeline(DEFAULT_PIPELINE), ["hip-pool-allocs.alignment=/tmp/x"])
    assert str(error) == "--set: error: option 'alignment' of 'hip-pool-allocs' expects int, got '/tmp/x' (str)"


def nested_aliases(levels: int) -> str:
    anchors = ["&l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    anchors += [f"&l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, levels)]
    return f"[{', '.join(anchors)}]"


def test_nested_alias_value_makes_a_short_message(tmp_path: Path):
    path = experiment(tmp_path, f"set:\n  hip-pool-allocs.alignment: {nested_aliases(8)}\n")
    message = str(rejection(load_pipeline, path))
    assert message.startswith(f"{path}:3: error: option 'alignment' of 'hip-pool-allocs' expects int, got [[1, 1,")
    assert message.endswith("... (list)")
    assert len(message) < 400


def test_show_value_stops_at_its_limit():
    value = [[1] * 10] * 3
    assert show_value(value, limit=20) == "[[1, 1, 1, 1, 1, ..."
    assert show_value(value) == "[" + ", ".join(["[" + ", ".join(["1"] * 10) + "]"] * 3) + "]"


def test_long_names_are_shortened_in_messages():
    error = rejection(apply_overrides, load_pipeline(DEFAULT_PIPELINE), ["p" * 5000 + ".alignment=1"])
    assert len(str(error)) < 400 and "... (5000 characters)" in str(error)
