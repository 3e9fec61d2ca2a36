"""Check every test-set kernel specialization on an NVIDIA GPU against the NumPy
reference kernels.

    python benchmarks/gpu_kernel_check.py bundle [--out DIR]   # here (needs xdsl)
    python benchmarks/gpu_kernel_check.py run [--bundle DIR]   # on the GPU (no xdsl)
    python benchmarks/gpu_kernel_check.py run --emulate        # no GPU: on the CPU (g++)

`bundle` runs every model of the test set on the reference backend and records each
kernel launch: the op, its attributes and scalars, its inputs and the reference
outputs. For each launch it keeps two specializations: the one the launch's own facts
pick (contiguous, vectorized where it can) and the general one the IR alone would pick
(every extent unknown, so strided). It writes the rendered CUDA unit (prelude first),
the ABIs and the cases into DIR (default benchmarks/results/gpu_bundle).

`run` compiles the unit once with NVRTC (cuda-bindings), launches every case of every
specialization on random-free recorded data through the driver API, compares with the
reference outputs and prints a table (and writes DIR/report.json). It computes each
launch's arguments with the op's kernel family (`xhip.kernels.families.launch_values`),
so xhip and xdsl must be installed there too (carry their wheels). Exit 1 on a mismatch.
`run --emulate` runs the same HIP source on the CPU instead (templates/host_emulation.h).

On the lent GPU:  run(command="python benchmarks/gpu_kernel_check.py run",
                      carry=["benchmarks/results/gpu_bundle"])
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUNDLE = ROOT / "benchmarks" / "results" / "gpu_bundle"
FLOAT_TOLERANCE = {"rtol": 2e-4, "atol": 2e-5}


# ---- bundle (needs the compiler) ----------------------------------------------------------


def _recording(backend, cases: list[dict]):
    """The backend with each launcher it loads wrapped so that every launch is recorded
    with its results (the reference backend runs at once: no deferred mode here)."""
    real_load = backend.load

    def load(site, location):
        launcher = real_load(site, location)
        op, attributes = site.facts.op_class.name.removeprefix("hip."), dict(site.facts.props)

        def launch(inputs, outputs, scalars):
            arrays = [np.array(m.array(), order="C", copy=True) for m in inputs]
            launcher(inputs, outputs, scalars)
            cases.append({
                "op": op, "attributes": attributes, "scalars": list(scalars), "inputs": arrays,
                "outputs": [np.array(m.array(), order="C", copy=True) for m in outputs], "location": location,
            })  # fmt: skip

        return launch

    backend.load = load
    return backend


def _unknown(array: np.ndarray, op: str, position: int) -> tuple[int | None, ...]:
    """The shape as the IR of a dynamic model knows it: nothing, except what an op needs
    static (gather_nd's index depth)."""
    if op == "gather_nd" and position == 1:
        return (None,) * (array.ndim - 1) + (array.shape[-1],)
    return (None,) * array.ndim


def bundle(out: Path, models: list[str] | None = None) -> None:
    from xhip.api import compile_stages
    from xhip.dialects import hip
    from xhip.kernels.families import specs_for_launch
    from xhip.kernels.render import render_unit
    from xhip.kernels.spec_types import Operand
    from xhip.runtime import executable
    from xhip.runtime.backends.reference import ReferenceBackend
    from xhip.testing.models import MODELS

    classes = {op.name: op for op in hip.HIP.operations}
    cases: list[dict] = []
    for name in models or MODELS:
        model, feeds = MODELS[name](np.random.default_rng(0))
        *_, (_, module, constants) = compile_stages(model)
        real_make = executable.make_backend
        executable.make_backend = lambda *args, **kwargs: _recording(ReferenceBackend(), cases)
        try:
            exe = executable.Executable(module, constants=constants)
        finally:
            executable.make_backend = real_make
        exe.run(feeds)
    specs, kept = {}, []
    for case in cases:
        op_class = classes[f"hip.{case['op']}"]
        facts = lambda arrays, known: [Operand(a.dtype, a.shape if known else _unknown(a, case["op"], i), True) for i, a in enumerate(arrays)]  # noqa: E731
        chosen = []
        for known in (True, False):
            for spec in specs_for_launch(op_class, case["attributes"], facts(case["inputs"], known), facts(case["outputs"], known)):
                specs.setdefault(spec.name, spec)
            chosen.append([s.name for s in specs_for_launch(op_class, case["attributes"], facts(case["inputs"], known), facts(case["outputs"], known))])
        case.update(specs=chosen)
        kept.append(case)
    out.mkdir(parents=True, exist_ok=True)
    (out / "kernels.cu").write_text(render_unit(specs.values(), "cuda"))
    (out / "kernels.hip").write_text(render_unit(specs.values(), "hip"))
    (out / "abis.pkl").write_bytes(pickle.dumps({n: s.abi for n, s in specs.items()}))
    (out / "cases.pkl").write_bytes(pickle.dumps(kept))
    print(f"bundle: {len(kept)} launches, {len(specs)} specializations -> {out}")


# ---- run (on the GPU) -------------------------------------------------------------------


def _load_kernel_modules():
    from xhip.kernels import emulate, families

    return families, emulate


def _check(result, what: str) -> object:
    err, *rest = result if isinstance(result, tuple) else (result,)
    if int(err) != 0:
        raise RuntimeError(f"{what}: {err}")
    return rest[0] if len(rest) == 1 else rest


def _nvrtc_cubin(source: str) -> bytes:
    import os

    from cuda.bindings import nvrtc

    include = os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include")
    if not Path(include, "cuda_fp16.h").exists():
        include = next(str(p.parent) for p in Path("/usr/local").glob("cuda*/targets/*/include/cuda_fp16.h"))
    program = _check(nvrtc.nvrtcCreateProgram(source.encode(), b"kernels.cu", 0, [], []), "nvrtcCreateProgram")
    options = [b"-arch=sm_90", b"--std=c++17", f"-I{include}".encode()]
    status = nvrtc.nvrtcCompileProgram(program, len(options), options)
    if int(status[0]) != 0:
        size = _check(nvrtc.nvrtcGetProgramLogSize(program), "log size")
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(program, log)
        raise RuntimeError(f"NVRTC failed:\n{log.decode(errors='replace')}")
    size = _check(nvrtc.nvrtcGetCUBINSize(program), "cubin size")
    cubin = b" " * size
    _check(nvrtc.nvrtcGetCUBIN(program, cubin), "cubin")
    return cubin


class CudaDevice:
    """The lent NVIDIA GPU: NVRTC through the prelude, cupy memory, driver-API launches."""

    name = "cuda"

    def __init__(self, directory: Path, abis: dict):
        import cupy as cp
        from cuda.bindings import driver

        self.cp, self.driver, self.abis = cp, driver, abis
        cp.cuda.Device(0).use()
        cp.zeros(1).sum()  # makes cupy's (primary) context current for the driver calls
        cubin = _nvrtc_cubin((directory / "kernels.cu").read_text())
        module = _check(driver.cuModuleLoadData(cubin), "cuModuleLoadData")
        self.functions = {name: _check(driver.cuModuleGetFunction(module, name.encode()), name) for name in abis}

    def upload(self, array: np.ndarray):
        return self.cp.asarray(array)

    def download(self, handle) -> np.ndarray:
        return handle.get()

    def address(self, handle) -> int:
        return int(handle.data.ptr)

    def launch(self, name: str, values) -> None:
        abi = self.abis[name]
        grid = abi.grid(values)
        if grid[0] == 0:
            return
        pointers, _buffer = abi.argument_pointers(abi.pack(values))
        import ctypes

        _check(self.driver.cuLaunchKernel(self.functions[name], *grid, *abi.block_shape(), 0, 0, ctypes.addressof(pointers), 0), name)
        self.cp.cuda.Device(0).synchronize()


class HostDevice:
    """No GPU: the same HIP source compiled for the CPU (xhip/kernels/emulate.py)."""

    name = "host emulation"

    def __init__(self, hip_source: str, abis: dict, emulate):
        self.emulator = emulate.HostEmulator(hip_source, abis.values())

    def upload(self, array: np.ndarray):
        return np.array(array, copy=True)

    def download(self, handle) -> np.ndarray:
        return handle

    def address(self, handle) -> int:
        return handle.ctypes.data

    def launch(self, name: str, values) -> None:
        self.emulator.launch(name, values)


def _poisoned(device, like: np.ndarray):
    """An output buffer filled with what no kernel writes (NaN, -7, 0xFF), so an element
    a kernel forgets fails the comparison."""
    fill = np.nan if like.dtype.kind == "f" else -7 if like.dtype.kind in "iu" else True
    array = np.full(like.shape, fill, like.dtype)
    if like.dtype == np.bool_:
        array.view(np.uint8)[...] = 0xFF
    return device.upload(array)


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    if got.shape != want.shape:
        return False
    if want.dtype.kind == "f":
        return bool(np.allclose(got.astype(np.float64), want.astype(np.float64), equal_nan=True, **FLOAT_TOLERANCE))
    if want.dtype == np.bool_:
        return bool(np.array_equal(got.view(np.uint8), want.view(np.uint8)))
    return bool(np.array_equal(got, want))


def check_case(device, families, case: dict, names: list[str]) -> bool:
    """Runs the kernels `names` of one recorded launch; True when they match the reference."""
    from xhip.kernels.family import View
    from xhip.kernels.reference import OP_CLASSES

    device_in = [device.upload(a) for a in case["inputs"]]
    device_out = [_poisoned(device, o) for o in case["outputs"]]
    status = device.upload(np.zeros(2, np.int64))
    views = [
        [View(device.address(h), h.dtype, tuple(h.shape), tuple(s // h.dtype.itemsize for s in h.strides)) for h in handles]
        for handles in (device_in, device_out)
    ]
    launches = families.launch_values(OP_CLASSES[case["op"]], case["attributes"], case["scalars"], *views)
    for name, values in zip(names, launches, strict=True):
        values.setdefault("status", device.address(status))
        device.launch(name, values)
    got, want = [device.download(h) for h in device_out], case["outputs"]
    if case["op"] == "nonzero":
        count = int(want[1])
        return int(got[1]) == count and np.array_equal(got[0][:, :count], want[0][:, :count])
    return all(_close(g, w) for g, w in zip(got, want)) and int(device.download(status)[0]) == 0


def check_bundle(directory: Path, emulate_on_host: bool) -> dict[str, dict]:
    """Per kernel: the op, how many recorded launches ran it and how many failed."""
    families, emulate = _load_kernel_modules()
    abis = pickle.loads((directory / "abis.pkl").read_bytes())
    cases = pickle.loads((directory / "cases.pkl").read_bytes())
    device = HostDevice((directory / "kernels.hip").read_text(), abis, emulate) if emulate_on_host else CudaDevice(directory, abis)
    rows: dict[str, dict] = {}
    for case in cases:
        for names in case["specs"]:
            ok = check_case(device, families, case, names)
            for name in dict.fromkeys(names):
                row = rows.setdefault(name, {"op": case["op"], "launches": 0, "failures": 0})
                row["launches"] += 1
                if not ok:
                    row["failures"] += 1
                    row.setdefault("first_failure", case["location"])
    return rows


def run(directory: Path, emulate_on_host: bool) -> int:
    import time

    start = time.perf_counter()
    rows = check_bundle(directory, emulate_on_host)
    failing = sum(r["failures"] > 0 for r in rows.values())
    width = max(len(n) for n in rows)
    print(f"{'kernel':<{width}}  {'op':<14} launches  result")
    for name, row in sorted(rows.items()):
        result = "ok" if not row["failures"] else f"FAIL x{row['failures']} ({row.get('first_failure')})"
        print(f"{name:<{width}}  {row['op']:<14} {row['launches']:>8}  {result}")
    where = "host emulation" if emulate_on_host else "cuda (NVRTC, sm_90)"
    print(f"gpu_kernel_check [{where}]: {len(rows)} specializations, {sum(r['launches'] for r in rows.values())} launches, {failing} failing, {time.perf_counter() - start:.1f} s")
    (directory / "report.json").write_text(json.dumps({"where": where, "kernels": rows}, indent=2) + "\n")
    return 1 if failing else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bundle", help="record the test-set launches and render their kernels (needs xhip's compiler)")
    b.add_argument("--out", type=Path, default=DEFAULT_BUNDLE, help=f"bundle directory (default {DEFAULT_BUNDLE.relative_to(ROOT)})")
    b.add_argument("--models", nargs="+", metavar="NAME", help="only these models of xhip.testing.models (default: all)")
    r = sub.add_parser("run", help="compile with NVRTC, launch on the GPU, compare with the reference outputs")
    r.add_argument("--bundle", type=Path, default=DEFAULT_BUNDLE, help="the directory `bundle` wrote")
    r.add_argument("--emulate", action="store_true", help="no GPU: run the kernels on the CPU through templates/host_emulation.h (g++)")
    args = ap.parse_args(argv)
    if args.command == "bundle":
        bundle(args.out, args.models)
        return 0
    return run(args.bundle, args.emulate)


if __name__ == "__main__":
    sys.exit(main())
