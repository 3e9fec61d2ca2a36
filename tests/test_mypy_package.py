"""The whole `xhip` package type-checks: mypy with pyproject.toml's `[tool.mypy]` settings.

mypy runs from the checkout (so `xhip` resolves there and the config is found), with no
targets on the command line: the config's `packages = ["xhip"]` names what it checks. Its
cache goes under pytest's tmp_path, so the run writes nothing in the checkout.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytest.importorskip("mypy")


def test_the_package_type_checks(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")],
        capture_output=True, text=True, cwd=REPO,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
