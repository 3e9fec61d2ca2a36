"""Packaging glue that pyproject.toml cannot say: the wheel carries the shipped folders.

pipelines/ (and templates/, once it exists) stay at the repository root, where
people edit them; building the package copies each into `xhip/_shipped/`, where
`xhip.shipped` finds them in an installed xhip. An editable install has no copy:
`xhip.shipped` then reads the checkout's folders directly.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED_FOLDERS = ("pipelines", "templates")  # xhip.shipped.SHIPPED_FOLDERS (not importable at build time)


class BuildPyWithShippedFolders(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in SHIPPED_FOLDERS:
            source = ROOT / name
            if source.is_dir():
                target = Path(self.build_lib) / "xhip" / "_shipped" / name
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildPyWithShippedFolders})
