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


def test_readme_decode_loop_runs(monkeypatch):
    """The README's decode loop, as written, on the reference backend: 64 steps of
    examples/decoder_tiny.onnx, each fed the last step's present_* (the cache grows to 65,
    all in the cache buffers the loop asked for: each step copied one row per cache)."""
    import numpy as np

    block = next(b for b in re.findall(r"```python\n(.*?)```", README, re.S) if "cache_buffers" in b)
    monkeypatch.chdir(REPO)
    scope: dict[str, object] = {"np": np, "xhip": __import__("xhip")}
    exec(block.replace('xhip.compile("examples/decoder_tiny.onnx")', 'xhip.compile("examples/decoder_tiny.onnx", backend="reference")'), scope)
    assert scope["out"]["present_key_0"].shape == (1, 4, 65, 16)  # type: ignore[index]
    exe, past = scope["exe"], scope["past"]
    assert past["past_key_0"]._memref.buffer.nbytes == 65 * 4 * 16 * 4  # type: ignore[attr-defined, index]
    assert exe.backend.stats.device_copies == 4 + 64 * 4  # type: ignore[attr-defined]
    assert scope["token"].shape == (1, 1)  # type: ignore[attr-defined]


def test_readme_default_pipeline_excerpt_is_how_it_begins():
    import yaml

    blocks = re.findall(r"```yaml\n(.*?)```", README, re.S)
    excerpt = yaml.safe_load(next(b for b in blocks if b.startswith("name: default")))
    shipped = yaml.safe_load((REPO / "pipelines" / "default.yaml").read_text())
    assert excerpt["passes"] == shipped["passes"][: len(excerpt["passes"])]
