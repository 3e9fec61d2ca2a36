"""What xhip's command-line tools share: one-line errors and exit codes."""

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


def main_with(run: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None) -> None:
    """Exit with `run`'s status; a user error is one line on stderr and status 1."""
    try:
        code = run(argv)
    except XhipError as err:
        sys.stdout.flush()
        print(err, file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    sys.exit(code)
