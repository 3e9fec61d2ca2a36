"""What xhip's command-line tools share: one-line errors, exit codes, stdout that may close.

A reader that goes away (`xhip-run ... | head -1`) must change neither what the
command does nor its exit status: stdout then goes to /dev/null and the command
finishes, writing its files, with the status it would have had.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from xhip.diagnostics import XhipError


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports a bad command line as one XhipError line (exit code 1)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise XhipError(f"{message} (see '{self.prog} --help')")


def _stdout_to_devnull() -> None:
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def emit(text: str) -> None:
    """Write `text` to stdout now; if the reader has gone, drop it and go on."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()


def flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()


def main_with(run: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None) -> None:
    """Exit with `run`'s status; a user error is one line on stderr and status 1."""
    try:
        code = run(argv)
    except XhipError as err:
        flush_stdout()
        print(err, file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        # A write that did not go through emit(): stop quietly, as Unix tools do.
        _stdout_to_devnull()
        code = 1
    flush_stdout()
    sys.exit(code)
