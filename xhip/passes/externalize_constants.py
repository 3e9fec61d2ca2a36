"""hip-externalize-constants: move large tensor constants into a constants file.

Weights do not belong in the IR text or in host memory of the compiled program:
constants with at least `externalize-min-num-elements` elements become one
constants file (each at a 64-byte aligned offset) and are replaced by an
uninitialized `memref.global` carrying `hip.external_data = {index, offset, size}`,
read through `memref.get_global` + `bufferization.to_tensor restrict`. Smaller
constants stay `arith.constant`.

The pass writes no file: the bytes go to the compile's `ConstantsStore`, and the
module records the file's name, size and SHA-256 (see `xhip.constants_file`:
the checksum is computed off the main thread and recorded when the store
settles, before the IR is printed or handed out).
The tool that runs the pipeline writes the file when the whole command succeeded
(`xhip-opt -o out.mlir`: `out.constants.bin` beside it) or keeps it in memory
(`xhip-run`, `xhip.compile()`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, bufferization, builtin, memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xhip.constants_file import ConstantsStore, FileParts
from xhip.diagnostics import XhipError, op_error
from xhip.dialects.hip.attributes import CONSTANTS_FILE_ATTR, EXTERNAL_DATA_ATTR, ExternalData, format_external_data

CONSTANT_ALIGNMENT = 64
GLOBAL_PREFIX = "hip_ext_constant_"


def aligned_offsets(sizes: list[int], alignment: int = CONSTANT_ALIGNMENT) -> list[int]:
    """Offsets of consecutive blobs, each starting at a multiple of `alignment`."""
    offsets, cursor = [], 0
    for size in sizes:
        offsets.append(cursor)
        cursor = -(-(cursor + size) // alignment) * alignment
    return offsets


def file_bytes(blobs: list[bytes], offsets: list[int]) -> FileParts:
    """The constants file: each blob at its offset, zero padding between (the blobs are not copied)."""
    parts: list[bytes] = []
    cursor = 0
    for blob, offset in zip(blobs, offsets, strict=True):
        parts += [bytes(offset - cursor), blob]
        cursor = offset + len(blob)
    return FileParts(parts)


@dataclass(frozen=True)
class _Candidate:
    """A tensor constant to externalize: the op, its dense value and its tensor type."""

    op: arith.ConstantOp
    value: DenseIntOrFPElementsAttr
    tensor_type: TensorType[Attribute]


def _candidates(module: builtin.ModuleOp, threshold: int) -> list[_Candidate]:
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
            found.append(_Candidate(op, op.value, op.result.type))
    return found


@dataclass(frozen=True)
class ExternalizeConstantsPass(ModulePass):
    """Write large tensor constants to a constants file; keep small ones inline."""

    name = "hip-externalize-constants"

    externalize_min_num_elements: int = 0
    """Constants with at least this many elements go to the file; 0 keeps all inline."""

    externalize_output_dir: str = ""
    """Directory xhip-opt writes the constants file to; empty: beside the -o file (stdout: the current directory)."""

    constants: ConstantsStore = field(default_factory=ConstantsStore, init=False, compare=False, repr=False)
    """Where the file's bytes go: the driver's store (`storing_into`), else one of this pass's own."""

    def storing_into(self, store: ConstantsStore) -> ExternalizeConstantsPass:
        """This pass with its constants going to `store`."""
        copy = dataclasses.replace(self)
        object.__setattr__(copy, "constants", store)
        return copy

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
        data = file_bytes(blobs, offsets)
        file_name = self.constants.add(data, self.externalize_output_dir)

        declarations_at = InsertPoint.at_start(op.body.block)
        for index, (constant, blob, offset) in enumerate(zip(constants, blobs, offsets, strict=True)):
            tensor_type = constant.tensor_type
            memref_type = MemRefType(tensor_type.element_type, tensor_type.get_shape())
            symbol = f"{GLOBAL_PREFIX}{index}"
            declaration = memref.GlobalOp.get(
                StringAttr(symbol), memref_type, UnitAttr(), alignment=CONSTANT_ALIGNMENT
            )
            declaration.attributes[EXTERNAL_DATA_ATTR] = format_external_data(ExternalData(index, offset, len(blob)))
            Rewriter.insert_op(declaration, declarations_at)
            declarations_at = InsertPoint.after(declaration)
            get_global = memref.GetGlobalOp(SymbolRefAttr(symbol), memref_type)
            as_tensor = bufferization.ToTensorOp(get_global.memref, restrict=True)
            Rewriter.replace_op(constant.op, [get_global, as_tensor])
        self.constants.record(op, file_name)


def storing_constants_into(passes: list[ModulePass], store: ConstantsStore) -> list[ModulePass]:
    """The passes, with every hip-externalize-constants among them putting its file into `store`."""
    return [p.storing_into(store) if isinstance(p, ExternalizeConstantsPass) else p for p in passes]
