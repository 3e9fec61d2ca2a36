"""hip-externalize-constants: move large tensor constants into a constants file.

Weights do not belong in the IR text or in host memory of the compiled program:
constants with at least `externalize-min-num-elements` elements are written to
`<module name or "model">.constants.bin` (each at a 64-byte aligned offset) and
replaced by an uninitialized `memref.global` carrying
`hip.external_data = {index, offset, size}`, read through `memref.get_global` +
`bufferization.to_tensor restrict`. Smaller constants stay `arith.constant`.
The file is complete (temp file, then rename) before the IR is touched.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects import arith, bufferization, builtin, memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.diagnostics import XhipError, op_error

CONSTANT_ALIGNMENT = 64
CONSTANTS_FILE_ATTR = "hip.constants_file"
EXTERNAL_DATA_ATTR = "hip.external_data"
GLOBAL_PREFIX = "hip_ext_constant_"


def aligned_offsets(sizes: list[int], alignment: int = CONSTANT_ALIGNMENT) -> list[int]:
    """Offsets of consecutive blobs, each starting at a multiple of `alignment`."""
    offsets, cursor = [], 0
    for size in sizes:
        offsets.append(cursor)
        cursor = -(-(cursor + size) // alignment) * alignment
    return offsets


def _write_atomically(path: Path, blobs: list[bytes], offsets: list[int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            for blob, offset in zip(blobs, offsets, strict=True):
                out.write(b"\0" * (offset - out.tell()))
                out.write(blob)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _candidates(module: builtin.ModuleOp, threshold: int) -> list[arith.ConstantOp]:
    if threshold <= 0:
        return []
    found = []
    for op in module.walk():
        if (
            isinstance(op, arith.ConstantOp)
            and isinstance(op.value, DenseIntOrFPElementsAttr)
            and isinstance(op.result.type, TensorType)
            and len(op.value) >= threshold
        ):
            found.append(op)
    return found


@dataclass(frozen=True)
class ExternalizeConstantsPass(ModulePass):
    """Write large tensor constants to a constants file; keep small ones inline."""

    name = "hip-externalize-constants"

    externalize_min_num_elements: int = 0
    """Constants with at least this many elements go to the file; 0 keeps all inline."""

    externalize_output_dir: str = ""
    """Directory of the constants file; empty means the current directory."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.externalize_min_num_elements < 0:
            raise XhipError(
                f"hip-externalize-constants: externalize-min-num-elements must be >= 0, "
                f"got {self.externalize_min_num_elements}"
            )
        constants = _candidates(op, self.externalize_min_num_elements)
        if not constants:
            return
        if CONSTANTS_FILE_ATTR in op.attributes:
            raise op_error(
                op,
                f"module already has {CONSTANTS_FILE_ATTR}; externalizing again would "
                "overwrite the constants file it names",
            )
        blobs = [c.value.data.data for c in constants]
        offsets = aligned_offsets([len(b) for b in blobs])
        module_name = op.sym_name.data if op.sym_name is not None else "model"
        file_name = f"{module_name}.constants.bin"
        target = Path(self.externalize_output_dir or ".") / file_name
        try:
            _write_atomically(target, blobs, offsets)
        except OSError as err:
            raise XhipError(f"cannot write constants file: {err.strerror}", str(target)) from None

        declarations_at = InsertPoint.at_start(op.body.block)
        for index, (constant, blob, offset) in enumerate(zip(constants, blobs, offsets, strict=True)):
            tensor_type = constant.result.type
            memref_type = MemRefType(tensor_type.element_type, tensor_type.get_shape())
            symbol = f"{GLOBAL_PREFIX}{index}"
            declaration = memref.GlobalOp.get(
                StringAttr(symbol), memref_type, UnitAttr(), alignment=CONSTANT_ALIGNMENT
            )
            declaration.attributes[EXTERNAL_DATA_ATTR] = DictionaryAttr(
                {
                    "index": IntegerAttr(index, i64),
                    "offset": IntegerAttr(offset, i64),
                    "size": IntegerAttr(len(blob), i64),
                }
            )
            Rewriter.insert_op(declaration, declarations_at)
            declarations_at = InsertPoint.after(declaration)
            get_global = memref.GetGlobalOp(SymbolRefAttr(symbol), memref_type)
            as_tensor = bufferization.ToTensorOp(get_global.memref, restrict=True)
            Rewriter.replace_op(constant, [get_global, as_tensor])
        op.attributes[CONSTANTS_FILE_ATTR] = StringAttr(file_name)
