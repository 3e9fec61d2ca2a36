"""xhip-opt -o: what is at the path decides how it is written (issue 8, items 1 and 9).

A regular file (or a new path) is replaced atomically, with the umask's mode;
a device, a FIFO or a symlink's target is written through; a failed command
writes nothing, neither the IR nor its constants file nor a temp file.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from test_opt_cli import run_opt as opt
from xhip.constants_file import FileParts
from xhip.output_files import OutputFiles

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"
NULL_DEVICE = os.makedev(1, 3)  # Linux's /dev/null


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty current directory: where content-named constants of non-file outputs go."""
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def compile_attention_to(capsys, output: Path, *extra: str) -> tuple[int, str, str]:
    return opt(capsys, str(ATTENTION), "--pipeline", "default", "-o", str(output), *extra)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_character_device_stays_a_device(capsys, tmp_path, workdir):
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, NULL_DEVICE)
    code, _, err = compile_attention_to(capsys, null, "--print-ir-after-all")
    assert code == 0, err
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert os.lstat(null).st_rdev == NULL_DEVICE
    # The constants of an output that is not a file go, named by content, to the current directory.
    [constants] = os.listdir(workdir)
    assert constants.startswith("attention.") and constants.endswith(".constants.bin")


def test_a_fifo_reader_gets_the_whole_ir(capsys, tmp_path, workdir):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code, _, err = compile_attention_to(capsys, fifo)
    reader.join(timeout=120)
    assert code == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert received, "the reader got nothing"
    text = received[0].decode()
    assert text.startswith("builtin.module") and "func.func @main_graph" in text


def test_a_symlink_is_written_through(capsys, tmp_path, workdir):
    target = tmp_path / "real.mlir"
    target.write_text("old\n")
    link = tmp_path / "link.mlir"
    link.symlink_to(target)
    code, _, err = compile_attention_to(capsys, link)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith("builtin.module")
    # The IR names its constants relative to the path it was written as.
    assert (tmp_path / "link.constants.bin").is_file()


def test_a_new_file_mode_follows_the_umask(capsys, tmp_path, workdir):
    previous = os.umask(0o027)
    try:
        code, _, err = compile_attention_to(capsys, tmp_path / "out.mlir")
    finally:
        os.umask(previous)
    assert code == 0, err
    assert stat.S_IMODE(os.stat(tmp_path / "out.mlir").st_mode) == 0o640
    assert stat.S_IMODE(os.stat(tmp_path / "out.constants.bin").st_mode) == 0o640


def test_a_replaced_file_keeps_its_mode(capsys, tmp_path, workdir):
    output = tmp_path / "out.mlir"
    output.write_text("old\n")
    output.chmod(0o604)
    code, _, err = opt(capsys, str(ATTENTION), "-p", "hip-add-context-arg", "-o", str(output))
    assert code == 0, err
    assert stat.S_IMODE(os.stat(output).st_mode) == 0o604
    assert output.read_text().startswith("builtin.module")


def test_a_directory_as_output_is_an_error_that_leaves_nothing(capsys, tmp_path, workdir):
    folder = tmp_path / "folder"
    folder.mkdir()
    code, out, err = compile_attention_to(capsys, folder)
    assert code == 1 and out == ""
    assert err.strip() == f"{folder}: error: cannot write output: is a directory"
    assert os.listdir(folder) == [] and os.listdir(workdir) == []


def test_an_unwritable_output_leaves_no_constants_file(capsys, tmp_path, workdir):
    missing = tmp_path / "missing" / "out.mlir"
    code, _, err = compile_attention_to(capsys, missing)
    assert code == 1
    assert err.strip() == f"{missing}: error: cannot write output: no such directory '{missing.parent}'"
    assert sorted(os.listdir(tmp_path)) == ["work"] and os.listdir(workdir) == []


def test_a_pass_failing_after_externalizing_writes_neither_ir_nor_constants(capsys, tmp_path, workdir):
    twice = "hip-add-context-arg,convert-onnx-to-hip,hip-externalize-constants{externalize-min-num-elements=256},hip-externalize-constants{externalize-min-num-elements=1}"
    code, _, err = opt(capsys, str(ATTENTION), "-p", twice, "-o", str(tmp_path / "out.mlir"))
    assert code == 1 and "module already has hip.constants_file" in err
    assert sorted(os.listdir(tmp_path)) == ["work"] and os.listdir(workdir) == []


FILE_SIZE_LIMITED = """\
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
from xhip.tools.opt import main
main(sys.argv[1:])
"""


def test_a_failing_constants_write_leaves_the_old_files_and_no_temp_file(tmp_path):
    """The constants file is written while the later passes run; when that write fails (here: past
    the process's file-size limit), the command fails at the end, naming the file, and writes nothing."""
    output, constants = tmp_path / "out.mlir", tmp_path / "out.constants.bin"
    output.write_text("old ir\n")
    constants.write_bytes(b"old constants")
    done = subprocess.run(
        [sys.executable, "-c", FILE_SIZE_LIMITED, str(ATTENTION), "--pipeline", "default", "-o", str(output)],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip() == f"{constants}: error: cannot write constants file: File too large"
    assert sorted(os.listdir(tmp_path)) == ["out.constants.bin", "out.mlir"]
    assert output.read_text() == "old ir\n" and constants.read_bytes() == b"old constants"


def test_an_early_hashed_write_gives_the_checksum_of_what_it_wrote(tmp_path):
    """One pass over the bytes: the temp file is written and hashed together; a FIFO-like
    write-through path is hashed on its own. Nothing is in place before commit."""
    data = FileParts([b"w" * 100, bytes(28), b"v" * 5])
    target = tmp_path / "out.constants.bin"
    files = OutputFiles()
    job = files.add(target, data, "constants file", early=True, hashed=True)
    assert job is not None and job.result() == hashlib.sha256(bytes(data)).hexdigest()
    assert not target.exists()
    files.commit()
    assert target.read_bytes() == bytes(data)
    assert os.listdir(tmp_path) == ["out.constants.bin"]


def test_a_discarded_early_write_leaves_no_temp_file(tmp_path):
    files = OutputFiles()
    files.add(tmp_path / "out.constants.bin", b"x" * 1000, "constants file", early=True, hashed=True)
    files.discard()
    assert os.listdir(tmp_path) == []
