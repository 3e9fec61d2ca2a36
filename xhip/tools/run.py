"""xhip-run: compile and execute a model (the runtime is not implemented yet)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    print(
        "xhip-run: not implemented yet: the runtime (reference backend, xhip.compile) "
        "is the subject of a later issue; use xhip-opt to compile.",
        file=sys.stderr,
    )
    sys.exit(2)


if __name__ == "__main__":
    main()
