"""Compile time of xhip-opt next to onnxruntime's session creation, on the same files.

    python benchmarks/compile_time.py [--gpt2 DIR [--layers 2 4 8 12] [--export-python PY]]
                                      [--no-small] [--repeat 5]

Models: the small ones every user meets first, always (the seed attention model
examples/attention.onnx, each model of the test set, xhip/testing/models.py, and the
transformer stack of xhip/testing/transformer_stack.py at 2 and 12 layers, written to a
temp folder); with `--gpt2 DIR`, GPT-2 at 124M width, DIR/gpt2_124m_<n>layer.onnx
(torch.onnx dynamo export, opset 18, dynamic batch and seq, random weights from
transformers' GPT2Config). Missing GPT-2 files are exported first when `--export-python`
names a Python with torch==2.13.0 (the CPU wheel), transformers and onnxscript: this
script runs itself there with `--export-only`, which needs nothing else. The files are
hundreds of MB: keep DIR outside the repository.

Each compile is a fresh `xhip-opt FILE --pipeline default -o OUT --timing`
process, as a user runs it (a cold process: nothing of an earlier one is loaded): the
table shows its --timing rows folded into
start-up (interpreter, imports, loading the pipeline), import, passes,
verification and output (print, write, and any wait for the constants file's
checksum, which a thread computes while the passes run), its wall time as the parent saw it,
and its peak RSS (the child's own ru_maxrss, from wait4) against the file's
size, and its CPU seconds (user + system; on a loaded machine the honest
figure beside wall). Children cache their bytecode in a temp folder (as an
installed xhip has it), warmed by one `--list-passes` first. onnxruntime, also one
fresh process per run: `ort session` is `InferenceSession(FILE)` (CPU, default
options) alone, `ort process` the wall time of that whole process as the parent saw
it (interpreter, `import onnxruntime`, the session): what `xhip-opt`'s wall compares
with as a command. Medians of `--repeat` runs. JSON goes to
benchmarks/results/compile_time.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "compile_time.json"
REPO = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\s*(?P<ms>\d+\.\d\d)\s+-?\d+\.\d\s+(?P<name>.+)$")
ORT_SESSION = """\
import sys, time
import onnxruntime
start = time.perf_counter()
onnxruntime.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
print(time.perf_counter() - start)
"""
COLUMNS = ("startup", "import", "passes", "verify", "output", "other")


def model_path(folder: Path, layers: int) -> Path:
    return folder / f"gpt2_124m_{layers}layer.onnx"


STACK_LAYERS = (2, 12)
"""Layer counts of the transformer stack rows."""


def small_models(folder: Path) -> dict[str, Path]:
    """The seed attention model, the test set and the transformer stacks, as files in `folder`,
    written by a child process: a parent that imported onnx and xhip would be the RSS every
    later child's peak starts from (a fork's pages count until its exec)."""
    output, _ = _timed_child([sys.executable, __file__, "--write-small", str(folder)], dict(os.environ))
    return {name: Path(path) for name, path in json.loads(output.splitlines()[-1]).items()}


def write_small_models(folder: Path) -> dict[str, str]:
    import numpy as np
    import onnx

    sys.path.insert(0, str(REPO))
    from xhip.testing.models import MODELS
    from xhip.testing.transformer_stack import transformer_stack_model

    paths = {"seed attention": REPO / "examples" / "attention.onnx"}
    for name, case in MODELS.items():
        model, _ = case(np.random.default_rng(0))
        paths[f"test set: {name}"] = folder / f"{name}.onnx"
        onnx.save(model, paths[f"test set: {name}"])
    for layers in STACK_LAYERS:
        path = paths[f"transformer stack {layers}L"] = folder / f"stack_{layers}layer.onnx"
        onnx.save(transformer_stack_model(layers), path)
    return {name: str(path) for name, path in paths.items()}


def export(folder: Path, layers: list[int]) -> None:
    """Export GPT-2 124M-width models (runs under the export venv: torch, transformers, onnxscript)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    class LogitsOnly(torch.nn.Module):
        def __init__(self, model: torch.nn.Module):
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
            return self.model(input_ids=input_ids, use_cache=False).logits

    folder.mkdir(parents=True, exist_ok=True)
    for n in layers:
        torch.manual_seed(0)
        config = GPT2Config(n_layer=n)
        model = LogitsOnly(GPT2LMHeadModel(config).eval()).eval()
        example = torch.randint(0, config.vocab_size, (2, 16), dtype=torch.int64)
        batch, seq = torch.export.Dim("batch", min=1, max=64), torch.export.Dim("seq", min=2, max=1024)
        program = torch.onnx.export(
            model, (example,), dynamo=True, opset_version=18, input_names=["input_ids"],
            output_names=["logits"], dynamic_shapes={"input_ids": {0: batch, 1: seq}}, external_data=False,
        )
        program.save(str(model_path(folder, n)))
        print(f"exported {model_path(folder, n)}", flush=True)


def _timed_child(argv: list[str], env: dict[str, str]) -> tuple[str, dict[str, float]]:
    """stdout + stderr of one child process, and its wall seconds, CPU seconds and peak RSS bytes."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{output}")
    return output, {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_rss": usage.ru_maxrss * 1024}


def _column(name: str) -> str:
    from xhip.timing import CHECKSUM_WAIT_ROW  # here: --export-only runs without xhip (stdlib only, so the parent stays lean)

    if name.startswith("startup") or name == "load pipeline":
        return "startup"
    if name.startswith("verify"):
        return "verify"
    if name in ("print", "write output", CHECKSUM_WAIT_ROW):
        return "output"
    if name in ("import", "other"):
        return name
    return "passes"


def compile_once(path: Path, out_dir: str, env: dict[str, str]) -> dict[str, float]:
    """Seconds per column of one xhip-opt process, its wall and CPU time and peak RSS."""
    argv = [sys.executable, "-m", "xhip.tools.opt", str(path), "--pipeline", "default",
            "-o", os.path.join(out_dir, "out.mlir"), "--timing"]
    output, usage = _timed_child(argv, env)
    seconds = dict.fromkeys(COLUMNS, 0.0)
    for line in output.splitlines():
        row = ROW.match(line)
        if row and not row["name"].startswith("total"):
            seconds[_column(row["name"])] += float(row["ms"]) / 1e3
        elif row:
            seconds["table_total"] = float(row["ms"]) / 1e3
    return {**seconds, **usage}


def ort_session_once(path: Path, env: dict[str, str]) -> tuple[float, float]:
    """Seconds of onnxruntime's session creation, and of its whole fresh process."""
    output, usage = _timed_child([sys.executable, "-c", ORT_SESSION, str(path)], env)
    return float(output.split()[-1]), usage["wall"]


def child_env(pycache: str) -> dict[str, str]:
    """This environment, with bytecode cached under `pycache` (warmed once)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    subprocess.run([sys.executable, "-m", "xhip.tools.opt", "--list-passes"], env=env, check=True, capture_output=True)
    return env


def measure(path: Path, repeat: int, env: dict[str, str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as out_dir:
        runs = [compile_once(path, out_dir, env) for _ in range(repeat)]
    row = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    sessions = [ort_session_once(path, env) for _ in range(repeat)]
    row["ort_session"] = statistics.median(session for session, _ in sessions)
    row["ort_process"] = statistics.median(process for _, process in sessions)
    row["file_bytes"] = path.stat().st_size
    return row


def print_table(results: dict[str, dict[str, float]]) -> None:
    head = "".join(f"{c:>8}" for c in (*COLUMNS, "total", "wall", "cpu"))
    print(f"{'model':<28} {'file MB':>8}{head} {'RSS MB':>7} {'ort session':>11} {'ort process':>11} {'wall/session':>12} {'wall/process':>12}")
    for name, row in results.items():
        cells = "".join(f"{row[c]:8.3f}" for c in (*COLUMNS, "table_total", "wall", "cpu"))
        print(
            f"{name:<28} {row['file_bytes'] / 1e6:8.2f}{cells} {row['peak_rss'] / 1e6:7.1f} "
            f"{row['ort_session']:11.3f} {row['ort_process']:11.3f} "
            f"{row['wall'] / row['ort_session']:12.1f} {row['wall'] / row['ort_process']:12.2f}"
        )
    print("seconds, medians; startup = interpreter, imports and loading the pipeline; output = print, write and")
    print("the wait for the constants checksum (hashed while the passes run); cpu = user + system, all threads;")
    print("wall/session and wall/process: xhip-opt's wall over onnxruntime's session creation, and over its whole process")
    print(f"load average during the runs: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpt2", type=Path, metavar="DIR", help="folder of gpt2_124m_<n>layer.onnx files (the GPT-2 rows)")
    ap.add_argument("--layers", type=int, nargs="+", default=[2, 4, 8, 12], help="GPT-2 layer counts (with --gpt2)")
    ap.add_argument("--no-small", action="store_true", help="leave out the small models (attention, test set, stacks)")
    ap.add_argument("--repeat", type=int, default=5, help="runs per model (medians)")
    ap.add_argument("--export-python", metavar="PY", help="a Python with torch, transformers, onnxscript")
    ap.add_argument("--export-only", action="store_true", help="export the missing GPT-2 models and stop (run under PY)")
    ap.add_argument("--write-small", type=Path, metavar="DIR", help=argparse.SUPPRESS)  # small_models' child
    args = ap.parse_args()
    if args.write_small is not None:
        print(json.dumps(write_small_models(args.write_small)))
        return
    if args.export_only:
        if args.gpt2 is None:
            raise SystemExit("--export-only needs --gpt2 DIR")
        export(args.gpt2, [n for n in args.layers if not model_path(args.gpt2, n).exists()])
        return
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as pycache:
        paths = {} if args.no_small else small_models(Path(folder))
        if args.gpt2 is not None:
            missing = [n for n in args.layers if not model_path(args.gpt2, n).exists()]
            if missing and args.export_python:
                subprocess.run(
                    [args.export_python, __file__, "--gpt2", str(args.gpt2), "--export-only", "--layers", *map(str, missing)],
                    check=True,
                )
            elif missing:
                raise SystemExit(f"missing {', '.join(str(model_path(args.gpt2, n)) for n in missing)}: see --export-python")
            paths.update({f"GPT-2 124M width {n}L": model_path(args.gpt2, n) for n in args.layers})
        if not paths:
            raise SystemExit("no models: drop --no-small or give --gpt2 DIR")
        env = child_env(pycache)
        results = {}
        for name, path in paths.items():
            results[name] = measure(path, args.repeat, env)
            print(f"{name}: xhip-opt {results[name]['wall']:.3f} s, onnxruntime session {results[name]['ort_session']:.3f} s", flush=True)
    print_table(results)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
