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
  its domain;
- `hip.pool_buffers`: per function, its pooled buffers in program order
  (`PoolBuffers`): `{sizes = [...], offsets = [...], intervals = array<i64:
  first0, last0, ...>, domains = array<i64: ...>, dims = "..."}`, sizes and
  offsets as printed `SizeExpr`s (an offset `"run-time"` where `hip.plan_pool` plans it), intervals the live op positions in the body at
  pool-allocs time; `dims`, present when a size needs a value that is not a
  graph input's symbol, is the printed `func.func @dims` of
  `xhip.analysis.model_buffers.dim_rules` (memory reports evaluate with it).

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

from collections.abc import Mapping, Sequence
from dataclasses import astuple, dataclass, fields

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, DictionaryAttr, IntegerAttr, IntegerType, ModuleOp, StringAttr, i64
from xdsl.ir import Attribute

POOL_ALIGNMENT_ATTR = "hip.pool_alignment"
POOL_SIZE_ATTR = "hip.pool_size"
POOL_SIZES_ATTR = "hip.pool_sizes"
DOMAIN_POOLS_ATTR = "hip.domain_pools"
DOMAIN_COUNT_ATTR = "hip.domain_count"
BUFFER_COUNT_ATTR = "hip.buffer_count"
BUFFER_OFFSETS_ATTR = "hip.buffer_offsets"
BUFFER_DOMAINS_ATTR = "hip.buffer_domains"
POOL_BUFFERS_ATTR = "hip.pool_buffers"
RUNTIME_OFFSET = -1
"""A `hip.buffer_offsets` entry whose offset is only known at run time."""

CONSTANTS_FILE_ATTR = "hip.constants_file"
COMPUTE_PRECISION_ATTR = "hip.compute_precision"
"""A module computed in a narrower float than it declares (onnx-convert-precision): its name."""
CONSTANTS_SIZE_ATTR = "hip.constants_size"
CONSTANTS_SHA256_ATTR = "hip.constants_sha256"
EXTERNAL_DATA_ATTR = "hip.external_data"
"""On an externalized `memref.global`: `{index, offset, size}` of its bytes in the file."""
CONSTANT_OFFSETS_ATTR = "hip.constant_offsets"
CONSTANT_SIZES_ATTR = "hip.constant_sizes"
"""Module attributes (`array<i64>`, by constant index) that hip-resolve-extern-constants leaves."""

OUT_PARAM_ATTR = "bufferize.result"


@dataclass(frozen=True)
class PoolBuffers:
    """One function's entry of `hip.pool_buffers`: per pooled buffer, in program order."""

    sizes: tuple[str, ...]
    offsets: tuple[str, ...]
    intervals: tuple[tuple[int, int], ...]
    domains: tuple[int, ...]
    dim_rules: str | None = None

    def __post_init__(self):
        if not len(self.sizes) == len(self.offsets) == len(self.intervals) == len(self.domains):
            raise ValueError(f"{POOL_BUFFERS_ATTR}: sizes, offsets, intervals and domains differ in length")


def format_intervals(intervals: Sequence[tuple[int, int]]) -> DenseArrayBase:
    """Live intervals as one `array<i64: first0, last0, first1, last1, ...>`."""
    return DenseArrayBase.from_list(i64, [point for pair in intervals for point in pair])


def parse_intervals(attr: DenseArrayBase[IntegerType], name: str) -> tuple[tuple[int, int], ...]:
    """What `format_intervals` wrote; a ValueError (naming attribute `name`) for an odd count."""
    points = [int(p) for p in attr.get_values()]
    if len(points) % 2:
        raise ValueError(f"{name}: intervals must be (first, last) pairs")
    return tuple(zip(points[::2], points[1::2]))


def format_pool_buffers(record: PoolBuffers) -> DictionaryAttr:
    entry: dict[str, Attribute] = {
        "sizes": ArrayAttr([StringAttr(s) for s in record.sizes]),
        "offsets": ArrayAttr([StringAttr(o) for o in record.offsets]),
        "intervals": format_intervals(record.intervals),
        "domains": DenseArrayBase.from_list(i64, list(record.domains)),
    }
    if record.dim_rules is not None:
        entry["dims"] = StringAttr(record.dim_rules)
    return DictionaryAttr(entry)


def string_array(attr: Attribute | None) -> tuple[str, ...] | None:
    """The strings of an array attribute of strings; None for anything else."""
    if not isinstance(attr, ArrayAttr):
        return None
    strings = tuple(s.data for s in attr.data if isinstance(s, StringAttr))
    return strings if len(strings) == len(attr.data) else None


def parse_pool_buffers(attr: Attribute) -> PoolBuffers:
    """One function's entry of `hip.pool_buffers`; a ValueError says what is wrong."""
    entry = attr.data if isinstance(attr, DictionaryAttr) else {}
    sizes, offsets = string_array(entry.get("sizes")), string_array(entry.get("offsets"))
    intervals, domains, dims = entry.get("intervals"), entry.get("domains"), entry.get("dims")
    if not (
        sizes is not None
        and offsets is not None
        and isinstance(intervals, DenseArrayBase)
        and isinstance(domains, DenseArrayBase)
        and (dims is None or isinstance(dims, StringAttr))
    ):
        raise ValueError(
            f"{POOL_BUFFERS_ATTR}: an entry needs sizes and offsets (strings), intervals and domains "
            "(array<i64>), and dims, if any, a string"
        )
    pairs = parse_intervals(intervals, POOL_BUFFERS_ATTR)
    rules = dims.data if isinstance(dims, StringAttr) else None
    return PoolBuffers(sizes, offsets, pairs, tuple(int(d) for d in domains.get_values()), rules)


def pool_buffers(module: ModuleOp) -> dict[str, PoolBuffers]:
    """`hip.pool_buffers` by function name (empty when no pool was planned); ValueError if malformed."""
    table = module.attributes.get(POOL_BUFFERS_ATTR)
    if table is None:
        return {}
    if not isinstance(table, DictionaryAttr):
        raise ValueError(f"{POOL_BUFFERS_ATTR} must be a dictionary of functions")
    return {name: parse_pool_buffers(entry) for name, entry in table.data.items()}


def pool_sizes(module: ModuleOp) -> list[str]:
    """`hip.pool_sizes`: the printed pool size of each domain; ValueError if malformed."""
    sizes = string_array(module.attributes.get(POOL_SIZES_ATTR, ArrayAttr([])))
    if sizes is None:
        raise ValueError(f"{POOL_SIZES_ATTR} must be an array of strings")
    return list(sizes)


def domain_pools(module: ModuleOp) -> list[int]:
    """`hip.domain_pools`: the pool each domain draws from (each its own when absent)."""
    attr = module.attributes.get(DOMAIN_POOLS_ATTR)
    if attr is None:
        return list(range(len(pool_sizes(module))))
    if not isinstance(attr, DenseArrayBase):
        raise ValueError(f"{DOMAIN_POOLS_ATTR} must be an array<i64>")
    return [int(v) for v in attr.get_values()]


def pool_attributes(
    alignment: int,
    total: str,
    totals: Sequence[str],
    offsets: Sequence[int],
    domains: Sequence[int],
    pools: Sequence[int],
    functions: Mapping[str, PoolBuffers] | None = None,
) -> dict[str, Attribute]:
    """The module attributes of a pool plan: sizes as printed SizeExprs, per-domain pools,
    per-buffer lists in program order, and each function's buffers in full (`functions`,
    for memory reports)."""
    attributes: dict[str, Attribute] = {
        POOL_ALIGNMENT_ATTR: IntegerAttr(alignment, i64),
        POOL_SIZE_ATTR: StringAttr(total),
        POOL_SIZES_ATTR: ArrayAttr([StringAttr(t) for t in totals]),
        DOMAIN_COUNT_ATTR: IntegerAttr(len(totals), i64),
        BUFFER_COUNT_ATTR: IntegerAttr(len(offsets), i64),
        BUFFER_OFFSETS_ATTR: DenseArrayBase.from_list(i64, list(offsets)),
        BUFFER_DOMAINS_ATTR: DenseArrayBase.from_list(i64, list(domains)),
        DOMAIN_POOLS_ATTR: DenseArrayBase.from_list(i64, list(pools)),
    }
    if functions:
        attributes[POOL_BUFFERS_ATTR] = DictionaryAttr({n: format_pool_buffers(r) for n, r in functions.items()})
    return attributes


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
