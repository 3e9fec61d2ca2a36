"""Threads for the work of a compile that waits on no Python: hashing and writing files.

hashlib and file writes release the GIL, so the constants file of a large model
(GPT-2 124M: 500 MB, 0.25 s to hash, 0.15 s to write) is hashed and written
while the later passes run. xhip-opt hashes each file in the pass that writes
it (one job, each byte read once: 0.1-0.2 s less wall on the shared 2-core
machine than a hash job and a write job side by side); two threads let two
files, or a hash the API asks for and a write, go on together.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from xhip.deferred_signals import uninterrupted

T = TypeVar("T")

_workers: ThreadPoolExecutor | None = None


WORKERS = 2


def _forget_parents_workers() -> None:
    """A forked child (xhip-compare's process pool) has none of its parent's threads: it starts its own."""
    global _workers
    _workers = None


os.register_at_fork(after_in_child=_forget_parents_workers)


def submit(job: Callable[..., T], *args: object) -> Future[T]:
    """Run `job(*args)` on a background thread. A signal waits until the job is queued: the
    executor registers a thread it starts only after starting it, and an unregistered
    worker is never told to stop (the interpreter's exit would wait for it forever)."""
    global _workers
    with uninterrupted():
        if _workers is None:
            _workers = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="xhip-background")
        return _workers.submit(job, *args)
