"""Pool bytes against the model's own bounds, per pipeline and planner, over a shape grid.

    python benchmarks/memory_bench.py [--exports DIR] [--layers 2 12] [--quick]

Models: every model of the test set (xhip/testing/models.py), the pre-LN
transformer stack (xhip/testing/transformer_stack.py) at 2 and 12 layers, and
every `.onnx` in --exports (GPT-2, BERT, ... from benchmarks/export_models.py).
Shapes: batch {1, 2, 3, 16} x seq {1, 7, 64, 128, 129, 512, 2048}, and the
quoted (1,128), (4,512), (8,1024), for a model
whose inputs are [batch, seq, ...] (seq capped by a position table the model
has), else the test set's three shapes of that model.

Each model compiles once per pipeline; the pool bytes at a shape are evaluated
from the compiled IR (`xhip.analysis.pool_at_shape`: the same host arithmetic and
run-time planner a run uses; tests/test_pool_at_shape.py checks it against real
runs), so 16 x 2048 costs no run. Bounds are the model's own
(`hip.model_buffers`): `bound` with each intermediate its own buffer, `in-place`
with the in-place writes the kernels allow. The table gives, per model and
pipeline, pool / in-place bound (max and geomean over the grid) and the pool in
MiB at (1,128) / (4,512) / (8,1024), next to the peers' figures measured on the
same graphs (IREE 3.13, TVM 0.27 with symbolic shapes; from the memory issue).
JSON: benchmarks/results/memory_bench.json (every point).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import onnx

import xhip
from xhip.analysis.pool_at_shape import pool_bytes_at
from xhip.pipeline import apply_overrides, load_pipeline
from xhip.runtime.bind import entry_function
from xhip.testing.models import MODELS, SHAPE_VARIANTS
from xhip.testing.transformer_stack import transformer_stack_model

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "memory_bench.json"
MIB = 2**20
BATCHES = (1, 2, 3, 16)
SEQS = (1, 7, 64, 128, 129, 512, 2048)
QUOTED = ((1, 128), (4, 512), (8, 1024))
PIPELINES = {
    "default (run-time)": ("default.yaml", []),
    "default, tree": ("default.yaml", ['hip-pool-allocs.planner="tree"']),
    "default, lifetime-only": ("default.yaml", ['hip-pool-allocs.planner="lifetime-only"']),
    "seed-003": ("experiments/seed-003.yaml", []),
}
PEERS = {
    # model -> peer -> MiB at QUOTED shapes (the memory issue's table).
    "attention": {"IREE 3.13": (0.22, 9.5, 70), "TVM 0.27": (0.22, 9.5, 70)},
    "transformer_stack_2": {"IREE 3.13": (2.25, 60, 368), "TVM 0.27": (2.62, 66, 392)},
}
TARGETS = {
    # model -> MiB at QUOTED shapes that the default pipeline must not exceed.
    "transformer_stack_2": (1.18, 25, 168),
    "gpt2_2layer": (0.93, 25.2, 185),
}


def _dynamic_axes(model: onnx.ModelProto) -> dict[str, list[int | None]]:
    """Per graph input its dims: a static extent, or None where it is symbolic."""
    initializers = {t.name for t in model.graph.initializer}
    dims = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        shape = value.type.tensor_type.shape.dim
        dims[value.name] = [d.dim_value if d.HasField("dim_value") else None for d in shape]
    return dims


def position_table_rows(model: onnx.ModelProto) -> int | None:
    """The rows of a position-embedding table (GPT-2 `wpe`, BERT `position_embeddings`), if any."""
    for tensor in model.graph.initializer:
        name = tensor.name.lower()
        if len(tensor.dims) == 2 and ("wpe" in name or "position_embeddings" in name or "embed_positions" in name):
            return int(tensor.dims[0])
    return None


def position_limit(model: onnx.ModelProto) -> int | None:
    """The longest seq the position table serves; RoBERTa counts positions from padding id + 1
    (an Equal of input_ids with that id), so its last position is seq + padding id."""
    rows = position_table_rows(model)
    if rows is None:
        return None
    scalars = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer if not t.dims}
    for node in model.graph.node:
        if node.op_type == "Equal" and node.input[0] == "input_ids" and node.input[1] in scalars:
            return rows - int(scalars[node.input[1]]) - 1
    return rows


def grid_shapes(name: str, model: onnx.ModelProto) -> list[tuple[str, dict[str, tuple[int, ...]]]]:
    """(label, input shapes) of the grid, or the test set's shapes for other models."""
    inputs = _dynamic_axes(model)
    batch_seq = all(len(d) >= 2 and d[0] is None and d[1] is None for d in inputs.values())
    if not batch_seq:
        return [(str(dict(s)), s) for s in SHAPE_VARIANTS.get(name, ())]
    limit = position_limit(model)
    shapes = []
    for batch, seq in [*((b, s) for b in BATCHES for s in SEQS), *QUOTED]:
        if limit is not None and seq > limit:
            continue
        shapes.append((f"{batch}x{seq}", {n: (batch, seq, *d[2:]) for n, d in inputs.items()}))
    return shapes


def models(exports: Path | None, layers: Iterable[int]) -> Iterable[tuple[str, onnx.ModelProto]]:
    for name in sorted(MODELS):
        yield name, MODELS[name](np.random.default_rng(0))[0]
    for count in layers:
        yield f"transformer_stack_{count}", transformer_stack_model(count)
    if exports is not None:
        for path in sorted(exports.glob("*.onnx")):
            yield path.stem, onnx.load(path)


def measure(name: str, model: onnx.ModelProto, label: str, pipeline) -> dict[str, object]:
    started = time.perf_counter()
    executable = xhip.compile(model, pipeline, backend="reference")
    compile_s = time.perf_counter() - started
    function = entry_function(executable.module)
    points = []
    for shape_label, shapes in grid_shapes(name, model):
        pool = pool_bytes_at(executable.module, function, shapes)
        bounds = executable.bounds_at(shapes)
        points.append(
            {
                "shape": shape_label,
                "pool_bytes": pool,
                "lower_bound_bytes": bounds.lower if bounds else None,
                "in_place_lower_bound_bytes": bounds.in_place if bounds else None,
            }
        )
    return {"model": name, "pipeline": label, "compile_s": compile_s, "points": points}


def _ratio(point: dict[str, object]) -> float | None:
    pool, bound = point["pool_bytes"], point["in_place_lower_bound_bytes"]
    if pool is None or bound is None:
        return None
    if bound == 0:
        return 1.0 if pool == 0 else math.inf
    return pool / bound  # type: ignore[operator]


def summary(row: dict[str, object]) -> dict[str, object]:
    ratios = [r for r in map(_ratio, row["points"]) if r is not None]  # type: ignore[arg-type]
    by_shape = {p["shape"]: p for p in row["points"]}  # type: ignore[union-attr]
    quoted = []
    for batch, seq in QUOTED:
        point = by_shape.get(f"{batch}x{seq}")
        quoted.append(None if point is None or point["pool_bytes"] is None else point["pool_bytes"] / MIB)
    return {
        "max_pool_over_in_place_bound": max(ratios) if ratios else None,
        "geomean_pool_over_in_place_bound": math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None,
        "unevaluated_points": sum(_ratio(p) is None for p in row["points"]),  # type: ignore[arg-type]
        "quoted_mib": quoted,
    }


def _mib(values) -> str:
    return " / ".join("-" if v is None else f"{v:.3g}" for v in values)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exports", type=Path, help="a folder of exported .onnx models (benchmarks/export_models.py)")
    ap.add_argument("--layers", type=int, nargs="*", default=[2, 12], help="transformer-stack depths")
    ap.add_argument("--quick", action="store_true", help="only the default pipeline")
    ap.add_argument("--json", type=Path, default=RESULTS)
    args = ap.parse_args()
    pipelines = {k: v for k, v in PIPELINES.items() if not args.quick or k.startswith("default (")}
    loaded = {label: apply_overrides(load_pipeline(REPO / "pipelines" / f), s) for label, (f, s) in pipelines.items()}
    header = f"{'model':<22} {'pipeline':<24} {'max pool/in-place':>17} {'geomean':>8} {'MiB (1,128) / (4,512) / (8,1024)':>34} {'compile s':>9}"
    print(header)
    print("-" * len(header))
    rows = []
    for name, model in models(args.exports, args.layers):
        for label, pipeline in loaded.items():
            row = measure(name, model, label, pipeline)
            row.update(summary(row))
            rows.append(row)
            worst, geo = row["max_pool_over_in_place_bound"], row["geomean_pool_over_in_place_bound"]
            print(
                f"{name:<22} {label:<24} {'-' if worst is None else f'{worst:.3f}':>17} "
                f"{'-' if geo is None else f'{geo:.4f}':>8} {_mib(row['quoted_mib']):>34} {row['compile_s']:>9.2f}",
                flush=True,
            )
        for peer, figures in PEERS.get(name, {}).items():
            print(f"{name:<22} {peer + ' (reference)':<24} {'':>17} {'':>8} {_mib(figures):>34}")
        if name in TARGETS:
            print(f"{name:<22} {'target (issue 11)':<24} {'':>17} {'':>8} {_mib(TARGETS[name]):>34}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"rows": rows, "peers_mib": PEERS, "targets_mib": TARGETS}, indent=1))
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
