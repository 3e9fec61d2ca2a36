"""Write the bad-input corpus into a folder: one sub-folder per case, each with its input
files and a `command` file (the argv, one shell-quoted line; stdin, if any, in `stdin`).

    python tests/bad_inputs/generate.py /tmp/corpus [CASE_ID ...]

Run a case by hand with `cd /tmp/corpus/CASE_ID && sh command`. tests/test_bad_inputs.py
builds the same folders at test time; nothing of the corpus is committed as a binary.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(1, str(Path(__file__).resolve().parents[2]))

from bad_inputs import all_cases, write_inputs  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="where to write the cases (created; must not hold them already)")
    ap.add_argument("ids", nargs="*", help="only these case ids")
    args = ap.parse_args()
    chosen = [c for c in all_cases() if not args.ids or c.id in args.ids]
    for case in chosen:
        target = args.folder / case.id
        target.mkdir(parents=True)
        write_inputs(case, target)
        (target / "command").write_text(shlex.join(case.argv) + (" < stdin" if case.stdin else "") + "\n")
        if case.stdin:
            (target / "stdin").write_bytes(case.stdin)
    print(f"wrote {len(chosen)} cases to {args.folder}")


if __name__ == "__main__":
    main()
