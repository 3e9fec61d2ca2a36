"""The files xhip ships beside its code: pipelines/ (and templates/ once it exists).

In a checkout they live at the repository root; a wheel carries copies of them
inside the package, under `xhip/_shipped/` (setup.py's build step puts them
there), so an installed xhip finds them without the checkout. `--pipeline NAME`
and `xhip.compile(pipeline="NAME")` look a bare name up among the shipped
pipelines: `default` is pipelines/default.yaml, `seed-003` is
pipelines/experiments/seed-003.yaml.
"""

from __future__ import annotations

import os
from pathlib import Path

from xhip.diagnostics import XhipError, did_you_mean

SHIPPED_FOLDERS = ("pipelines", "templates")
"""The repository-root folders a wheel carries (setup.py copies each one that exists)."""

PACKAGED_ROOT = Path(__file__).resolve().parent / "_shipped"
CHECKOUT_ROOT = Path(__file__).resolve().parent.parent
PIPELINE_SUFFIX = ".yaml"


def shipped_folder(name: str) -> Path:
    """Where the shipped folder `name` is: inside the installed package, else the checkout's."""
    assert name in SHIPPED_FOLDERS, name
    packaged = PACKAGED_ROOT / name
    return packaged if packaged.is_dir() else CHECKOUT_ROOT / name


def shipped_pipelines() -> dict[str, Path]:
    """Every shipped pipeline by name (file stem); top-level ones win over experiments."""
    root = shipped_folder("pipelines")
    found: dict[str, Path] = {}
    for path in sorted(root.rglob(f"*{PIPELINE_SUFFIX}"), key=lambda p: (len(p.parts), p)):
        found.setdefault(path.stem, path)
    return found


def _looks_like_path(text: str) -> bool:
    """A file, or something spelled like a path (a folder named `default` does not hide the name)."""
    return os.sep in text or "/" in text or text.endswith((PIPELINE_SUFFIX, ".yml")) or Path(text).is_file()


def resolve_pipeline(pipeline: str | os.PathLike[str]) -> Path:
    """The YAML file of `pipeline`: a path as given, or a shipped pipeline's name."""
    text = os.fspath(pipeline)
    if _looks_like_path(text):
        return Path(text)
    known = shipped_pipelines()
    if text in known:
        return known[text]
    hint = did_you_mean(text, known) or f"; shipped pipelines: {', '.join(sorted(known)) or 'none'}"
    raise XhipError(f"no pipeline file or shipped pipeline named '{text}'{hint}")


def default_pipeline() -> Path:
    """The shipping pipeline, pipelines/default.yaml."""
    return resolve_pipeline("default")
