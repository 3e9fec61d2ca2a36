"""Dump the IR of every test-set model under every pipeline YAML, after each pass.

    python benchmarks/ir_snapshot.py OUT_DIR
    diff -r BEFORE_DIR AFTER_DIR

For each model of xhip/testing/models.py and each YAML under pipelines/, writes
OUT_DIR/<pipeline>/<model>/NN-<pass>.mlir (NN = position in the pipeline,
00 = the imported IR) and final.mlir. A refactoring that must not change
behaviour is checked by running this on the commit before and after it and
diffing the two folders: the dumps hold no paths, times or addresses, so equal
behaviour means equal bytes. A stage that fails writes its error to error.txt.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from xhip.api import compile_stages
from xhip.diagnostics import XhipError
from xhip.printing import print_ir
from xhip.testing.models import MODELS

PIPELINES = Path(__file__).resolve().parent.parent / "pipelines"


def _pipeline_files() -> list[Path]:
    return sorted(PIPELINES.rglob("*.yaml"))


def snapshot(model_name: str, pipeline: Path, out: Path) -> int:
    """Write the IR after each stage of one model x pipeline; return the number of files."""
    out.mkdir(parents=True, exist_ok=True)
    model, _ = MODELS[model_name](np.random.default_rng(0))
    text = ""
    written = 0
    try:
        for index, (stage, module, _constants) in enumerate(compile_stages(model, pipeline)):
            # Constants files are kept in memory and named relative to the IR: no path to hide.
            text = print_ir(module)
            (out / f"{index:02d}-{stage}.mlir").write_text(text)
            written += 1
    except XhipError as err:
        (out / "error.txt").write_text(f"{err}\n")
    (out / "final.mlir").write_text(text)
    return written + 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="folder to write the dumps into (created)")
    args = ap.parse_args()
    total = 0
    for pipeline in _pipeline_files():
        label = pipeline.relative_to(PIPELINES).with_suffix("").as_posix().replace("/", "-")
        for model_name in MODELS:
            total += snapshot(model_name, pipeline, args.out / label / model_name)
    print(f"wrote {total} IR files for {len(MODELS)} models x {len(_pipeline_files())} pipelines into {args.out}")


if __name__ == "__main__":
    main()
