"""Compiled IR is a self-contained artifact (issue 8, items 3 and 8).

`xhip-opt -o out.mlir` writes `out.constants.bin` beside it and records its
name, size and SHA-256; `xhip-run out.mlir` runs it as is from any directory and
refuses a constants file that is not the one compiled with it. Compiling and
running an .onnx model writes nothing and leaves no temp directory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import xhip
from xhip.tools import opt, run
from xhip.testing.models import graph_model, value

WIDTH = 16  # a 16x16 weight: 256 elements, the default pipeline's externalize threshold


def matmul_model(seed: int) -> onnx.ModelProto:
    """Y = X @ W with its own random W (one externalized constant)."""
    weight = np.random.default_rng(seed).standard_normal((WIDTH, WIDTH)).astype(np.float32)
    return graph_model(
        [helper.make_node("MatMul", ["X", "W"], ["Y"])],
        [value("X", TensorProto.FLOAT, ["n", WIDTH])],
        [value("Y", TensorProto.FLOAT, ["n", WIDTH])],
        [numpy_helper.from_array(weight, "W")],
    )


def call(tool, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        tool.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


@pytest.fixture
def models(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "models"
    folder.mkdir()
    paths = {name: folder / f"{name}.onnx" for name in ("a", "b")}
    for seed, (name, path) in enumerate(paths.items()):
        onnx.save(matmul_model(seed), path)
    return paths


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    path = tmp_path / "in.npz"
    np.savez(path, X=np.random.default_rng(7).standard_normal((3, WIDTH)).astype(np.float32))
    return path


def outputs_of(capsys, model: Path, inputs: Path, saved: Path) -> np.ndarray:
    code, _, err = call(run, capsys, model, "--inputs", inputs, "--save-outputs", saved)
    assert code == 0, err
    with np.load(saved) as data:
        return data["Y"]


def test_compiled_ir_runs_as_is_from_another_directory(capsys, tmp_path, models, inputs, monkeypatch):
    build = tmp_path / "build"
    build.mkdir()
    code, _, err = call(opt, capsys, models["a"], "--pipeline", "default", "-o", build / "a.mlir")
    assert code == 0, err
    assert sorted(os.listdir(build)) == ["a.constants.bin", "a.mlir"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    compiled = outputs_of(capsys, build / "a.mlir", inputs, elsewhere / "compiled.npz")
    direct = outputs_of(capsys, models["a"], inputs, elsewhere / "direct.npz")
    np.testing.assert_array_equal(compiled, direct)


def test_two_models_compiled_in_one_folder_keep_their_own_weights(capsys, tmp_path, models, inputs, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("a", "b"):
        code, _, err = call(opt, capsys, models[name], "--pipeline", "default", "-o", f"{name}.mlir")
        assert code == 0, err
    first = outputs_of(capsys, tmp_path / "a.mlir", inputs, tmp_path / "first.npz")
    expected = outputs_of(capsys, models["a"], inputs, tmp_path / "expected.npz")
    np.testing.assert_array_equal(first, expected)


def test_ir_to_stdout_gets_a_content_named_constants_file(capsys, tmp_path, monkeypatch):
    """Two different models of one file name, printed in one folder, never share a constants file."""
    for seed in (0, 1):
        (tmp_path / f"m{seed}").mkdir()
        onnx.save(matmul_model(seed), tmp_path / f"m{seed}" / "model.onnx")
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)
    named = []
    for seed in (0, 1):
        code, text, err = call(opt, capsys, tmp_path / f"m{seed}" / "model.onnx", "--pipeline", "default")
        assert code == 0, err
        (out / f"m{seed}.mlir").write_text(text)
        named.append(next(line for line in text.splitlines() if "hip.constants_file" in line))
    files = sorted(p for p in os.listdir(out) if p.endswith(".constants.bin"))
    assert len(files) == 2 and all(f.startswith("model.") for f in files)
    assert named[0] != named[1]


def test_a_constants_file_of_another_compile_is_refused(capsys, tmp_path, models, inputs, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("a", "b"):
        assert call(opt, capsys, models[name], "--pipeline", "default", "-o", f"{name}.mlir")[0] == 0
    (tmp_path / "a.constants.bin").write_bytes((tmp_path / "b.constants.bin").read_bytes())
    code, out, err = call(run, capsys, "a.mlir", "--inputs", inputs)
    assert code == 1 and out == ""
    assert err.strip() == (
        "a.constants.bin: error: constants file's sha256 is not the one the IR records: it is not the file "
        "this IR was compiled with (recompile, or use the file written with it)"
    )


def test_a_truncated_constants_file_is_refused(capsys, tmp_path, models, inputs, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert call(opt, capsys, models["a"], "--pipeline", "default", "-o", "a.mlir")[0] == 0
    data = (tmp_path / "a.constants.bin").read_bytes()
    (tmp_path / "a.constants.bin").write_bytes(data[:100])
    code, _, err = call(run, capsys, "a.mlir", "--inputs", inputs)
    assert code == 1
    assert err.startswith(f"a.constants.bin: error: constants file has 100 bytes, the IR records {len(data)}")


def test_a_missing_constants_file_is_one_line(capsys, tmp_path, models, inputs, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert call(opt, capsys, models["a"], "--pipeline", "default", "-o", "a.mlir")[0] == 0
    (tmp_path / "a.constants.bin").unlink()
    code, _, err = call(run, capsys, "a.mlir", "--inputs", inputs)
    assert code == 1
    assert err.strip() == "a.constants.bin: error: cannot read constants file: No such file or directory"


def test_compiling_an_onnx_model_writes_and_leaks_nothing(tmp_path, models, inputs, monkeypatch):
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    with np.load(inputs) as data:
        feeds = {"X": data["X"]}
    for stage_model in (models["a"], onnx.load(models["b"])):
        xhip.compile(stage_model).run(feeds)
    assert os.listdir(temp) == [] and os.listdir(cwd) == []


def test_each_chunk_of_a_split_input_gets_its_own_constants_file(capsys, tmp_path):
    chunk = "func.func @f() -> tensor<4xf32> {{\n  %w = arith.constant dense<{}> : tensor<4xf32>\n  func.return %w : tensor<4xf32>\n}}\n"
    source = tmp_path / "two.mlir"
    source.write_text(chunk.format("[1.0, 2.0, 3.0, 4.0]") + "// -----\n" + chunk.format("[5.0, 6.0, 7.0, 8.0]"))
    output = tmp_path / "out.mlir"
    code, _, err = call(
        opt, capsys, source, "--split-input-file", "-p", "hip-externalize-constants{externalize-min-num-elements=4}", "-o", output
    )
    assert code == 0, err
    text = output.read_text()
    assert 'hip.constants_file = "out.constants.bin"' in text and 'hip.constants_file = "out.2.constants.bin"' in text
    first, second = (np.frombuffer((tmp_path / name).read_bytes(), np.float32) for name in ("out.constants.bin", "out.2.constants.bin"))
    assert first.tolist() == [1, 2, 3, 4] and second.tolist() == [5, 6, 7, 8]
