"""Compile time of GPT-2 at 124M width (2, 4, 8, 12 layers) and onnxruntime's session creation on the same files.

    python benchmarks/compile_time.py DIR [--layers 2 4 8 12] [--export-python PY] [--repeat 1]

DIR holds gpt2_124m_<n>layer.onnx (torch.onnx dynamo export, opset 18, dynamic
batch and seq, random weights from transformers' GPT2Config). Missing files are
exported first when `--export-python` names a Python with torch==2.13.0 (the CPU
wheel), transformers and onnxscript: this script runs itself there with
`--export-only`, which needs nothing else. The files are hundreds of MB: keep
DIR outside the repository.

Each compile is a fresh `xhip-opt FILE --pipeline default -o OUT --timing`
process, as a user runs it: the table shows its --timing rows folded into
start-up (interpreter, imports, loading the pipeline), import, passes,
verification and output (print, write, and any wait for the constants file's
checksum, which a thread computes while the passes run), its wall time as the parent saw it,
and its peak RSS (the child's own ru_maxrss, from wait4) against the file's
size, and its CPU seconds (user + system; on a loaded machine the honest
figure beside wall). Children cache their bytecode in a temp folder (as an
installed xhip has it), warmed by one `--list-passes` first. onnxruntime's column is `InferenceSession(FILE)` in a fresh process
(CPU, default options), the import of onnxruntime not counted. Medians of
`--repeat` runs. JSON goes to benchmarks/results/compile_time.json.
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
    from xhip.pass_runner import CHECKSUM_WAIT_ROW  # here: --export-only runs without xhip's dependencies

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


def ort_session_once(path: Path, env: dict[str, str]) -> float:
    output, _ = _timed_child([sys.executable, "-c", ORT_SESSION, str(path)], env)
    return float(output.split()[-1])


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
    row["ort_session"] = statistics.median(ort_session_once(path, env) for _ in range(repeat))
    row["file_bytes"] = path.stat().st_size
    return row


def print_table(results: dict[int, dict[str, float]]) -> None:
    head = "".join(f"{c:>9}" for c in (*COLUMNS, "total", "wall", "cpu"))
    print(f"{'layers':>6} {'file MB':>8}{head} {'RSS MB':>8} {'RSS/file':>8} {'ort s':>7}")
    for layers, row in results.items():
        cells = "".join(f"{row[c]:9.3f}" for c in (*COLUMNS, "table_total", "wall", "cpu"))
        print(
            f"{layers:>6} {row['file_bytes'] / 1e6:8.1f}{cells} {row['peak_rss'] / 1e6:8.1f} "
            f"{row['peak_rss'] / row['file_bytes']:8.2f} {row['ort_session']:7.3f}"
        )
    smallest, largest = min(results), max(results)
    if smallest != largest:
        wall, cpu = (results[largest][key] / results[smallest][key] for key in ("wall", "cpu"))
        print(f"\n{largest} layers / {smallest} layers: wall {wall:.2f}x, cpu {cpu:.2f}x")
    print("seconds; startup = interpreter, imports and loading the pipeline; output = print, write and the")
    print("wait for the constants checksum (hashed while the passes run); cpu = user + system, all threads;")
    print(f"load average during the runs: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="folder of gpt2_124m_<n>layer.onnx files")
    ap.add_argument("--layers", type=int, nargs="+", default=[2, 4, 8, 12])
    ap.add_argument("--repeat", type=int, default=1, help="runs per model (medians)")
    ap.add_argument("--export-python", metavar="PY", help="a Python with torch, transformers, onnxscript")
    ap.add_argument("--export-only", action="store_true", help="export the missing models and stop (run under PY)")
    args = ap.parse_args()
    missing = [n for n in args.layers if not model_path(args.folder, n).exists()]
    if args.export_only:
        export(args.folder, missing)
        return
    if missing and args.export_python:
        subprocess.run(
            [args.export_python, __file__, str(args.folder), "--export-only", "--layers", *map(str, missing)],
            check=True,
        )
    elif missing:
        raise SystemExit(f"missing {', '.join(str(model_path(args.folder, n)) for n in missing)}: see --export-python")
    with tempfile.TemporaryDirectory() as pycache:
        env = child_env(pycache)
        results = {n: measure(model_path(args.folder, n), args.repeat, env) for n in args.layers}
    print_table(results)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({str(n): row for n, row in results.items()}, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
