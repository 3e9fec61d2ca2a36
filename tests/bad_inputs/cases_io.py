"""Run-time inputs (feeds: --inputs, --shape) and file paths (missing folder, read-only, directory,
symlink, FIFO, device, /dev/null) for the model, the IR output and the run's outputs."""

from __future__ import annotations

import numpy as np

from bad_inputs import Case, Directory, Fifo, NullDevice, Symlink
from bad_inputs import models as m
from bad_inputs.cases_text import DEFAULT_YAML
from bad_inputs.models import F, RELU_MLIR, value
from onnx import TensorProto, helper

RELU = m.relu()
TWO_INPUTS = m.add_two(["n"], ["n"])
MIXED = m.model_bytes(
    [helper.make_node("Cast", ["i"], ["f"], name="c", to=F), helper.make_node("Add", ["x", "f"], ["y"], name="a")],
    [value("x", F, ["n"]), value("i", TensorProto.INT64, ["n"])], [value("y", F, None)],
)
RUN = ("xhip-run", "m.onnx")


def bad_feed(case_id: str, flags: tuple[str, ...], stderr: str, files=None, model: bytes = RELU) -> Case:
    return Case(case_id, "feeds", (*RUN, *flags), {"m.onnx": model, **(files or {})}, stderr=stderr)


def good_feed(case_id: str, flags: tuple[str, ...], files=None, model: bytes = RELU) -> Case:
    return Case(case_id, "feeds", (*RUN, *flags), {"m.onnx": model, **(files or {})}, exit_code=0)


GOOD_NPZ = m.npz(x=m.floats(3))
FEEDS = [
    bad_feed("feeds-inputs-missing-file", ("--inputs", "absent.npz"), r"absent\.npz"),
    bad_feed("feeds-inputs-truncated-npz", ("--inputs", "in.npz"), r"in\.npz: error: ", {"in.npz": GOOD_NPZ[: len(GOOD_NPZ) // 2]}),
    bad_feed("feeds-inputs-text-file", ("--inputs", "in.npz"), r"in\.npz: error: (?!.*allow_pickle)", {"in.npz": "x = 1, 2, 3\n"}),
    bad_feed("feeds-inputs-empty-file", ("--inputs", "in.npz"), r"in\.npz: error: ", {"in.npz": b""}),
    bad_feed("feeds-inputs-directory", ("--inputs", "in.npz"), r"in\.npz", {"in.npz/x": "x"}),
    bad_feed("feeds-inputs-dev-null", ("--inputs", "/dev/null"), r"/dev/null"),
    bad_feed("feeds-inputs-object-array", ("--inputs", "in.npz"), r"in\.npz: error: (?!.*allow_pickle)",
             {"in.npz": lambda: m.npz(x=np.array([{"a": 1}], dtype=object))}),
    bad_feed("feeds-npz-missing-input", ("--inputs", "in.npz"), r"missing input 'x'", {"in.npz": m.npz(z=m.floats(3))}),
    bad_feed("feeds-npz-extra-input", ("--inputs", "in.npz"), r"unexpected input 'z'", {"in.npz": m.npz(x=m.floats(3), z=m.floats(3))}),
    bad_feed("feeds-npz-wrong-dtype", ("--inputs", "in.npz"), r"'x'.*dtype", {"in.npz": m.npz(x=np.arange(3))}),
    bad_feed("feeds-npz-wrong-rank", ("--inputs", "in.npz"), r"'x'.*rank", {"in.npz": m.npz(x=m.floats(2, 3))}),
    bad_feed("feeds-npz-symbol-conflict", ("--inputs", "in.npz"), r"'b'|'a'", {"in.npz": m.npz(a=m.floats(3), b=m.floats(4))}, model=TWO_INPUTS),
    bad_feed("feeds-shape-no-equals", ("--shape", "x"), r"--shape 'x'"),
    bad_feed("feeds-shape-not-int", ("--shape", "x=a"), r"--shape 'x=a'"),
    bad_feed("feeds-shape-negative", ("--shape", "x=-1"), r"negative"),
    bad_feed("feeds-shape-unknown-input", ("--shape", "x=3", "--shape", "q=3"), r"'q'"),
    bad_feed("feeds-shape-wrong-rank", ("--shape", "x=2x3x4"), r"--shape x=2x3x4"),
    bad_feed("feeds-shape-missing", (), r"dynamic dim.*--shape x="),
    bad_feed("feeds-shape-symbol-conflict", ("--shape", "a=3", "--shape", "b=4"), r"'b'|'a'", model=TWO_INPUTS),
    bad_feed("feeds-shape-too-big-for-memory", ("--shape", "x=1099511627776"), r"x|memory"),
    Case("feeds-check-needs-onnx", "feeds", ("xhip-run", "m.mlir", "--shape", "x=3", "--check"), {"m.mlir": RELU_MLIR}, stderr=r"--check needs an \.onnx"),
    bad_feed("feeds-seed-not-int", ("--shape", "x=3", "--seed", "one"), r"--seed"),
    bad_feed("feeds-unknown-backend", ("--shape", "x=3", "--backend", "tpu"), r"tpu"),
    bad_feed("feeds-reshape-count-mismatch", ("--shape", "x=7"), r"rs", model=m.reshape_to_fives()),
    bad_feed("feeds-check-onnxruntime-refuses", ("--shape", "x=7", "--check"), r"rs", model=m.reshape_to_fives()),
    Case("feeds-sanitize-says-clean", "feeds", (*RUN, "--shape", "x=3", "--sanitize"), {"m.onnx": RELU}, exit_code=0,
         stdout=r"sanitizer: clean"),
    Case("feeds-run-version", "feeds", ("xhip-run", "--version"), exit_code=0, stdout=r"xhip-run \S+"),
    good_feed("feeds-zero-extent", ("--shape", "x=0", "--check")),
    good_feed("feeds-one-extent", ("--shape", "x=1", "--check", "--sanitize")),
    good_feed("feeds-npz-valid", ("--inputs", "in.npz", "--check"), {"in.npz": GOOD_NPZ}),
    good_feed("feeds-int-input-random", ("--shape", "x=4", "--shape", "i=4", "--check"), model=MIXED),
]

OPT = ("xhip-opt", "m.onnx", "-p", "hip-add-context-arg", "-o")


def out_case(case_id: str, target: str, files, exit_code: int = 0, stderr: str = "", produces=(), kinds=None, **kw) -> Case:
    return Case(case_id, "paths", (*OPT, target), {"m.onnx": RELU, **files}, exit_code=exit_code, stderr=stderr,
                produces=tuple(produces), kinds=kinds or {}, **kw)


SHAPE = ("--shape", "x=3")
PATHS = [
    out_case("paths-o-new-file", "out.mlir", {}, produces=["out.mlir"], kinds={"out.mlir": "file"}),
    out_case("paths-o-replaces-file", "out.mlir", {"out.mlir": "old\n"}, kinds={"out.mlir": "file"}),
    out_case("paths-o-missing-folder", "nowhere/out.mlir", {}, exit_code=1, stderr=r"nowhere/out\.mlir"),
    out_case("paths-o-is-directory", "outdir", {"outdir/keep": "k"}, exit_code=1, stderr=r"outdir.*directory"),
    out_case("paths-o-read-only-folder", "ro/out.mlir", {"ro": Directory(0o555)}, exit_code=1, stderr=r"ro/out\.mlir", needs_non_root=True),
    out_case("paths-o-symlink-to-file", "link.mlir", {"real.mlir": "old\n", "link.mlir": Symlink("real.mlir")},
             kinds={"link.mlir": "symlink", "real.mlir": "file"}),
    out_case("paths-o-dangling-symlink", "link.mlir", {"link.mlir": Symlink("made.mlir")}, produces=["made.mlir"],
             kinds={"link.mlir": "symlink", "made.mlir": "file"}),
    out_case("paths-o-fifo", "pipe", {"pipe": Fifo()}, kinds={"pipe": "fifo"}),
    out_case("paths-o-null-device", "null", {"null": NullDevice()}, kinds={"null": "chardev"}),
    out_case("paths-o-same-as-input", "m.mlir", {"m.mlir": RELU_MLIR}),
    Case("paths-input-missing", "paths", ("xhip-opt", "absent.onnx"), stderr=r"absent\.onnx.*no such file"),
    Case("paths-input-mlir-missing", "paths", ("xhip-opt", "absent.mlir"), stderr=r"absent\.mlir"),
    Case("paths-input-directory", "paths", ("xhip-opt", "d.onnx"), {"d.onnx/x": "x"}, stderr=r"d\.onnx.*directory"),
    Case("paths-input-symlink", "paths", ("xhip-opt", "link.onnx", "-p", "hip-add-context-arg"),
         {"m.onnx": RELU, "link.onnx": Symlink("m.onnx")}, exit_code=0),
    Case("paths-input-dangling-symlink", "paths", ("xhip-opt", "link.onnx"), {"link.onnx": Symlink("gone.onnx")}, stderr=r"link\.onnx"),
    Case("paths-input-dev-null", "paths", ("xhip-opt", "/dev/null", "-p", "hip-add-context-arg"), stderr=r"/dev/null:1:1: error"),
    Case("paths-run-input-dev-null", "paths", ("xhip-run", "/dev/null"), stderr=r"/dev/null"),
    Case("paths-run-model-missing", "paths", ("xhip-run", "absent.onnx"), stderr=r"absent\.onnx"),
    Case("paths-run-save-outputs-exact-name", "paths", (*RUN, *SHAPE, "--save-outputs", "x.bin"), {"m.onnx": RELU},
         exit_code=0, produces=("x.bin",)),
    Case("paths-run-report-and-outputs", "paths", (*RUN, *SHAPE, "--report", "r.json", "--save-outputs", "o.npz"), {"m.onnx": RELU},
         exit_code=0, produces=("r.json", "o.npz")),
    Case("paths-run-report-missing-folder", "paths", (*RUN, *SHAPE, "--report", "no/r.json"), {"m.onnx": RELU}, stderr=r"no/r\.json"),
    Case("paths-run-report-is-directory", "paths", (*RUN, *SHAPE, "--report", "rdir"), {"m.onnx": RELU, "rdir/k": "k"}, stderr=r"rdir"),
    Case("paths-run-save-outputs-missing-folder", "paths", (*RUN, *SHAPE, "--report", "r.json", "--save-outputs", "no/o.npz"),
         {"m.onnx": RELU}, stderr=r"no/o\.npz"),
    Case("paths-run-report-null-device", "paths", (*RUN, *SHAPE, "--report", "null"), {"m.onnx": RELU, "null": NullDevice()},
         exit_code=0, kinds={"null": "chardev"}),
    Case("paths-opt-constants-beside-output", "paths",
         ("xhip-opt", "m.onnx", "--pipeline", "default", "-o", "sub/out.mlir"), {"m.onnx": m.with_big_constant(), "sub": Directory()},
         exit_code=0, produces=("sub/out.mlir", "sub/out.constants.bin")),
    Case("paths-opt-failed-output-leaves-no-constants", "paths",
         ("xhip-opt", "m.onnx", "--pipeline", DEFAULT_YAML, "-o", "no/out.mlir"),
         {"m.onnx": m.with_big_constant()}, stderr=r"no/out\.mlir"),
    Case("paths-run-leaves-no-temp-folder", "paths", (*RUN, *SHAPE), {"m.onnx": m.with_big_constant(4)}, exit_code=0,
         no_temp_left=True),
    Case("paths-opt-leaves-no-temp-folder", "paths", (*OPT, "out.mlir"), {"m.onnx": RELU}, exit_code=0,
         produces=("out.mlir",), no_temp_left=True),
    Case("paths-opt-pipeline-by-name", "paths", ("xhip-opt", "m.mlir", "--pipeline", "default", "-o", "out.mlir"),
         {"m.mlir": RELU_MLIR}, exit_code=0, produces=("out.mlir",)),
    Case("paths-run-artifact-runs-as-is", "paths", ("xhip-run", "out.mlir", *SHAPE), {"out.mlir": RELU_MLIR}, exit_code=0),
]

CASES = FEEDS + PATHS
