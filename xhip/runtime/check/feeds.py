"""Random inputs that are never zeros, drawn in each input's own dtype.

Their total size is checked against the memory available before anything is
allocated, and values are drawn straight into arrays of the input's dtype (no
float64 copy), so a mistyped `--shape` is one error line, not a swap storm.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from math import prod
from typing import TYPE_CHECKING

import numpy as np

from xhip.diagnostics import XhipError, shorten

if TYPE_CHECKING:  # the runtime's import is heavy (xdsl); `xhip-run --help` prints the check's rule without it
    from xhip.runtime.executable import TensorSpec

DRAW_CHUNK_ELEMENTS = 1 << 20
"""Random values are drawn this many at a time, so drawing never needs a second full-size array."""

def parse_shape(text: str) -> tuple[str, tuple[int, ...]]:
    """`X=2x128` -> ("X", (2, 128)); `s=` is a rank-0 input."""
    name, sep, dims = text.partition("=")
    if not sep or not name:
        raise XhipError(f"--shape '{shorten(text)}' is not NAME=D0xD1x...")
    try:
        shape = tuple(int(d) for d in dims.split("x")) if dims else ()
    except ValueError:
        raise XhipError(f"--shape '{shorten(text)}': dims must be integers separated by 'x'") from None
    if any(d < 0 for d in shape):
        raise XhipError(f"--shape '{shorten(text)}': dims must not be negative")
    return name, shape


def _full_shape(spec: TensorSpec, given: tuple[int, ...]) -> tuple[int, ...]:
    """`--shape` gives either every dim or just the dynamic ones, in order."""
    if len(given) == len(spec.shape):
        return given
    dynamic = [i for i, d in enumerate(spec.shape) if not isinstance(d, int)]
    if len(given) != len(dynamic):
        raise XhipError(
            f"--shape {spec.name}={'x'.join(map(str, given))} fits neither {spec.describe()} "
            f"nor its {len(dynamic)} dynamic dims"
        )
    dims = list(spec.shape)
    for axis, extent in zip(dynamic, given):
        dims[axis] = extent
    return tuple(dims)  # type: ignore[arg-type]


def random_feeds(
    specs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]], seed: int, max_bytes: int | None = None
) -> dict[str, np.ndarray]:
    """Random inputs of the declared dtypes: normal floats, small positive ints, random bools.

    Their total size is checked against `max_bytes` (default: the memory available now)
    before each input is allocated, so a mistyped `--shape` is an error, not a swap storm.
    """
    unknown = sorted(set(shapes) - {s.name for s in specs})
    if unknown:
        raise XhipError(f"--shape names '{shorten(unknown[0])}', which is not an input")
    available = available_memory_bytes() if max_bytes is None else None
    limit = max_bytes if max_bytes is not None else available or sys.maxsize
    rng = np.random.default_rng(seed)
    symbols: dict[str, int] = {}
    shaped = [(spec, _feed_shape(spec, shapes, symbols)) for spec in specs]
    total = 0
    for spec, shape in shaped:
        size = prod(shape) * spec.dtype.itemsize
        total += size
        if total > limit:
            before = f" ({_bytes(total)} with the inputs before it)" if total > size else ""
            budget = f"the {_bytes(limit)} of memory available" if available else f"the limit of {_bytes(limit)}"
            raise XhipError(
                f"random input {spec.name} {list(shape)} {spec.dtype} needs {_bytes(size)}{before}, more than {budget}"
            )
    return {spec.name: _random_array(rng, spec.dtype, shape) for spec, shape in shaped}


def _feed_shape(spec: TensorSpec, shapes: Mapping[str, tuple[int, ...]], symbols: dict[str, int]) -> tuple[int, ...]:
    """The input's shape: from `--shape`, else its static dims and symbols fixed by earlier inputs."""
    if spec.name in shapes:
        shape = _full_shape(spec, shapes[spec.name])
    else:
        dims = []
        for declared in spec.shape:
            if isinstance(declared, int):
                dims.append(declared)
            elif isinstance(declared, str) and declared in symbols:
                dims.append(symbols[declared])
            else:
                raise XhipError(f"input {spec.describe()} has a dynamic dim: give --shape {spec.name}=...")
        shape = tuple(dims)
    for declared, extent in zip(spec.shape, shape):
        if isinstance(declared, str):
            symbols.setdefault(declared, extent)
    return shape


def available_memory_bytes() -> int | None:
    """Memory the system can give without swapping (MemAvailable), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _bytes(count: float) -> str:
    """`8 TiB`, `512 B`: a byte count as people read it."""
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    while count >= 1024 and len(units) > 1:
        count, units = count / 1024, units[1:]
    return f"{count:.3g} {units[0]}"


def _random_array(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Random values drawn straight into an array of `dtype`, a chunk at a time (no float64 copy)."""
    out = np.empty(shape, dtype)
    flat = out.reshape(-1)
    if dtype in (np.float32, np.float64):
        rng.standard_normal(out=flat, dtype=dtype)
        return out
    for start in range(0, flat.size, DRAW_CHUNK_ELEMENTS):
        stop = min(start + DRAW_CHUNK_ELEMENTS, flat.size)
        flat[start:stop] = _draw(rng, dtype, stop - start)
    return out


def _draw(rng: np.random.Generator, dtype: np.dtype, count: int) -> np.ndarray:
    """Normal floats, random bools, small positive ints (never zeros: no division by zero)."""
    if np.issubdtype(dtype, np.floating) or dtype.name == "bfloat16":
        return rng.standard_normal(count, dtype=np.float32).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, count, dtype=np.bool_)
    drawn = dtype if np.issubdtype(dtype, np.integer) else np.dtype(np.int64)
    return rng.integers(1, 8, size=count, dtype=drawn).astype(dtype, copy=False)
