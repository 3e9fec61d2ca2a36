"""A repeated shape reuses what its launches prepared: views hand back last run's memrefs,
and a launcher fed the same operands re-queues its packed arguments without recomputing
them. What reaches the driver must be exactly what a fresh preparation gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xhip
from xhip.kernels.abi import GemmCall
from xhip.runtime.backends.gpu.backend import GpuBackend
from xhip.testing.null_driver import NullDriver
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


class RecordingDriver(NullDriver):
    """The no-op driver, keeping what every launch and GEMM was given."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[object] = []

    def launch(self, function, grid, block, shared_bytes, args) -> None:  # type: ignore[no-untyped-def]
        super().launch(function, grid, block, shared_bytes, args)
        self.log.append((function, grid, block, args.storage.raw))

    def prepare_call(self, call):  # type: ignore[no-untyped-def]
        run = super().prepare_call(call)

        def logged(a: int, b: int, c: int) -> None:
            self.log.append(call._replace(a=a, b=b, c=c))
            run(a, b, c)

        return logged


def _ids(batch: int, seq: int) -> np.ndarray:
    return np.random.default_rng(batch * 100 + seq).integers(0, 256, (batch, seq)).astype(np.int64)


def _logged_run(exe, driver: RecordingDriver, feeds) -> list[object]:
    """What the run gave the driver, the address of its output (a fresh buffer per run) written 'OUT'."""
    driver.log.clear()
    outputs = exe.run(feeds, on_device=True)
    fresh = {array.memref(exe.backend).address for array in outputs.values()}
    logged = []
    for entry in driver.log:
        if isinstance(entry, GemmCall):
            entry = entry._replace(**{f: "OUT" for f in ("a", "b", "c") if getattr(entry, f) in fresh})
        else:
            function, grid, block, raw = entry  # type: ignore[misc]
            for address in fresh:
                raw = raw.replace(address.to_bytes(8, "little"), b"OUT-ADDR")
            entry = (function, grid, block, raw)
        logged.append(entry)
    return logged


def test_a_repeated_shape_launches_what_a_fresh_preparation_launches():
    driver = RecordingDriver()
    exe = xhip.compile(EXAMPLES / "gpt2_2layer.onnx", backend=GpuBackend(driver), graphs=False)
    big, small = ({"input_ids": exe.to_device(_ids(*shape), "input_ids")} for shape in ((2, 24), (1, 9)))
    first = _logged_run(exe, driver, big)  # every launcher prepares
    again = _logged_run(exe, driver, big)  # every launcher re-queues what it prepared
    _logged_run(exe, driver, small)  # other operands: every launcher prepares anew
    after_other = _logged_run(exe, driver, big)
    assert len(first) == exe.report.kernel_launches > 20
    assert again == first
    assert after_other == first
    # A form that launches one kernel several times (a concat's pieces, copies) gives each
    # launch values of its own: the same kernel twice in a row never has the same arguments.
    kernels = [entry for entry in first if not isinstance(entry, GemmCall)]
    back_to_back = [(a, b) for a, b in zip(kernels, kernels[1:]) if a[0] == b[0]]  # type: ignore[index]
    assert back_to_back and all(a != b for a, b in back_to_back)


def test_same_shape_other_input_array_launches_on_that_array():
    """Operands are recognised by identity, not by shape: another array of the same shape
    is another operand, and the launches that read it are prepared anew."""
    driver = RecordingDriver()
    exe = xhip.compile(EXAMPLES / "gpt2_2layer.onnx", backend=GpuBackend(driver), graphs=False)
    x, y, other = ({"input_ids": exe.to_device(_ids(*shape), "input_ids")} for shape in ((2, 24), (2, 24), (1, 9)))
    _logged_run(exe, driver, x)
    y_after_x = _logged_run(exe, driver, y)
    _logged_run(exe, driver, other)
    y_after_other = _logged_run(exe, driver, y)
    assert y_after_x == y_after_other
    address = y["input_ids"].memref(exe.backend).address.to_bytes(8, "little")
    assert address in y_after_x[0][3]  # the embedding gather reads y


def test_reference_outputs_at_alternating_shapes_equal_fresh_runs():
    model = EXAMPLES / "gpt2_2layer.onnx"
    exe = xhip.compile(model, backend="reference", graphs=False)
    shapes = [(2, 24), (1, 9), (2, 24), (3, 5), (1, 9)]
    for shape in shapes:
        fresh = xhip.compile(model, backend="reference", graphs=False).run({"input_ids": _ids(*shape)})
        got = exe.run({"input_ids": _ids(*shape)})
        for name, value in fresh.items():
            np.testing.assert_array_equal(got[name], value, err_msg=f"{name} at {shape}")


def test_shape_class_plans_launch_what_computed_values_launch():
    """Launchers of equal sites share plans by shape class (`launch_plans`): what reaches the
    driver is what every launch computing its own values gives, at every shape, run after run."""
    from xhip.runtime.backends.gpu.kernels import KernelLibrary

    logs = {}
    for share in (False, True):
        driver = RecordingDriver()
        library = KernelLibrary.for_driver(driver)
        library.plan_sites = 1 if share else None  # every site planned, or none
        # Interpreted runs are what plans serve: no class traced at compile time takes them.
        exe = xhip.compile(EXAMPLES / "gpt2_2layer.onnx", backend=GpuBackend(driver), graphs=False, trace_ahead=False)
        feeds = [{"input_ids": exe.to_device(_ids(*shape), "input_ids")} for shape in ((2, 24), (1, 9), (3, 5), (2, 24), (1, 9))]
        logs[share] = [_logged_run(exe, driver, f) for f in feeds]
    assert logs[True] == logs[False]
    assert len(logs[True][0]) > 20
    # Every site's plans passed their check (so the launches above came from plans), and
    # sites share them: fewer plans than launches at each shape.
    groups = library.plan_groups
    assert groups and all(group.affine for group in groups)
    assert sum(len(group.plans) for group in groups) < 3 * len(logs[True][0])


def test_views_of_equal_configuration_share_layouts_and_derive_what_each_would(monkeypatch):
    """The layers' equal views (expand/collapse_shape, subview) derive a layout once per
    source layout and extents (`Layouts`): runs give bit-identical outputs with the table
    off (every view derives its own), and the table holds fewer layouts than views ran."""
    from xhip.runtime.program import Layouts

    model = EXAMPLES / "gpt2_2layer.onnx"
    shapes = [(2, 24), (1, 9), (3, 5)]
    shared = xhip.compile(model, backend="reference", graphs=False)
    got = [shared.run({"input_ids": _ids(*shape)}) for shape in shapes]
    names = shared.bound.program.names
    views = sum(name in ("memref.expand_shape", "memref.collapse_shape", "memref.subview") for name in names)
    assert 0 < len(shared.session.layouts.table) < views * len(shapes)
    monkeypatch.setattr(Layouts, "remember", lambda self, key, layout: None)
    alone = xhip.compile(model, backend="reference", graphs=False)
    for shape, outputs in zip(shapes, got):
        for name, value in alone.run({"input_ids": _ids(*shape)}).items():
            np.testing.assert_array_equal(outputs[name], value, err_msg=f"{name} at {shape}")
    assert not alone.session.layouts.table


def test_a_shared_layout_is_keyed_by_everything_it_is_derived_from():
    """Two steps of one configuration share `Layouts`: each dynamic start, extent and
    source stride that changes the layout gives another one, and a layout that breaks a
    check is never stored (the check fails again at the next step that derives it)."""
    from xhip.diagnostics import XhipError
    from xhip.runtime import steps
    from xhip.runtime.buffers import DeviceBuffer, MemRef, Owner
    from xhip.runtime.contracts import same_count, within
    from xhip.runtime.program import Layouts

    layouts, owner = Layouts(), Owner("x")
    buffer = DeviceBuffer(1 << 20, "x", "pool")
    f32 = np.dtype(np.float32)
    config = layouts.config("test")
    # regs: 0 source, 1 start, 2 size, 3 result
    sub = [steps.subview(lambda r: (r[1], 0), lambda r: (r[2], 4), lambda r: (1, 1), 0, 3, within("a"), None, layouts, config) for _ in range(2)]
    expand = [steps.expand_shape([[0, 1], [2]], lambda r: (r[1], r[2], 4), 0, 3, same_count("b"), layouts, config + 1) for _ in range(2)]
    rows = MemRef(buffer, 0, (8, 4), (4, 1), f32, owner)
    padded = MemRef(buffer, 0, (8, 4), (8, 1), f32, owner)
    regs: list[object] = [rows, 2, 3, None]
    sub[0](regs)
    first = regs[3]
    regs[1] = 5
    sub[1](regs)
    assert (regs[3].offset, regs[3].shape) == (5 * 4 * 4, (3, 4)) != (first.offset, first.shape)  # type: ignore[attr-defined]
    regs[:3] = [padded, 5, 3]
    sub[0](regs)
    assert regs[3].offset == 5 * 8 * 4 and regs[3].strides == (8, 1)  # type: ignore[attr-defined]
    regs[:3] = [rows, 7, 3]
    for step in sub:  # rows 7..9 of 8: out of bounds at both steps
        with pytest.raises(XhipError, match="out of bounds"):
            step(regs)
    regs[:3] = [rows, 2, 4]
    expand[0](regs)
    assert regs[3].strides == (16, 4, 1)  # type: ignore[attr-defined]
    regs[0] = padded
    expand[1](regs)
    assert regs[3].strides == (32, 8, 1)  # type: ignore[attr-defined]
    regs[:3] = [rows, 3, 3]
    for step in expand:
        with pytest.raises(XhipError):
            step(regs)
