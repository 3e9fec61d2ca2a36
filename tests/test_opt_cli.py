"""xhip-opt's command line: flags, output handling and one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from xhip.tools.opt import main

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"

VALID = """\
func.func @f(%a: index) -> index {
  %0 = arith.addi %a, %a : index
  func.return %0 : index
}
"""


def run_opt(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


@pytest.fixture
def valid_mlir(tmp_path: Path) -> Path:
    path = tmp_path / "valid.mlir"
    path.write_text(VALID)
    return path


def test_passes_run_and_ir_is_printed(capsys, valid_mlir):
    code, out, err = run_opt(capsys, str(valid_mlir), "-p", "hip-add-context-arg")
    assert code == 0, err
    assert "func.func @f(%ctx: !hip.context, %a: index) -> index" in out


def test_unknown_flag_is_one_line_exit_1(capsys):
    code, out, err = run_opt(capsys, "--no-such-flag")
    assert code == 1
    assert err.strip().splitlines() == ["error: unrecognized arguments: --no-such-flag (see 'xhip-opt --help')"]


def test_malformed_mlir_is_located(capsys, tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() {\n  %0 = arith.constant : index\n}\n")
    code, out, err = run_opt(capsys, str(bad))
    assert code == 1
    assert out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith(f"{bad}:2:")
    assert ": error: " in line


def test_verifier_error_is_located(capsys, tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(%a: index) -> i32 {\n  func.return %a : index\n}\n")
    code, _, err = run_opt(capsys, str(bad))
    assert code == 1
    assert err.strip() == (
        f"{bad}:2:3: error: Expected arguments to have the same types as the function output "
        "types: expected [i32], got [index]"
    )


def test_verify_diagnostics_prints_to_stdout_and_exits_0(capsys, tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text(VALID + "// -----\nfunc.func @g() {\n  %0 = arith.constant : index\n}\n")
    code, out, err = run_opt(capsys, str(bad), "--split-input-file", "--verify-diagnostics")
    assert code == 0
    chunks = out.split("// -----\n")
    assert "func.func @f" in chunks[0]
    # The second chunk starts on line 5 of the file: line numbers are file-relative.
    assert chunks[1].startswith(f"{bad}:7:")


def test_output_file_is_written_only_on_success(capsys, tmp_path, valid_mlir):
    target = tmp_path / "out.mlir"
    target.write_text("previous content\n")
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    code, _, _ = run_opt(capsys, str(bad), "-o", str(target))
    assert code == 1
    assert target.read_text() == "previous content\n"
    code, _, _ = run_opt(capsys, str(valid_mlir), "-o", str(target))
    assert code == 0
    assert "func.func @f" in target.read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.mlir")] == []


def test_print_ir_after_names_a_pass_of_the_pipeline(capsys, valid_mlir):
    code, out, err = run_opt(
        capsys, str(valid_mlir), "-p", "hip-add-context-arg,cse", "--print-ir-after=cse"
    )
    assert code == 0
    assert err.count("// -----// IR Dump After") == 1
    assert "// -----// IR Dump After cse //----- //" in err
    code, _, err = run_opt(capsys, str(valid_mlir), "-p", "cse", "--print-ir-after=cees")
    assert code == 1
    assert "pass 'cees' is not in the pipeline; did you mean 'cse'?" in err


def test_print_ir_after_all_has_one_header_per_pass(capsys, valid_mlir):
    code, _, err = run_opt(
        capsys, str(valid_mlir), "-p", "hip-add-context-arg,canonicalize,cse", "--print-ir-after-all"
    )
    assert code == 0
    headers = [line for line in err.splitlines() if line.startswith("// -----// IR Dump After")]
    assert headers == [
        "// -----// IR Dump After hip-add-context-arg //----- //",
        "// -----// IR Dump After canonicalize //----- //",
        "// -----// IR Dump After cse //----- //",
    ]


def test_pipeline_and_passes_together_is_an_error(capsys, valid_mlir):
    code, _, err = run_opt(
        capsys, str(valid_mlir), "-p", "cse", "--pipeline", str(REPO / "pipelines" / "default.yaml")
    )
    assert code == 1
    assert err.strip() == "error: use either --pipeline or -p, not both"


def test_list_passes_names_every_registered_pass(capsys):
    from xhip.passes import available_passes

    code, out, _ = run_opt(capsys, "--list-passes")
    assert code == 0
    for name in available_passes():
        assert name in out


def test_elide_large_constants(capsys, tmp_path):
    path = tmp_path / "c.mlir"
    path.write_text(
        "func.func @f() -> (tensor<8xf32>, tensor<2xf32>) {\n"
        "  %0 = arith.constant dense<1.5> : tensor<8xf32>\n"
        "  %1 = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
        "  func.return %0, %1 : tensor<8xf32>, tensor<2xf32>\n}\n"
    )
    code, out, _ = run_opt(capsys, str(path), "--elide-elementsattrs-if-larger=4")
    assert code == 0
    assert "dense_resource<__elided__> : tensor<8xf32>" in out
    assert "dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>" in out


def test_missing_input_file(capsys, tmp_path):
    code, _, err = run_opt(capsys, str(tmp_path / "nope.mlir"))
    assert code == 1
    assert err.strip() == f"{tmp_path / 'nope.mlir'}: error: cannot read input: No such file or directory"


def test_console_script_exits_1_without_traceback(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text('"foo.bar"() : () -> ()\n')
    result = subprocess.run(
        [str(Path(sys.executable).parent / "xhip-opt"), str(bad)], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "foo.bar" in result.stderr


def test_stdin_input(tmp_path):
    result = subprocess.run(
        [str(Path(sys.executable).parent / "xhip-opt"), "-", "-p", "hip-add-context-arg"],
        input=VALID,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "%ctx: !hip.context" in result.stdout


def test_a_shipped_pipeline_is_found_by_name(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # not the repository root: the name, not a relative path, finds it
    code, _, err = run_opt(capsys, str(ATTENTION), "--pipeline", "seed-003", "-o", "out.mlir")
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.constants.bin", "out.mlir"]


def test_an_unknown_pipeline_name_suggests_the_closest(capsys):
    code, _, err = run_opt(capsys, str(ATTENTION), "--pipeline", "defualt")
    assert code == 1
    assert err.strip() == "error: no pipeline file or shipped pipeline named 'defualt'; did you mean 'default'?"


def test_a_directory_given_as_the_onnx_model_is_said_to_be_one(capsys, tmp_path):
    folder = tmp_path / "model.onnx"
    folder.mkdir()
    code, _, err = run_opt(capsys, str(folder), "-p", "hip-add-context-arg")
    assert code == 1
    assert err.strip() == f"{folder}: error: cannot read input: is a directory, not an .onnx or .mlir file"


def test_help_explains_where_constants_go(capsys):
    code, out, _ = run_opt(capsys, "--help")
    assert code == 0
    assert "OUT.constants.bin beside it" in out and "NAME|FILE.yaml" in out
