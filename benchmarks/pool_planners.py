"""Pool size per planner against the max-live lower bound.

    python benchmarks/pool_planners.py [--sets 300] [--seed 0] [--json PATH]

Three tables:

- the seed attention (seed 003 after hip-optimize-memrefs: q, k, v, k^T of
  A = align256(b*s*256) bytes, scores and scaled scores of B = align256(b*s*s*4))
  at the seed's (batch, seq) shapes: bytes per planner, the lower bound, each
  planner's pool / bound, and the seed's stacked 4A + 2B;
- a GPT-2-like stack of 12 decoder layers (hidden 768, 12 heads, MLP 3072, f32;
  each layer's transient buffers with a residual stream that lives across it) at the
  same shapes;
- random buffer sets (2 to 40 buffers, lifetimes in 0..60, static sizes or
  products of 2-3 runtime dims, random dims): the median and worst ratio of each
  planner's pool to the lower bound, and how often `tree` beats `lifetime-only`.

The lower bound here is the max-live of the buffer set given (for the seed
attention that set is already merged by hip-optimize-memrefs); the compiled
model's own bound, before any reuse, is what `xhip-run` reports as
`lower_bound_bytes` (benchmarks/attention_memory.py quotes it).

Every layout is checked with `check_layout` at the dims it is measured at. Results
go to benchmarks/results/pool_planners.json.
"""

from __future__ import annotations

import argparse
import json
import operator
import random
import statistics
import time
from functools import reduce
from pathlib import Path

from xhip.memory import PLANNERS, Buffer, SizeExpr, check_layout, lower_bound
from xhip.testing.memory_cases import SEED_SHAPES, seed_attention_buffers

ALIGNMENT = 256
RESULTS = Path(__file__).resolve().parent / "results" / "pool_planners.json"


def decoder_layers(layers: int = 12) -> list[Buffer]:
    """Transient buffers of `layers` GPT-2-like decoder layers, one kernel per point.

    Per layer: ln1, qkv, k^T, scores, scaled, softmax, context, projection, the first
    residual sum (read again by the second), ln2, MLP up, GELU, MLP down, and the
    second residual sum, which the next layer reads at its start and its first residual.
    """
    b, s = SizeExpr.dim("batch", "b"), SizeExpr.dim("seq", "s")
    hidden = 4 * 768 * b * s
    shapes = {"qkv": 3 * hidden, "up": 4 * hidden, "gelu": 4 * hidden}
    square = 4 * 12 * b * s * s
    kernels = ["ln1", "qkv", "kT", "scores", "scaled", "softmax", "ctx", "proj", "res1"]
    kernels += ["ln2", "up", "gelu", "down", "res2"]
    reads = {  # buffer: the kernels of the same layer that read it
        "ln1": ["qkv"], "qkv": ["kT", "scores", "ctx"], "kT": ["scores"], "scores": ["scaled"],
        "scaled": ["softmax"], "softmax": ["ctx"], "ctx": ["proj"], "proj": ["res1"],
        "res1": ["ln2", "res2"], "ln2": ["up"], "up": ["gelu"], "gelu": ["down"], "down": ["res2"],
    }
    buffers = []
    for layer in range(layers):
        base = layer * len(kernels)
        for name in kernels:
            first = base + kernels.index(name)
            if name == "res2":  # the next layer's input: read by its ln1 and res1
                last = first + 1 + kernels.index("res1") if layer + 1 < layers else first
            else:
                last = base + max(kernels.index(r) for r in reads[name])
            size = square if name in ("scores", "scaled", "softmax") else shapes.get(name, hidden)
            buffers.append(Buffer(f"l{layer}.{name}", size, first, last))
    return buffers


def random_buffers(rng: random.Random) -> tuple[list[Buffer], list[str]]:
    dims = ["b", "s", "h"][: rng.randint(2, 3)]
    buffers = []
    for index in range(rng.randint(2, 40)):
        first = rng.randint(0, 60)
        last = first + rng.choice([0, 1, 2, 3, 5, 8, 13, 30])
        if rng.random() < 0.3:
            size = SizeExpr.const(rng.choice([4, 64, 100, 256, 1000, 4096, 65536]))
        else:
            factors = [SizeExpr.dim(d, d) for d in rng.choices(dims, k=rng.randint(1, 3))]
            size = rng.choice([1, 4, 12, 64, 256, 768, 1024, 3072]) * reduce(operator.mul, factors)
        buffers.append(Buffer(f"t{index}", size, first, last, group=rng.choice([None, "g"])))
    return buffers, dims


def measure(buffers: list[Buffer], envs: list[dict], plans: dict) -> dict[str, list[float]]:
    """Each planner's pool over the lower bound at each of `envs`."""
    ratios: dict[str, list[float]] = {name: [] for name in plans}
    for env in envs:
        bound = lower_bound(buffers, env, ALIGNMENT)
        for name, plan in plans.items():
            problems = check_layout(buffers, plan, env, ALIGNMENT)
            if problems:
                raise AssertionError(f"{name}: {problems[0]}")
            ratios[name].append(_ratio(plan.total.evaluate(env), bound))
    return ratios


def _ratio(pool: int, bound: int) -> float:
    return pool / bound if bound else 1.0


def shape_table(buffers: list[Buffer], reference: SizeExpr | None = None) -> list[dict]:
    """Bytes per planner at the seed's shapes (and `reference` evaluated there)."""
    plans = {name: planner(buffers, ALIGNMENT) for name, planner in PLANNERS.items()}
    rows = []
    for batch, seq in SEED_SHAPES:
        env = {"batch": batch, "seq": seq}
        measure(buffers, [env], plans)
        row = {"batch": batch, "seq": seq, "lower_bound": lower_bound(buffers, env, ALIGNMENT)}
        if reference is not None:
            row["seed_4A_2B"] = reference.evaluate(env)
        row.update({name: plan.total.evaluate(env) for name, plan in plans.items()})
        row.update({f"{name} / bound": _ratio(row[name], row["lower_bound"]) for name in plans})
        rows.append(row)
    return rows


def print_shape_table(title: str, rows: list[dict]) -> None:
    names = list(PLANNERS)
    extra = [key for key in ("seed_4A_2B",) if key in rows[0]]
    print(title)
    header = ["batch", "seq", "lower_bound", *extra, *names, *(f"{name} / bound" for name in names)]
    print(" ".join(f"{h:>14}" for h in header))
    for row in rows:
        print(" ".join(f"{row[h]:>14.3f}" if isinstance(row[h], float) else f"{row[h]:>14}" for h in header))


def random_table(sets: int, seed: int) -> dict:
    rng = random.Random(seed)
    ratios: dict[str, list[float]] = {name: [] for name in PLANNERS}
    seconds: dict[str, float] = dict.fromkeys(PLANNERS, 0.0)
    tree_wins = tree_ties = 0
    for _ in range(sets):
        buffers, dims = random_buffers(rng)
        plans = {}
        for name, planner in PLANNERS.items():
            start = time.perf_counter()
            plans[name] = planner(buffers, ALIGNMENT)
            seconds[name] += time.perf_counter() - start
        envs = [{d: rng.choice([1, 2, 7, 64, 128, 512, 2048]) for d in dims} for _ in range(3)]
        measured = measure(buffers, envs, plans)
        for name in PLANNERS:
            ratios[name] += measured[name]
        for tree, lifetime in zip(measured["tree"], measured["lifetime-only"]):
            if tree > lifetime:
                raise AssertionError(f"tree above lifetime-only on {buffers}")
            tree_wins += tree < lifetime
            tree_ties += tree == lifetime
    points = len(ratios["tree"])
    return {
        "sets": sets,
        "points": points,
        "median_ratio": {name: statistics.median(values) for name, values in ratios.items()},
        "worst_ratio": {name: max(values) for name, values in ratios.items()},
        "ms_per_set": {name: 1000 * total / sets for name, total in seconds.items()},
        "tree_below_lifetime_only": tree_wins / points,
        "tree_equal_lifetime_only": tree_ties / points,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()

    names = list(PLANNERS)
    seed_rows = shape_table(*seed_attention_buffers("batch", "seq", ALIGNMENT))
    print_shape_table("seed attention (bytes; lower bound = most bytes live at one point)", seed_rows)
    decoder_rows = shape_table(decoder_layers())
    print_shape_table("\nGPT-2-like, 12 decoder layers (bytes)", decoder_rows)

    randoms = random_table(args.sets, args.seed)
    print(f"\nrandom sets: {randoms['sets']} sets x 3 dims = {randoms['points']} points (pool / lower bound)")
    print(f"{'planner':>14} {'median':>8} {'worst':>8} {'ms/set':>8}")
    for name in names:
        print(
            f"{name:>14} {randoms['median_ratio'][name]:>8.3f} {randoms['worst_ratio'][name]:>8.3f}"
            f" {randoms['ms_per_set'][name]:>8.2f}"
        )
    print(
        f"tree below lifetime-only at {randoms['tree_below_lifetime_only']:.0%} of points,"
        f" equal at {randoms['tree_equal_lifetime_only']:.0%}, never above (checked)"
    )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    results = {"alignment": ALIGNMENT, "seed_attention": seed_rows, "decoder_layers": decoder_rows}
    args.json.write_text(json.dumps({**results, "random": randoms}, indent=2))
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
