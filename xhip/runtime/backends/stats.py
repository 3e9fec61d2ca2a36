"""What every backend counts, for the run report."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class DeviceStats:
    kernel_launches: int = 0
    device_copies: int = 0
    readbacks: int = 0
    syncs: int = 0
    event_waits: int = 0
    kernel_compiles: int = 0
    """Units of kernels compiled by the runtime compiler (a compile-cache hit is not one)."""
    kernel_seconds: float = 0.0
    """Seconds the reference backend's NumPy kernels ran (the device's share of a reference
    run; `benchmarks/host_cost.py` counts the rest as host work)."""
