"""The constants file is hashed off the main thread, and every IR anyone sees records its checksum.

hip-externalize-constants names the file in the module at once; its SHA-256 is
computed on a thread while later passes run, and recorded when the store
settles: at the end of each PassRunner.run and before an after-pass hook.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

from xhip.api import compile_stages
from xhip.constants_file import CHUNK_BYTES, ConstantsStore, FileParts, checksum, chunks
from xhip.dialects.hip.attributes import CONSTANTS_FILE_ATTR, CONSTANTS_SHA256_ATTR, CONSTANTS_SIZE_ATTR
from xhip.tools.opt import main

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"
SHA256 = re.compile(r'hip.constants_sha256 = "([0-9a-f]{64})"')


def test_the_store_records_name_and_size_at_once_and_the_checksum_when_it_settles():
    data = FileParts([b"a" * 100, bytes(28), b"b" * 3])
    store = ConstantsStore(stem="m")
    name = store.add(data)
    module = ModuleOp([])
    store.record(module, name)
    assert module.attributes[CONSTANTS_FILE_ATTR].data == "m.constants.bin"
    assert module.attributes[CONSTANTS_SIZE_ATTR].value.data == 131
    assert CONSTANTS_SHA256_ATTR not in module.attributes
    store.settle()
    assert module.attributes[CONSTANTS_SHA256_ATTR].data == hashlib.sha256(bytes(data)).hexdigest()


def test_every_stage_after_externalizing_records_the_files_checksum():
    stages = {name: (module.clone(), store) for name, module, store in compile_stages(ATTENTION)}
    module, store = stages["hip-externalize-constants"]
    (data,) = store.files.values()
    assert module.attributes[CONSTANTS_SHA256_ATTR].data == checksum(data) == hashlib.sha256(bytes(data)).hexdigest()
    assert stages["hip-resolve-extern-constants"][0].attributes[CONSTANTS_SHA256_ATTR].data == checksum(data)


def test_a_dump_after_externalizing_records_the_checksum_of_the_written_file(capsys, tmp_path):
    output = tmp_path / "out.mlir"
    with pytest.raises(SystemExit) as exit_info:
        main([str(ATTENTION), "--pipeline", "default", "-o", str(output), "--print-ir-after", "hip-externalize-constants"])
    assert exit_info.value.code == 0
    (dumped,) = SHA256.findall(capsys.readouterr().err)
    written = hashlib.sha256((tmp_path / "out.constants.bin").read_bytes()).hexdigest()
    assert dumped == written == SHA256.search(output.read_text())[1]


def test_chunks_keep_large_parts_and_join_small_ones_in_order():
    large = b"x" * CHUNK_BYTES
    parts = [b"a", bytes(63), large, b"b" * 10, bytes(54), b"c"]
    pieces = list(chunks(FileParts(parts)))
    assert b"".join(pieces) == b"".join(parts)
    assert any(piece is large for piece in pieces)  # never copied
    assert len(pieces) == 3
