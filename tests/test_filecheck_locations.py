"""FileCheck lines locate diagnostics relative to themselves, so adding a case moves nothing.

A CHECK line that pins `invalid.mlir:14:3` breaks as soon as a case is inserted
above line 14; `invalid.mlir:[[# @LINE - 3]]:3` (three lines above the CHECK line)
does not. These tests keep every file of tests/filecheck/ in the relative form,
show that the pinned filecheck (1.0.6) really evaluates the spaced `@LINE - N`
spelling, and insert a case at the top of every file that locates a diagnostic
and run lit on the result.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

FILECHECK_ROOT = Path(__file__).resolve().parent / "filecheck"
TOOLS = Path(sys.executable).parent

DIRECTIVE = re.compile(r"//\s*[A-Z][A-Z0-9_]*(?:-[A-Z]+)?:")
"""A FileCheck directive of any prefix (CHECK, EXIT, TWICE, ...), plain or -NEXT/-SAME/-NOT/..."""

LITERAL_LOCATION = re.compile(r"(?P<file>[\w.-]+|\}\}):(?P<line>\d+):(?P<col>\d+)")


def literal_pins(path: Path, text: str) -> list[str]:
    """The directive lines of `text` (the file `path`) that name a line of that file by number."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not DIRECTIVE.search(line):
            continue
        for match in LITERAL_LOCATION.finditer(line):
            if match["file"] in (path.name, "}}"):
                found.append(f"{path.name}:{number}: {line.strip()}")
    return found


CHECK_FILES = sorted([*FILECHECK_ROOT.rglob("*.mlir"), *FILECHECK_ROOT.rglob("*.test")])
"""Every lit test (lit.cfg.py runs .mlir and .test files)."""


def test_the_pin_finder_sees_literal_locations_and_accepts_relative_ones():
    path = Path("invalid.mlir")
    text = (
        "// CHECK: invalid.mlir:6:3: error: a\n"
        "// CHECK-NEXT: {{.*}}invalid.mlir:12:1: error: b\n"
        "// EXIT: {{.*}}:7:3: error: c\n"
        "// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: d\n"
        "// CHECK: other.yaml:4:2: error: in another file\n"
        "%0 = op invalid.mlir:9:9 (not a directive)\n"
    )
    assert [pin.split(": ", 1)[0] for pin in literal_pins(path, text)] == [
        "invalid.mlir:1",
        "invalid.mlir:2",
        "invalid.mlir:3",
    ]


@pytest.mark.parametrize("path", CHECK_FILES, ids=lambda p: str(p.relative_to(FILECHECK_ROOT)))
def test_no_check_line_pins_a_line_number_of_its_own_file(path: Path):
    assert literal_pins(path, path.read_text()) == [], "write these as [[# @LINE - N]]"


LINE_EXPRESSION = re.compile(r"\[\[[^\]]*@LINE[^\]]*\]\]")
SPACED_LINE_EXPRESSION = re.compile(r"\[\[# @LINE(?: [-+] \d+)?\]\]")


@pytest.mark.parametrize("path", CHECK_FILES, ids=lambda p: str(p.relative_to(FILECHECK_ROOT)))
def test_every_line_expression_is_spelled_the_way_filecheck_1_0_6_reads_it(path: Path):
    odd = [e for e in LINE_EXPRESSION.findall(path.read_text()) if not SPACED_LINE_EXPRESSION.fullmatch(e)]
    assert odd == [], "filecheck 1.0.6 reads only [[# @LINE - N]] (spaces included)"


# -- filecheck 1.0.6 evaluates `[[# @LINE - N]]` ------------------------------------------------


def _filecheck(tmp_path: Path, spelling: str, output_line: int) -> subprocess.CompletedProcess:
    """filecheck on the output `checks.mlir:<output_line>:3: error: bad`, with checks that
    hold an op on line 2 and, on line 3, a CHECK that locates it by `spelling`."""
    check_file = tmp_path / "checks.mlir"
    check_file.write_text(
        f'func.func @f() {{\n  "bad.op"() : () -> ()\n// CHECK: checks.mlir:{spelling}:3: error: bad\n'
    )
    output = f"checks.mlir:{output_line}:3: error: bad\n"
    return subprocess.run([TOOLS / "filecheck", check_file], input=output, capture_output=True, text=True, check=False)


def test_filecheck_takes_the_spaced_line_relative_expression(tmp_path: Path):
    result = _filecheck(tmp_path, "[[# @LINE - 1]]", output_line=2)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("wrong_line", [1, 3])
def test_filecheck_fails_when_the_relative_line_is_wrong(tmp_path: Path, wrong_line: int):
    result = _filecheck(tmp_path, "[[# @LINE - 1]]", output_line=wrong_line)
    assert result.returncode == 1, result.stdout + result.stderr


@pytest.mark.parametrize("spelling", ["[[# @LINE-1]]", "[[#@LINE-1]]", "[[@LINE-1]]", "[[# @LINE -1]]"])
def test_filecheck_1_0_6_refuses_the_unspaced_spellings(tmp_path: Path, spelling: str):
    """LLVM's FileCheck takes these; the Python port reads only `[[# @LINE - N]]`."""
    assert _filecheck(tmp_path, spelling, output_line=2).returncode != 0


# -- a case inserted at the top of every locating file, under lit ----------------------------------

INSERTED_CASE = """\
// A case inserted above every other one (tests/test_filecheck_locations.py).
func.func @inserted_case() {
  func.return
}

// -----

"""
SHIFT_ONLY = "// Lines inserted above every other one\n// (tests/test_filecheck_locations.py).\n\n"

LOCATING_FILES = [path for path in CHECK_FILES if "@LINE" in path.read_text()]


def _with_a_case_on_top(text: str) -> str:
    """A split-input file gets a whole case; one run unsplit only gets its lines shifted."""
    runs = [line for line in text.splitlines() if "RUN:" in line]
    every_run_splits = all("--split-input-file" in run for run in runs)
    return (INSERTED_CASE if every_run_splits else SHIFT_ONLY) + text


def test_inserting_a_case_on_top_keeps_every_located_check_valid(tmp_path: Path):
    assert len(LOCATING_FILES) >= 20, "the files that locate diagnostics are all found"
    (tmp_path / "lit.cfg.py").write_text(
        "import os\n"
        f"lit_config.load_config(config, {str(FILECHECK_ROOT / 'lit.cfg.py')!r})\n"
        "config.test_source_root = os.path.dirname(__file__)\n"
        "config.test_exec_root = config.test_source_root\n"
    )
    for path in LOCATING_FILES:
        copy = tmp_path / path.relative_to(FILECHECK_ROOT)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(_with_a_case_on_top(path.read_text()))
    result = subprocess.run([TOOLS / "lit", "-q", tmp_path], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert len(LOCATING_FILES) == len([*tmp_path.rglob("*.mlir"), *tmp_path.rglob("*.test")])
