"""Sections a SIGINT or SIGTERM must not cut: the signal waits until the section ends.

The tools' handler (`xhip.tools.cli`) raises an exception in the main thread wherever it
happens to be. Two places must not be left half done: the renames of a commit
(`xhip.output_files`: a pair must not be split) and a background job's start
(`xhip.background`: a worker thread started but not yet registered with its executor is
never told to stop, and the interpreter's exit waits for it forever). Inside
`uninterrupted()` the handler only notes the signal (`defer`); it is raised again, and
handled, when the outermost section ends.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_depth = 0
_deferred: list[int] = []


def defer(signum: int) -> bool:
    """Whether a section is under way: then `signum` is raised again once it ends."""
    if _depth:
        _deferred.append(signum)
        return True
    return False


@contextmanager
def uninterrupted() -> Iterator[None]:
    """A section of the main thread a signal waits for; elsewhere nothing (a handler raises
    only in the main thread, and the count is the main thread's alone)."""
    global _depth
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if not _depth and _deferred:
            signum = _deferred[0]
            _deferred.clear()
            signal.raise_signal(signum)  # its handler runs now, after the section
