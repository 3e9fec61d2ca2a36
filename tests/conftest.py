"""Shared pytest setup: the tests exercise the xhip of the tree they live in.

The checkout's own `xhip` package comes first on sys.path and in PYTHONPATH, so
in-process imports and the `xhip-opt` / `xhip-run` subprocesses the tests start
run this tree's code even where another checkout is installed in editable mode.
This folder is on sys.path too, whatever pytest's import mode, so that test files
import the shared helpers as `from helpers import ...` (tests/helpers.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO_ROOT = TESTS.parent

sys.path[:0] = [str(REPO_ROOT), str(TESTS)]
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
)
