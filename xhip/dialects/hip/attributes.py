"""The discardable attributes of hip IR: module facts that passes write and the runtime reads.

Memory planning (hip-pool-allocs) records what it did on the module:

- `hip.pool_alignment`: the byte alignment of every pooled buffer (i64);
- `hip.pool_size`, `hip.pool_sizes`: the pool size of all pools together and
  per dominance domain, as printed `SizeExpr`s (`"max(align_up(16*m, 256), 512)"`),
  or `"run-time"` where the sizes are planned at run time (`hip.plan_pool`);
- `hip.domain_count`, `hip.buffer_count`: how many domains and pooled buffers;
- `hip.domain_pools`: per domain, the pool it draws from (a later domain takes
  an earlier pool whose buffers are all dead, so pools can be fewer than domains);
- `hip.buffer_offsets`, `hip.buffer_domains`: per pooled buffer in program
  order, its static offset (`RUNTIME_OFFSET` when only known at run time) and
  its domain.

Constants (hip-externalize-constants, hip-resolve-extern-constants):
`hip.constants_file` names the module's constants file (relative to the IR
file's directory), `hip.constants_size` / `hip.constants_sha256` identify its
bytes (`xhip.constants_file` writes and checks them), `hip.external_data =
{index, offset, size}` marks a `memref.global` whose bytes live there, and
`hip.constant_offsets` / `hip.constant_sizes` list them per constant index.

Out-parameters (buffer-results-to-out-params) carry `bufferize.result`, seed
003's spelling, on the argument that receives a graph output: not a hip name,
but a fact of the hip calling convention the runtime reads.

Passes and the runtime spell these names through the constants here, and
format / parse them with the helpers, so a name is written once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Attribute

POOL_ALIGNMENT_ATTR = "hip.pool_alignment"
POOL_SIZE_ATTR = "hip.pool_size"
POOL_SIZES_ATTR = "hip.pool_sizes"
DOMAIN_POOLS_ATTR = "hip.domain_pools"
DOMAIN_COUNT_ATTR = "hip.domain_count"
BUFFER_COUNT_ATTR = "hip.buffer_count"
BUFFER_OFFSETS_ATTR = "hip.buffer_offsets"
BUFFER_DOMAINS_ATTR = "hip.buffer_domains"
RUNTIME_OFFSET = -1
"""A `hip.buffer_offsets` entry whose offset is only known at run time."""

CONSTANTS_FILE_ATTR = "hip.constants_file"
CONSTANTS_SIZE_ATTR = "hip.constants_size"
CONSTANTS_SHA256_ATTR = "hip.constants_sha256"
EXTERNAL_DATA_ATTR = "hip.external_data"
"""On an externalized `memref.global`: `{index, offset, size}` of its bytes in the file."""
CONSTANT_OFFSETS_ATTR = "hip.constant_offsets"
CONSTANT_SIZES_ATTR = "hip.constant_sizes"
"""Module attributes (`array<i64>`, by constant index) that hip-resolve-extern-constants leaves."""

OUT_PARAM_ATTR = "bufferize.result"


def pool_attributes(
    alignment: int,
    total: str,
    totals: Sequence[str],
    offsets: Sequence[int],
    domains: Sequence[int],
    pools: Sequence[int],
) -> dict[str, Attribute]:
    """The module attributes of a pool plan: sizes as printed SizeExprs, per-domain pools,
    per-buffer lists in program order."""
    return {
        POOL_ALIGNMENT_ATTR: IntegerAttr(alignment, i64),
        POOL_SIZE_ATTR: StringAttr(total),
        POOL_SIZES_ATTR: ArrayAttr([StringAttr(t) for t in totals]),
        DOMAIN_COUNT_ATTR: IntegerAttr(len(totals), i64),
        BUFFER_COUNT_ATTR: IntegerAttr(len(offsets), i64),
        BUFFER_OFFSETS_ATTR: DenseArrayBase.from_list(i64, list(offsets)),
        BUFFER_DOMAINS_ATTR: DenseArrayBase.from_list(i64, list(domains)),
        DOMAIN_POOLS_ATTR: DenseArrayBase.from_list(i64, list(pools)),
    }


def pool_alignment(module: ModuleOp) -> int | None:
    """The module's `hip.pool_alignment`, None when no pool was planned."""
    attr = module.attributes.get(POOL_ALIGNMENT_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


@dataclass(frozen=True)
class ExternalData:
    """Where one externalized global's bytes are in the constants file (`hip.external_data`)."""

    index: int
    offset: int
    size: int


def format_external_data(data: ExternalData) -> DictionaryAttr:
    """`hip.external_data` as `{index, offset, size}` of i64."""
    return DictionaryAttr({field.name: IntegerAttr(value, i64) for field, value in zip(fields(data), astuple(data))})


def parse_external_data(attr: Attribute) -> ExternalData:
    """A `hip.external_data` value, checked: a ValueError names what is wrong (the caller locates it)."""
    if not isinstance(attr, DictionaryAttr):
        raise ValueError(f"{EXTERNAL_DATA_ATTR} must be a dictionary {{index, offset, size}}")
    values = {}
    for field in fields(ExternalData):
        entry = attr.data.get(field.name)
        if not isinstance(entry, IntegerAttr) or entry.value.data < 0:
            raise ValueError(f"{EXTERNAL_DATA_ATTR} needs a non-negative integer '{field.name}'")
        values[field.name] = entry.value.data
    return ExternalData(**values)
