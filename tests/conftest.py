"""Shared pytest setup: the tests exercise the xhip of the tree they live in.

The checkout's own `xhip` package comes first on sys.path and in PYTHONPATH, so
in-process imports and the `xhip-opt` / `xhip-run` subprocesses the tests start
run this tree's code even where another checkout is installed in editable mode.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

sys.path.insert(0, str(REPO_ROOT))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
)
