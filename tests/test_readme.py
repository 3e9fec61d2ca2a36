"""The README's examples are real: its experiment YAML loads and its commands exist."""

from __future__ import annotations

import re
from pathlib import Path

from xhip.pipeline import load_pipeline

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


def test_readme_experiment_yaml_loads(tmp_path):
    blocks = re.findall(r"```yaml\n(.*?)```", README, re.S)
    experiment = next(b for b in blocks if b.startswith("extends:"))
    folder = tmp_path / "experiments"
    folder.mkdir()
    (tmp_path / "default.yaml").write_text((REPO / "pipelines" / "default.yaml").read_text())
    (folder / "readme.yaml").write_text(experiment)
    pipeline = load_pipeline(folder / "readme.yaml")
    names = [p.name for p in pipeline.passes]
    assert names.count("cse") == 1 and names.index("cse") < names.index("one-shot-bufferize")
    assert names[names.index("canonicalize") + 1] == "dce"
    externalize = next(p for p in pipeline.passes if p.name == "hip-externalize-constants")
    assert externalize.options["externalize-min-num-elements"] == 1024


def test_readme_test_command_is_what_ci_runs():
    command = re.search(r"<!-- ci:test -->\n```sh\n(.*?)\n```", README, re.S)
    assert command is not None
    assert "pytest" in command.group(1) and "lit" in command.group(1)
    assert "ci:test" in (REPO / ".ci" / "run").read_text()
