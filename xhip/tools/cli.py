"""What xhip's command-line tools share: one-line errors, exit codes, signals, stdout that may close.

A reader that goes away (`xhip-run ... | head -1`) must change neither what the
command does nor its exit status: stdout then goes to /dev/null and the command
finishes, writing its files, with the status it would have had. Stdout that cannot
take the output (a full device) is an error like any other output file's: one line,
`<stdout>: error: cannot write output: ...`, exit 1.

SIGINT and SIGTERM, from the first line of `main_with` on (before the compiler's
imports), end the command with one line (`xhip-opt: interrupted`, `xhip-opt:
terminated`) and the shell's status (130, 143): the handler raises `Interrupted` in
the main thread, so every `finally` on the way out runs (temp files are removed:
`xhip.output_files`), and the renames of a commit finish first. A second signal
while the command cleans up is ignored. This module imports nothing heavy, so that
the tools' entry modules can install the handlers first thing.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

STDOUT = "<stdout>"
SIGNAL_WORDS: dict[int, str] = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived (raised by the handler `handle_signals` installs)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


_received: int | None = None


def _on_signal(signum: int, frame: object) -> None:
    global _received
    if _received is not None:
        return  # already on the way out: the cleanup must not be cut short
    sections = sys.modules.get("xhip.deferred_signals")  # loaded, if a section can be under way
    if sections is not None and sections.defer(signum):
        return  # raised again when the section (a commit's renames, a thread's start) is done
    _received = signum
    raise Interrupted(signum)


def handle_signals() -> None:
    """SIGINT and SIGTERM raise `Interrupted` in the main thread (a whole process's command only)."""
    for signum in SIGNAL_WORDS:
        signal.signal(signum, _on_signal)


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports a bad command line as one XhipError line (exit code 1), and
    whose `epilog_of` (a function) writes the epilog only when --help asks for it: its text
    may need modules that nothing else before the command runs loads."""

    def __init__(self, *args: object, epilog_of: Callable[[], str] | None = None, **kwargs: object):
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._epilog_of = epilog_of

    def format_help(self) -> str:
        if self._epilog_of is not None:
            self.epilog = self._epilog_of()
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        from xhip.errors import XhipError

        raise XhipError(f"{message} (see '{self.prog} --help')")


def _stdout_to_devnull() -> None:
    """Whatever stdout still holds goes nowhere (later writes and the flush at exit succeed)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _stdout_error(err: OSError) -> Exception:
    from xhip.errors import XhipError

    _stdout_to_devnull()
    try:
        sys.stdout.flush()  # drop what the failed write left in the buffer
    except OSError:
        pass
    return XhipError(f"cannot write output: {err.strerror}", STDOUT)


def emit(text: str) -> None:
    """Write `text` to stdout now; if the reader has gone, drop it and go on; a failed write is an XhipError."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()
    except OSError as err:
        raise _stdout_error(err) from None


def flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()
    except OSError as err:
        raise _stdout_error(err) from None


def main_with(run: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None, prog: str) -> NoReturn:
    """Exit with `run`'s status; a user error is one line on stderr and status 1.

    Without `argv` this is the process's command: SIGINT and SIGTERM are handled from here on."""
    global _received
    if argv is None:
        handle_signals()
    try:
        code = _run(run, argv)
    except KeyboardInterrupt as err:  # Interrupted, or Ctrl-C where no handler was installed
        signum = err.signum if isinstance(err, Interrupted) else signal.SIGINT
        _received = signum  # a second signal during the exit below is ignored
        try:
            flush_stdout()
        except Exception:  # noqa: BLE001 - stdout is not the command's to report now
            pass
        print(f"{prog}: {SIGNAL_WORDS.get(signum, 'interrupted')}", file=sys.stderr, flush=True)
        code = 128 + signum
    sys.exit(code)


def _run(run: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None) -> int:
    from xhip.errors import XhipError  # after the handlers (it loads a piece of xDSL)

    try:
        code = run(argv)
        flush_stdout()
    except XhipError as err:
        try:
            flush_stdout()
        except XhipError:
            pass
        print(err, file=sys.stderr)
        return 1
    except BrokenPipeError:
        # A write that did not go through emit(): stop quietly, as Unix tools do.
        _stdout_to_devnull()
        return 1
    return code
