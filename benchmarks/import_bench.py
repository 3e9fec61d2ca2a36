"""Import benchmark: a 500-node model with ~100 MB of float weights.

    python benchmarks/import_bench.py [--layers 100] [--width 512] [--json PATH]

Builds the model in a temporary directory (weights embedded, and a copy with external
data), imports it in fresh child processes, and prints one row per way of importing:

- `proto`: `import_model(model)` on a ModelProto already in memory;
- `path`: `import_model(path)` on a file with embedded weights (the importer maps the
  file and reads each weight once: xhip/onnx_wire.py);
- `path+external`: `import_model(path)` for a model whose weights sit in a side file;
- `onnx.load only`: no import, just `onnx.load(path)`, for reference: reading the
  file and parsing the protobuf peaks at 2x the weights, which is why the importer
  does not use it.

Time is the median of 3 imports in one process. Memory is measured as resident set
size (RSS, from /proc/self/status): the child records VmRSS, resets the peak
(VmHWM, via /proc/self/clear_refs), runs the first import and reports VmHWM minus the
baseline, so it counts everything the import allocates, C++ shape inference and the
protobuf included. A second column gives the Python-heap peak from tracemalloc, which
misses native allocations. Each child first imports a one-node model, so one-time
library setup (onnx's schema registry, ...) is not counted. Targets: under 5 s, and
under 2x the weight bytes of extra memory.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

NODES_PER_LAYER = 5
MODES = ("proto", "path", "path+external", "onnx.load only")
RESULTS = Path(__file__).resolve().parent / "results" / "import_bench.json"


def build_model(layers: int, width: int) -> onnx.ModelProto:
    """`layers` residual blocks: MatMul, Add bias, Relu, Add residual, Mul by a scale."""
    rng = np.random.default_rng(0)
    nodes, inits = [], [numpy_helper.from_array(np.array(0.5, np.float32), "scale")]
    x = "x"
    for i in range(layers):
        inits.append(numpy_helper.from_array(rng.standard_normal((width, width), np.float32) * 0.05, f"w{i}"))
        inits.append(numpy_helper.from_array(rng.standard_normal(width, np.float32), f"b{i}"))
        nodes += [
            helper.make_node("MatMul", [x, f"w{i}"], [f"mm{i}"], name=f"matmul_{i}"),
            helper.make_node("Add", [f"mm{i}", f"b{i}"], [f"bias{i}"], name=f"bias_{i}"),
            helper.make_node("Relu", [f"bias{i}"], [f"relu{i}"], name=f"relu_{i}"),
            helper.make_node("Add", [f"relu{i}", x], [f"res{i}"], name=f"residual_{i}"),
            helper.make_node("Mul", [f"res{i}", "scale"], [f"out{i}"], name=f"scale_{i}"),
        ]
        x = f"out{i}"
    graph = helper.make_graph(
        nodes,
        "import_bench",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", width])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def weight_bytes(model: onnx.ModelProto) -> int:
    return sum(len(t.raw_data) for t in model.graph.initializer)


# ---------------------------------------------------------------------------------
# Child process: one mode, fresh memory
# ---------------------------------------------------------------------------------


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak_rss() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def child(mode: str, path: str) -> dict[str, float]:
    from xhip.importer import import_model as xhip_import

    def load_input():
        return onnx.load(path) if mode == "proto" else path

    def import_model(source):
        return onnx.load(source) if mode == "onnx.load only" else xhip_import(source)

    # One tiny import first: onnx's schema registry and other one-time setup are not
    # part of what importing this model costs.
    xhip_import(build_model(1, 8))
    source = load_input()
    gc.collect()
    baseline = _status_kib("VmRSS")
    _reset_peak_rss()
    start = time.perf_counter()
    module = import_model(source)
    times = [time.perf_counter() - start]
    peak_extra = (_status_kib("VmHWM") - baseline) * 1024
    ops = sum(1 for _ in module.walk()) if mode != "onnx.load only" else 0
    del module
    gc.collect()
    for _ in range(2):
        start = time.perf_counter()
        module = import_model(source)
        times.append(time.perf_counter() - start)
        del module
        gc.collect()
    tracemalloc.start()
    import_model(source)
    _, heap_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"seconds": statistics.median(times), "rss_peak_extra": peak_extra, "heap_peak": heap_peak, "ops": ops}


# ---------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------


def run_child(mode: str, path: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(path)], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=100, help=f"residual blocks ({NODES_PER_LAYER} nodes each)")
    ap.add_argument("--width", type=int, default=512, help="hidden size (a weight is width x width floats)")
    ap.add_argument("--json", type=Path, default=RESULTS)
    ap.add_argument("--child", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return

    model = build_model(args.layers, args.width)
    nodes, weights = len(model.graph.node), weight_bytes(model)
    rows = []
    with tempfile.TemporaryDirectory(prefix="xhip-import-bench-") as tmp:
        embedded, external = Path(tmp) / "model.onnx", Path(tmp) / "external" / "model.onnx"
        external.parent.mkdir()
        onnx.save(model, embedded)
        onnx.save(model, external, save_as_external_data=True, location="weights.bin")
        del model
        for mode in MODES:
            result = run_child(mode, external if mode == "path+external" else embedded)
            rows.append({"mode": mode, "nodes": nodes, "initializer_mb": weights / 1e6, **result})

    header = f"{'mode':<14} {'nodes':>6} {'ops':>6} {'init MB':>8} {'import s':>9} {'RSS peak MB':>12} {'x init':>7} {'heap peak MB':>13} {'x init':>7}"
    print(header)
    print("-" * len(header))
    for r in rows:
        r["rss_ratio"] = r["rss_peak_extra"] / weights
        r["heap_ratio"] = r["heap_peak"] / weights
        print(
            f"{r['mode']:<14} {r['nodes']:>6} {r['ops'] or '-':>6} {r['initializer_mb']:>8.1f} {r['seconds']:>9.2f} "
            f"{r['rss_peak_extra'] / 1e6:>12.1f} {r['rss_ratio']:>7.2f} {r['heap_peak'] / 1e6:>13.1f} {r['heap_ratio']:>7.2f}"
        )
    print("time: median of 3 imports; RSS: VmHWM - VmRSS around the first import; heap: tracemalloc peak")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    meta = {"layers": args.layers, "width": args.width, "memory": "RSS (VmHWM reset via /proc/self/clear_refs)"}
    args.json.write_text(json.dumps({"config": meta, "rows": rows}, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
