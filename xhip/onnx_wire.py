"""Load an ONNX file without holding its weights twice.

`onnx.load` reads the whole file into one bytes object and parses it into a
message that copies every initializer: the peak is twice the weights. Instead,
the file is mapped and walked at the protobuf wire level; each large
initializer's `raw_data` is replaced by an external-data reference to its own
bytes inside the same file, and only the small remainder is parsed. The
importer then reads each weight straight from the file once, like any
external-data model (`read_range`), or, for a process that ends with the
compile, takes views of the file mapped once (`mapped_file`): nothing is
copied, and a weight's pages are read when a pass first touches them.

Wire format facts used here (protobuf encoding): a field key is a varint
`number << 3 | wire_type`; wire type 2 is a varint length then that many bytes.
ModelProto.graph = 7, GraphProto.initializer = 5, TensorProto.raw_data = 9,
TensorProto.external_data = 13 (StringStringEntryProto: key = 1, value = 2),
TensorProto.data_location = 14 (EXTERNAL = 1).
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator

import numpy as np

MODEL_GRAPH = 7
GRAPH_INITIALIZER = 5
TENSOR_RAW_DATA = 9
TENSOR_EXTERNAL_DATA = 13
TENSOR_DATA_LOCATION = 14
EXTERNAL = 1
LENGTH_DELIMITED = 2

MIN_EXTERNALIZED_BYTES = 4096
"""Smaller initializers stay inline (shape inference may need their values)."""


class WireFormatError(ValueError):
    """The bytes are not a well-formed protobuf message."""


def _varint(buf: mmap.mmap | bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise WireFormatError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _fields(buf: mmap.mmap | bytes, start: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """(field number, start of the field's key, start of its value, end of the field)."""
    pos = start
    while pos < end:
        key_start = pos
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, value_end = _varint(buf, pos)
            value_start = pos
        elif wire == 1:
            value_start, value_end = pos, pos + 8
        elif wire == LENGTH_DELIMITED:
            length, value_start = _varint(buf, pos)
            value_end = value_start + length
        elif wire == 5:
            value_start, value_end = pos, pos + 4
        else:
            raise WireFormatError(f"unsupported wire type {wire}")
        if value_end > end:
            raise WireFormatError("field runs past the end of its message")
        yield number, key_start, value_start, value_end
        pos = value_end


def _length_delimited(number: int, payload: bytes) -> bytes:
    return _encode_varint(number << 3 | LENGTH_DELIMITED) + _encode_varint(len(payload)) + payload


def _entry(key: str, value: str) -> bytes:
    body = _length_delimited(1, key.encode()) + _length_delimited(2, value.encode())
    return _length_delimited(TENSOR_EXTERNAL_DATA, body)


def _tensor_with_external_raw_data(buf: mmap.mmap, start: int, end: int, location: str) -> bytes:
    raw = [(v0, v1) for n, _, v0, v1 in _fields(buf, start, end) if n == TENSOR_RAW_DATA]
    if len(raw) != 1 or raw[0][1] - raw[0][0] < MIN_EXTERNALIZED_BYTES:
        return bytes(buf[start:end])
    kept = bytearray()
    for number, key_start, _, field_end in _fields(buf, start, end):
        if number not in (TENSOR_RAW_DATA, TENSOR_EXTERNAL_DATA, TENSOR_DATA_LOCATION):
            kept += buf[key_start:field_end]
    offset, stop = raw[0]
    kept += _entry("location", location) + _entry("offset", str(offset)) + _entry("length", str(stop - offset))
    kept += _encode_varint(TENSOR_DATA_LOCATION << 3) + _encode_varint(EXTERNAL)
    return bytes(kept)


def _graph_without_weights(buf: mmap.mmap, start: int, end: int, location: str) -> bytes:
    out = bytearray()
    for number, key_start, value_start, value_end in _fields(buf, start, end):
        if number == GRAPH_INITIALIZER:
            out += _length_delimited(number, _tensor_with_external_raw_data(buf, value_start, value_end, location))
        else:
            out += buf[key_start:value_end]
    return bytes(out)


def read_range(path: str, offset: int, size: int) -> bytes:
    """`size` bytes of the file at `path` from `offset` (fewer where it ends first)."""
    with open(path, "rb") as handle:
        handle.seek(offset)
        return handle.read(size)


def mapped_file(path: str) -> memoryview:
    """The file at `path` mapped read-only; it stays mapped while any view of it lives."""
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return memoryview(b"")  # an empty file cannot be mapped
        return memoryview(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ))


def release_mapped_pages(view: bytes | memoryview) -> None:
    """Drop the whole pages under `view` from this process's resident set, if it is a view of a
    mapped file; anything else is left alone.

    Only a file's read-only shared mapping: the page cache keeps the bytes and a later touch
    maps them again, so no reader ever sees a difference. Hashing and writing GPT-2 124M's
    weights touch all 500 MB of them; released 32 MB at a time they leave peak RSS at 0.34x
    the file instead of 1.17x.
    """
    if not isinstance(view, memoryview) or not isinstance(view.obj, mmap.mmap) or not len(view):
        return
    start = _address(view) - _address(view.obj)
    first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE
    end = (start + len(view)) // mmap.PAGESIZE * mmap.PAGESIZE
    if end > first:
        view.obj.madvise(mmap.MADV_DONTNEED, first, end - first)


def _address(buffer: memoryview | mmap.mmap) -> int:
    """Where `buffer`'s first byte is in memory (NumPy reads it for read-only buffers too)."""
    return int(np.frombuffer(buffer, dtype=np.uint8, count=1).ctypes.data)


def model_bytes_without_weights(path: str) -> bytes:
    """The serialized ModelProto at `path`, large initializers turned into references to `path`."""
    location = os.path.basename(path)
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return b""
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            out = bytearray()
            for number, key_start, value_start, value_end in _fields(buf, 0, len(buf)):
                if number == MODEL_GRAPH:
                    out += _length_delimited(number, _graph_without_weights(buf, value_start, value_end, location))
                else:
                    out += buf[key_start:value_end]
            return bytes(out)
