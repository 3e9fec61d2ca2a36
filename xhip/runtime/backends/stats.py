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
    device_seconds: float = 0.0
    """Seconds the reference backend spent on what a device does: NumPy kernels, device
    copies, the poison fill of fresh memory (`benchmarks/host_cost.py` counts the rest of a
    reference run as host work)."""
