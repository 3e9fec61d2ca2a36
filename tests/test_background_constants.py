"""The constants file is hashed off the main thread, and every IR anyone sees records its checksum.

hip-externalize-constants names the file in the module at once; its SHA-256 is
computed on a thread while later passes run, and recorded when the store
settles: at the end of each PassRunner.run and before an after-pass hook.
xhip-opt maps the model's weights instead of reading them, and hashing and
writing them release each view's pages as they go.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp

from xhip import background
from xhip.api import compile_stages
from xhip.constants_file import CHUNK_BYTES, SLICE_BYTES, ConstantsStore, FileParts, checksum, chunks
from xhip.diagnostics import XhipError
from xhip.dialects.hip.attributes import CONSTANTS_FILE_ATTR, CONSTANTS_SHA256_ATTR, CONSTANTS_SIZE_ATTR
from xhip.importer import import_model
from xhip.onnx_wire import mapped_file, release_mapped_pages
from xhip.printing import print_ir
from xhip.tools.opt import main

REPO = Path(__file__).resolve().parents[1]
ATTENTION = REPO / "examples" / "attention.onnx"
GPT2 = REPO / "examples" / "gpt2_2layer.onnx"
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


def test_chunks_view_large_parts_and_join_small_ones_in_order():
    large = b"x" * (SLICE_BYTES + CHUNK_BYTES)
    parts = [b"a", bytes(63), large, b"b" * 10, bytes(54), b"c"]
    pieces = list(chunks(FileParts(parts)))
    assert b"".join(pieces) == b"".join(parts)
    small_joined, first_slice, second_slice, tail = pieces
    assert first_slice.obj is large and second_slice.obj is large  # views, never copies
    assert (len(first_slice), len(second_slice)) == (SLICE_BYTES, CHUNK_BYTES)
    assert bytes(small_joined) == b"a" + bytes(63) and bytes(tail) == b"b" * 10 + bytes(54) + b"c"


def test_released_pages_of_a_mapped_file_read_the_same(tmp_path):
    """Dropping a mapped view's pages from the resident set changes nothing a reader sees."""
    path = tmp_path / "weights.bin"
    data = bytes(range(256)) * (3 * mmap.PAGESIZE // 256 + 7)
    path.write_bytes(data)
    whole = mapped_file(str(path))
    view = whole[100 : len(data) - 100]
    assert bytes(view) == data[100:-100]
    release_mapped_pages(view)
    assert bytes(view) == data[100:-100] and bytes(whole) == data
    copied = bytearray(data)
    release_mapped_pages(memoryview(copied))  # not a mapping: left alone
    assert copied == data


def test_mapped_weights_import_as_views_of_the_same_bytes():
    """xhip-opt's import maps the model file: the same IR, its large weights views instead of copies."""
    copied, mapped = import_model(GPT2), import_model(GPT2, map_weights=True)
    assert print_ir(mapped) == print_ir(copied)
    views = [op.value.data.data for op in mapped.walk() if op.name == "onnx.Constant"]
    assert any(isinstance(view, memoryview) and isinstance(view.obj, mmap.mmap) for view in views)


def _external_data_model(folder: Path) -> Path:
    """A MatMul by a 64 x 64 weight kept in `weights.bin` beside the model."""
    weight = numpy_helper.from_array(np.arange(64 * 64, dtype=np.float32).reshape(64, 64), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 64])], [weight],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    path = folder / "model.onnx"
    onnx.save(model, path, save_as_external_data=True, location="weights.bin", size_threshold=0)
    return path


@pytest.mark.parametrize("map_weights", [False, True])
def test_external_data_imports_alike_mapped_or_read(tmp_path, map_weights):
    path = _external_data_model(tmp_path)
    reference = print_ir(import_model(onnx.load(path)))
    assert print_ir(import_model(path, map_weights=map_weights)) == reference
    with open(tmp_path / "weights.bin", "r+b") as handle:
        handle.truncate(1000)
    with pytest.raises(XhipError) as info:
        import_model(path, map_weights=map_weights)
    assert "external data 'weights.bin' has 1000 bytes; the tensor needs bytes 0 to 16384" in str(info.value)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_child_hashes_on_threads_of_its_own():
    """The parent's background threads do not exist in a forked child: its jobs must still run."""
    assert background.submit(sum, [1, 2]).result() == 3  # the parent's workers exist now
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit code, and never returns
        code = 1
        try:
            code = 0 if background.submit(sum, [3, 4]).result(timeout=60) == 7 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
