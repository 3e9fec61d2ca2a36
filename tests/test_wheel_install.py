"""xhip from a wheel, away from the checkout (issue 8, item 4).

The test really builds the wheel of this checkout (`pip wheel --no-deps
--no-build-isolation`, from a copy of the tree in a temp folder, so the build's
leftovers never land in the checkout) and installs it into a fresh venv whose
dependencies are the running environment's: a `.pth` line naming each of its
site-packages folders, a plain path, so that the editable install of the
checkout is *not* activated there. The tools then run from temp folders with no
PYTHONPATH: the shipped pipelines must come from inside the wheel.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", "Output",
    "*.constants.bin", "benchmarks", "tests",
)


def _can_build_wheels() -> bool:
    import setuptools

    modern = tuple(int(p) for p in setuptools.__version__.split(".")[:2]) >= (70, 1)
    return modern or importlib.util.find_spec("wheel") is not None


pytestmark = pytest.mark.skipif(
    not _can_build_wheels(), reason="building a wheel needs setuptools>=70.1 or 'wheel' (the test extra has them)"
)


def _run(argv: list[str], cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(argv)}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _build_wheel(tmp_path: Path) -> Path:
    source, dist = tmp_path / "source", tmp_path / "dist"
    shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(dist), str(source)], tmp_path)
    [wheel] = dist.glob("xhip-*.whl")
    return wheel


def _venv_with_wheel(tmp_path: Path, wheel: Path) -> Path:
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path)
    python = venv / "bin" / "python"
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path).strip())
    ours = {*site.getsitepackages(), *(entry for entry in sys.path if entry.endswith("site-packages"))}
    (purelib / "dependencies.pth").write_text("".join(f"{path}\n" for path in sorted(ours)))
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)], tmp_path)
    return venv / "bin"


RENDER_FROM_THE_WHEEL = """
import numpy as np
from xhip.dialects import hip
from xhip.kernels import render
from xhip.kernels.families import specs_for_launch
from xhip.kernels.spec_types import Operand
facts = Operand(np.dtype(np.float32), (None,), True)
source = render.render(specs_for_launch(hip.ReluOp, {}, [facts], [facts])[0]).source
print(render.TEMPLATES, "extern-C-kernel" if 'extern "C" __global__' in source else "no-kernel")
"""


def test_the_wheel_runs_the_readme_workflow_away_from_the_checkout(tmp_path):
    tools = _venv_with_wheel(tmp_path, _build_wheel(tmp_path))
    folders = {name: tmp_path / name for name in ("first", "second", "third")}
    for folder in folders.values():
        folder.mkdir()
    model, inputs = folders["first"] / "model.onnx", folders["first"] / "in.npz"
    shutil.copy(ATTENTION, model)
    np.savez(inputs, X=np.random.default_rng(0).standard_normal((2, 8, 64)).astype(np.float32))

    located = _run([str(tools / "python"), "-c", "import xhip.shipped as s; print(s.shipped_folder('pipelines'))"], tmp_path)
    assert Path(located.strip()).is_relative_to(tmp_path / "venv"), located
    # The kernel templates travel in the wheel too, and render from there.
    rendered = _run([str(tools / "python"), "-c", RENDER_FROM_THE_WHEEL], tmp_path).split()
    assert Path(rendered[0]).is_relative_to(tmp_path / "venv") and rendered[1] == "extern-C-kernel", rendered

    checked = _run([str(tools / "xhip-run"), "model.onnx", "--inputs", "in.npz", "--check", "--save-outputs", "direct.npz"], folders["first"])
    assert "check against onnxruntime: passed" in checked
    _run([str(tools / "xhip-opt"), str(model), "--pipeline", "default", "-o", "a.mlir"], folders["second"])
    _run([str(tools / "xhip-opt"), str(model), "--pipeline", "seed-003", "-o", "b.mlir"], folders["second"])
    assert sorted(os.listdir(folders["second"])) == ["a.constants.bin", "a.mlir", "b.constants.bin", "b.mlir"]
    _run([str(tools / "xhip-run"), "../second/a.mlir", "--inputs", str(inputs), "--save-outputs", "compiled.npz"], folders["third"])
    with np.load(folders["first"] / "direct.npz") as direct, np.load(folders["third"] / "compiled.npz") as compiled:
        np.testing.assert_array_equal(direct["out"], compiled["out"])
