"""Every model of the test set at one shape on a GPU backend, for compute-sanitizer.

    compute-sanitizer --tool memcheck python benchmarks/gpu_sanitize.py
    compute-sanitizer --tool racecheck python benchmarks/gpu_sanitize.py

Runs each model (default pipeline, its first shape of SHAPE_VARIANTS) once on `--backend`
(cuda by default), checks it against onnxruntime, prints one line per model and exits 1 on
a mismatch. The sanitizer's own summary line ("ERROR SUMMARY: N errors") is the verdict.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import xhip  # noqa: E402
from xhip.runtime.check import check_outputs, references  # noqa: E402
from xhip.testing.models import MODELS, SHAPE_VARIANTS, feeds_at  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="cuda")
    args = parser.parse_args()
    failed = 0
    for name in sorted(MODELS):
        shapes = SHAPE_VARIANTS[name][0]
        model, feeds = feeds_at(name, shapes, np.random.default_rng(0))
        result = check_outputs(xhip.compile(model, backend=args.backend).run(feeds), references(model, feeds), args.backend)
        failed += not result.passed
        print(f"{name:<22} {shapes}  {'pass' if result.passed else 'FAIL ' + '; '.join(result.problems)}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
