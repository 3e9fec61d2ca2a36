"""Real exports through xhip against onnxruntime fp32 and float64: the numerics table of issue 12.

    nice python benchmarks/real_models.py [FOLDER] [--only NAME ...] [--row-limit-s 300]

For every `NAME.onnx` in FOLDER (default /tmp/xhip-exports, written by
benchmarks/export_models.py), at (batch, seq) in (1,1), (1,128), (4,77), (8,512)
(a vision or speech model, whose one input is a float signal: at batch 1 and 2, its
dynamic dims at SIGNAL_EXTENTS: 224x224 then 160x192 pixels, 16000 then 12000 samples):
each model compiles once with the default pipeline on the reference backend, runs
at every shape, and is judged by the project's check (`xhip.runtime.check`: the
float64 rule that `xhip-run --check` applies, see `xhip-run --help`). Models whose
token table is 768 wide or more (GPT-2 124M, GPT-2 2-layer at 124M width,
BERT-base) run at the two smaller shapes only. A seq beyond the model's position
table (GPT-2 `wpe`, BERT `position_embeddings` rows; RoBERTa's positions start
after its padding id) is skipped and marked so, and so is a row that runs past
--row-limit-s (checked when the current NumPy/onnxruntime call returns).

Inputs are drawn as export_models.py draws its examples: token ids in range of the
table each id input indexes (from 3: RoBERTa reserves 0..2, 1 being padding), an
attention mask of ones whose last row has a padded tail (a third of seq), and
token_type_ids 0 for the first half of seq, 1 for the rest.

Per row: max error against onnxruntime fp32 and against float64, onnxruntime fp32's
own error against float64, what the float64 rule allows (K times that error plus U
ulps), the verdict, the pool bytes and both lower bounds of the run's report (the
model's own max-live bound, and the bound with in-place writes).
Rows print as they finish; the table prints last; JSON goes to
benchmarks/results/real_models.json.
"""

from __future__ import annotations

import argparse
import gc
import json
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx

import xhip
from xhip.diagnostics import XhipError
from xhip.runtime.check import check_outputs, references
from xhip.runtime.executable import Executable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory_bench import position_limit  # noqa: E402  (a sibling script)

DEFAULT_FOLDER = Path("/tmp/xhip-exports")
RESULTS = Path(__file__).resolve().parent / "results" / "real_models.json"
SHAPES = ((1, 1), (1, 128), (4, 77), (8, 512))
LARGE_SHAPES = SHAPES[:2]
LARGE_WIDTH = 768
"""A token table this wide or wider is a 124M-size model: only LARGE_SHAPES, as issue 12 asks
(GPT-2's logits at 8x512 are 0.8 GB in fp32, and the float64 run and the check copy them several times)."""
ROW_LIMIT_S = 300
FIRST_TOKEN_ID = 3
"""RoBERTa reserves ids 0..2 (1 is padding): drawing from 3 keeps every family's tokens real."""
INDEX_PASSTHROUGH = {"Reshape", "Cast", "Unsqueeze", "Squeeze", "Flatten", "Identity"}
"""Ops an exporter puts between a token-id input and its embedding Gather (GPT-2 reshapes)."""


@dataclass(frozen=True)
class ModelFacts:
    """What the table needs to know of one export, read once from its ONNX graph."""

    name: str
    path: Path
    table_rows: dict[str, int]
    """Per integer input, the rows of the embedding table it indexes (its ids must stay below)."""
    width: int
    """Columns of the widest of those tables: the model's hidden size."""
    position_limit: int | None
    """The largest seq its position table serves, or None when positions are not a table."""
    signal: tuple[int | None, ...] | None = None
    """A vision or speech model's one float input: its declared dims (None: dynamic)."""

    @property
    def shapes(self) -> tuple[tuple[int, object], ...]:
        """(batch, seq) per row; for a signal model (batch, the other dims as `CxHxW` text)."""
        if self.signal is not None:
            return tuple((batch, "x".join(map(str, rest))) for batch, rest in signal_shapes(self.signal))
        return LARGE_SHAPES if self.width >= LARGE_WIDTH else SHAPES


SIGNAL_EXTENTS = {4: ((224, 224), (160, 192)), 2: ((16000,), (12000,))}
"""Per rank of a signal input, the extents its dynamic non-batch dims take in the two rows
(images: N, C, H, W; waveforms: N, samples); a dim the export fixed keeps its extent."""


def signal_shapes(declared: tuple[int | None, ...]) -> list[tuple[int, tuple[int, ...]]]:
    """(batch, the other dims) of the two rows of a signal model: batch 1, then 2."""
    rows = []
    for batch, extents in zip((1, 2), SIGNAL_EXTENTS.get(len(declared), ((), ()))):
        free = iter(extents)
        rest = tuple(d if d is not None else next(free, 64) for d in declared[1:])
        rows.append((batch, rest))
    return rows


def _signal_input(model: onnx.ModelProto) -> tuple[int | None, ...] | None:
    """The declared dims of the model's one float input, if it has one and no integer input."""
    floats = [i for i in model.graph.input if i.type.tensor_type.elem_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16)]
    if len(floats) != 1 or len(model.graph.input) != 1:
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else None for d in floats[0].type.tensor_type.shape.dim)


def model_facts(path: Path) -> ModelFacts:
    model = onnx.load(str(path))
    tables = _embedding_tables(model)
    return ModelFacts(
        path.stem,
        path,
        {name: dims[0] for name, dims in tables.items()},
        max((dims[1] for dims in tables.values()), default=0),
        position_limit(model),
        _signal_input(model),
    )


def signal_feeds(executable: Executable, batch: int, rest: str) -> dict[str, np.ndarray]:
    """The one float input at (batch, *rest): standard normal values (seeded by the shape)."""
    (spec,) = executable.inputs
    shape = (batch, *(int(d) for d in rest.split("x")))
    rng = np.random.default_rng(batch * 1000 + sum(shape))
    return {spec.name: rng.standard_normal(shape).astype(spec.dtype)}


def _embedding_tables(model: onnx.ModelProto) -> dict[str, tuple[int, int]]:
    """Per graph input, the dims of the 2-D initializer a Gather indexes with it (through reshapes and casts)."""
    initializers = {t.name: tuple(t.dims) for t in model.graph.initializer}
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    tables = {}
    for graph_input in model.graph.input:
        pending = [graph_input.name]
        while pending and graph_input.name not in tables:
            value = pending.pop()
            for node in consumers.get(value, ()):
                if node.op_type == "Gather" and node.input[1] == value and len(initializers.get(node.input[0], ())) == 2:
                    tables[graph_input.name] = initializers[node.input[0]]
                elif node.op_type in INDEX_PASSTHROUGH and node.input[0] == value:
                    pending.extend(node.output)
    return tables


def token_feeds(facts: ModelFacts, executable: Executable, batch: int, seq: int) -> dict[str, np.ndarray]:
    """The inputs the compiled model declares, drawn as the module docstring says (seeded by the shape)."""
    rng = np.random.default_rng(batch * 1000 + seq)
    mask = np.ones((batch, seq), np.int64)
    mask[-1, seq - seq // 3 :] = 0
    token_types = np.broadcast_to((np.arange(seq) >= seq // 2).astype(np.int64), (batch, seq))
    feeds = {}
    for spec in executable.inputs:
        if spec.name == "attention_mask":
            value = mask
        elif spec.name == "token_type_ids":
            value = np.minimum(token_types, facts.table_rows.get(spec.name, 1) - 1)
        elif spec.name in facts.table_rows:
            value = rng.integers(FIRST_TOKEN_ID, facts.table_rows[spec.name], (batch, seq))
        else:
            raise XhipError(f"{facts.name}: no rule draws input {spec.describe()}")
        feeds[spec.name] = np.ascontiguousarray(value, dtype=spec.dtype)
    return feeds


class RowTimeout(Exception):
    pass


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """RowTimeout once `seconds` have passed (raised when the running C call returns)."""

    def expire(signum, frame):
        raise RowTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def measure_row(facts: ModelFacts, executable: Executable, batch: int, seq: object) -> dict[str, object]:
    """One row of the table: run at (batch, seq), check against both references, read the run's report."""
    row: dict[str, object] = {"model": facts.name, "batch": batch, "seq": seq}
    if facts.signal is not None:
        feeds = signal_feeds(executable, batch, str(seq))
    elif facts.position_limit is not None and int(seq) > facts.position_limit:  # type: ignore[call-overload]
        return {**row, "skipped": f"seq {seq} beyond the position table ({facts.position_limit})"}
    else:
        feeds = token_feeds(facts, executable, batch, int(seq))  # type: ignore[call-overload]
    started = time.perf_counter()
    outputs = executable.run(feeds)
    result = check_outputs(outputs, references(facts.path, feeds), executable.backend.name)
    worst, report = result.worst, executable.report
    return {
        **row,
        "passed": result.passed,
        "problems": list(result.problems),
        "err_vs_onnxruntime": result.max_abs_err,
        "err_vs_float64": worst.err_vs_float64 if worst else None,
        "onnxruntime_err_vs_float64": worst.onnxruntime_err_vs_float64 if worst else None,
        "bound": worst.bound if worst else None,
        "within_fixed_tolerance": all(o.within_fixed_tolerance for o in result.outputs),
        "float64_engine": result.float64_engine,
        "pool_bytes": report.pool_bytes,
        "lower_bound_bytes": report.lower_bound_bytes,
        "in_place_lower_bound_bytes": report.in_place_lower_bound_bytes,
        "run_ms": report.run_ms,
        "row_s": time.perf_counter() - started,
    }


def model_rows(path: Path, row_limit_s: int) -> Iterator[dict[str, object]]:
    """Compile once (reference backend, default pipeline), then one row per shape."""
    facts = model_facts(path)
    started = time.perf_counter()
    try:
        executable = xhip.compile(path, backend="reference")
    except XhipError as err:  # one model xhip cannot compile is a failed row, not the end of the table
        yield {"model": facts.name, "batch": None, "seq": None, "passed": False, "error": f"compile: {err}"}
        return
    compile_s = time.perf_counter() - started
    for batch, seq in facts.shapes:
        row = {"model": facts.name, "batch": batch, "seq": seq}
        try:
            with time_limit(row_limit_s):
                row = measure_row(facts, executable, batch, seq)
        except RowTimeout:
            row["skipped"] = f"over {row_limit_s} s"
        except XhipError as err:
            row.update(passed=False, error=str(err))
        gc.collect()
        yield {**row, "compile_s": compile_s}


HEADER = (
    f"{'model':<18} {'shape':>12} {'vs ort32':>9} {'vs f64':>9} {'ort32 f64':>9} {'allowed':>9} {'result':>6} "
    f"{'pool B':>11} {'lower B':>11} {'in-place B':>11} {'row s':>6}"
)


def _g(value: object) -> str:
    return "-" if value is None else f"{value:.2e}"


def _or_dash(value: object) -> object:
    return "-" if value is None else value


def format_row(row: dict[str, object]) -> str:
    shape = "-" if row["batch"] is None else f"{row['batch']}x{row['seq']}"
    if "skipped" in row:
        return f"{row['model']:<18} {shape:>12} skipped: {row['skipped']}"
    if "error" in row:
        return f"{row['model']:<18} {shape:>12} FAIL: {row['error']}"
    verdict = "pass" if row["passed"] else "FAIL"
    return (
        f"{row['model']:<18} {shape:>12} {_g(row['err_vs_onnxruntime']):>9} {_g(row['err_vs_float64']):>9} "
        f"{_g(row['onnxruntime_err_vs_float64']):>9} {_g(row['bound']):>9} {verdict:>6} {row['pool_bytes']:>11} "
        f"{_or_dash(row['lower_bound_bytes']):>11} {_or_dash(row['in_place_lower_bound_bytes']):>11} {row['row_s']:>6.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER, help=f"the exports (default {DEFAULT_FOLDER})")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these models (file stems)")
    parser.add_argument("--row-limit-s", type=int, default=ROW_LIMIT_S, help=f"skip a row running longer (default {ROW_LIMIT_S})")
    parser.add_argument("--json", type=Path, default=RESULTS, help=f"where the rows go (default {RESULTS})")
    args = parser.parse_args(argv)
    paths = sorted(args.folder.glob("*.onnx"))
    if args.only:
        paths = [p for p in paths if p.stem in args.only]
    if not paths:
        parser.error(f"no .onnx exports in {args.folder}" + (f" named {', '.join(args.only)}" if args.only else ""))
    print(HEADER, flush=True)
    rows = []
    for path in paths:
        for row in model_rows(path, args.row_limit_s):
            rows.append(row)
            print(format_row(row), flush=True)
    print(f"\n{HEADER}\n{'-' * len(HEADER)}")
    print("\n".join(map(format_row, rows)))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"shapes": SHAPES, "rows": rows}, indent=1) + "\n")
    print(f"\nwrote {args.json}")
    return 0 if all(row.get("passed", True) for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
