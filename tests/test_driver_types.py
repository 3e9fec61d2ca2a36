"""The hip driver type-checks against the stubs hip-python ships (no AMD GPU needed).

mypy reads hip-python's `.pyi` files, so a misspelled HIP call or a wrong argument count
(hipModuleLaunchKernel takes `extra`) fails here rather than on an AMD machine. The
second test shows the check has teeth: the same driver with one call broken must fail.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DRIVER = REPO / "xhip" / "runtime" / "backends" / "gpu" / "hip.py"

pytest.importorskip("mypy")


def _mypy(path: Path, scratch: Path) -> subprocess.CompletedProcess[str]:
    """mypy on `path`, run from the checkout (so `xhip` resolves there), its cache in `scratch`."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--cache-dir", str(scratch / "mypy-cache"), str(path)],
        capture_output=True, text=True, cwd=REPO,
    )  # fmt: skip


def test_the_hip_driver_matches_hip_pythons_stubs(tmp_path):
    result = _mypy(DRIVER, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    "broken",
    [
        ("hip.hipMalloc(", "hip.hipMallocc("),
        ("self._stream, args.address, None)", "self._stream, args.address)"),
        ("ldc, stride_c, batch, compute, algo)", "ldc, stride_c, batch, compute)"),
    ],
    ids=["misspelled-call", "missing-argument", "half-gemm-missing-algo"],
)
def test_a_broken_call_fails_the_check(tmp_path, broken):
    source = DRIVER.read_text()
    assert broken[0] in source
    package = tmp_path / "xhip" / "runtime" / "backends" / "gpu"
    package.mkdir(parents=True)
    copy = package / "hip.py"
    copy.write_text(source.replace(broken[0], broken[1], 1))
    result = _mypy(copy, tmp_path)
    assert result.returncode == 1 and "hip.py" in result.stdout, result.stdout
