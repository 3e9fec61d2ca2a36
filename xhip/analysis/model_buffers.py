"""The model's own buffers, before any reuse pass: what hip-record-model-buffers records.

`model_buffers(function)` lists the buffers that hip-pool-allocs would pool
(entry-block allocations with an identity layout whose bytes do not leave the
function, less the tiny host-touched ones that hip-materialize-host-scalars
moves to host scratch), each its own buffer: its byte size as a `SizeExpr` over
dim names (a graph input's dim is its ONNX symbol, `batch`; any other value is
named as in the pool sizes, `%select`), its live interval (`liveness`: from the
allocation to the last use through any view), and whether its producer could
write it over a dying input.

That last fact is the kernels' aliasing contract (`xhip.analysis.in_place`), with
"same size" meaning the same printed byte size.

As a module attribute, `hip.model_buffers` = {function name = {sizes = [...],
intervals = array<i64: first0, last0, ...>, in_place = array<i64: ...>, dims =
"..."}} (`xhip.memory.model_bound` says what the lists mean); the runtime
evaluates it at each run's dims (`RecordedBuffers.bounds`). `dims`, present when a
size needs a value no graph input names (a Reshape target), is a printed
`func.func @dims` that computes those values from the symbols with the cone of
index arithmetic that defines them; a dim that needs more (a load, a dim of an
intermediate) stays unknown, and so does the bound.

The sizing helpers come from the passes that define what is pooled
(`xhip.passes.pool_allocs`, `xhip.passes.materialize_host_scalars`), so the record
counts exactly what those passes would place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, DictionaryAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xhip.analysis.in_place import in_place_pairs
from xhip.analysis.liveness import Interval, live_intervals
from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.dialects.hip.attributes import format_intervals, parse_intervals, string_array
from xhip.index.host_eval import evaluate
from xhip.memory import SizeExpr
from xhip.memory.model_bound import HonestBounds, ModelBuffers, model_buffers_from_text
from xhip.passes.contracts import escapes, is_pure
from xhip.analysis.host_access import HOST_SCALAR_MAX_ELEMENTS, is_host_scalar
from xhip.parsing import parse_module
from xhip.analysis.pool_sizes import DimNames, byte_size, is_poolable, symbolic_dim

MODEL_BUFFERS_ATTR = "hip.model_buffers"


# -- dims no graph input names -------------------------------------------------------------


class _NotComputable(Exception):
    """A dim whose value needs more than index arithmetic on the graph inputs' symbols."""


def _collect_cone(value: SSAValue, ops: set[Operation], symbols: dict[str, set[SSAValue]]) -> None:
    symbol = symbolic_dim(value)
    if symbol:
        # Several graph inputs may declare one symbol (`batch` of input_ids and of
        # attention_mask): each dim read is a value of its own, all bound to one argument.
        symbols.setdefault(symbol, set()).add(value)
        return
    owner = value.owner
    if not isinstance(owner, Operation) or not is_pure(owner) or isinstance(owner, memref.DimOp):
        raise _NotComputable
    if owner not in ops:
        ops.add(owner)
        for operand in owner.operands:
            _collect_cone(operand, ops, symbols)


def dim_rules(dims: dict[str, SSAValue]) -> str | None:
    """The dims (name -> value) as one function of the graph inputs' symbols, printed:
    `func.func @dims(%batch: index, ...) -> (index, ...)` with `onnx.name` on each
    argument and the names of `dims` in `hip.dim_names`; None if one needs more
    than index arithmetic on symbols (a load, a dim of an intermediate)."""
    ops: set[Operation] = set()
    symbols: dict[str, set[SSAValue]] = {}
    computable = {}
    for name, value in dims.items():
        try:
            cone: set[Operation] = set()
            _collect_cone(value, cone, symbols)
        except _NotComputable:
            continue
        ops |= cone
        computable[name] = value
    if not computable:
        return None
    block = Block(arg_types=[next(iter(values)).type for values in symbols.values()])
    mapper: dict[SSAValue, SSAValue] = {
        value: arg for values, arg in zip(symbols.values(), block.args) for value in values
    }
    first_block = next(iter(computable.values())).owner.parent_block()
    positions = {op: i for i, op in enumerate(first_block.ops)} if first_block else {}
    for op in sorted(ops, key=lambda o: positions.get(o, 0)):
        block.add_op(op.clone(value_mapper=mapper))
    block.add_op(func.ReturnOp(*(mapper[v] for v in computable.values())))
    function = func.FuncOp.from_region(
        "dims", [a.type for a in block.args], [v.type for v in computable.values()], Region(block)
    )
    function.arg_attrs = ArrayAttr([DictionaryAttr({"onnx.name": StringAttr(s)}) for s in symbols])
    function.attributes["hip.dim_names"] = ArrayAttr([StringAttr(n) for n in computable])
    return str(ModuleOp([function]))


def _onnx_name(attrs: DictionaryAttr) -> str:
    name = attrs.data["onnx.name"]
    assert isinstance(name, StringAttr)
    return name.data


@lru_cache(maxsize=64)
def _parsed_dim_rules(text: str) -> tuple[list[tuple[SSAValue, str]], list[tuple[str, SSAValue]]]:
    """The rules' arguments (value, symbol) and results (name, value), parsed once per text:
    a run evaluates them at every call, and parsing costs more than the run of a small model."""
    module = parse_module(make_context(), text, MODEL_BUFFERS_ATTR)
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    names = string_array(function.attributes["hip.dim_names"])
    assert names is not None
    block = function.body.blocks.first
    assert block is not None
    arguments: list[tuple[SSAValue, str]] = [
        (arg, _onnx_name(attrs)) for arg, attrs in zip(block.args, function.arg_attrs.data if function.arg_attrs else ())
    ]
    returned = block.last_op
    assert isinstance(returned, func.ReturnOp)
    return arguments, list(zip(names, returned.operands))


def evaluate_dim_rules(text: str, symbols: Mapping[str, int]) -> dict[str, int]:
    """What `dim_rules` gives at these symbol values; dims it cannot compute are left out."""
    arguments, results = _parsed_dim_rules(text)
    bindings = {}
    for arg, symbol in arguments:
        if symbol not in symbols:
            return {}
        bindings[arg] = symbols[symbol]
    values = {}
    for name, value in results:
        try:
            values[name] = evaluate(value, bindings)
        except XhipError:
            continue
    return values


def _in_place_targets(
    allocs: list[memref.AllocOp], sizes: list[SizeExpr], intervals: dict[SSAValue, Interval], block: Block
) -> list[int]:
    """Per allocation, the earlier one its producer may overwrite, or -1."""
    index_of: dict[SSAValue, int] = {alloc.memref: i for i, alloc in enumerate(allocs)}
    pairs = in_place_pairs(block, index_of, intervals, lambda a, b: sizes[index_of[a]] == sizes[index_of[b]])
    targets = [-1] * len(allocs)
    for written, source in pairs.items():
        targets[index_of[written]] = index_of[source]
    return targets


def _dim_values(sizes: list[SizeExpr]) -> list[SSAValue]:
    """The dims of `sizes`, in order: `byte_size` keys each by its SSA value."""
    values: list[SSAValue] = []
    for size in sizes:
        for key in size.dims:
            assert isinstance(key, SSAValue)
            values.append(key)
    return values


def _by_name(item: tuple[str, object]) -> str:
    return item[0]


class SymbolNames(DimNames):
    """Like the pool's names, but every dim read from a graph input is its ONNX symbol
    itself: two inputs that declare `batch` give one dim (the runtime rejects feeds
    where they disagree), and a run binds it by that name."""

    def __call__(self, value: SSAValue) -> str:
        return symbolic_dim(value) or super().__call__(value)


def _is_device_transient(alloc: memref.AllocOp) -> bool:
    """What hip-pool-allocs pools, less what hip-materialize-host-scalars moves to host
    scratch (where a pipeline runs it after this pass, as reuse-before-host-scalars does)."""
    return (
        is_poolable(alloc)
        and not escapes(alloc.memref)
        and not is_host_scalar(alloc, HOST_SCALAR_MAX_ELEMENTS)
    )


@dataclass(frozen=True)
class RecordedBuffers:
    """One function's `hip.model_buffers` entry: its buffers and how to compute the
    dims of their sizes that no graph input names (`dim_rules`)."""

    buffers: ModelBuffers
    dim_rules: str | None = None

    def bounds(self, symbols: Mapping[str, int], alignment: int) -> HonestBounds | None:
        """Both bounds at the run's symbol values; None if a size needs a dim not computable."""
        dims = dict(symbols)
        if self.dim_rules is not None:
            dims.update(evaluate_dim_rules(self.dim_rules, symbols))
        return self.buffers.bounds(dims, alignment)


def model_buffers(function: func.FuncOp, names: DimNames) -> RecordedBuffers | None:
    """The function's poolable intermediates, each its own buffer; None if it has none."""
    block = function.body.blocks.first
    if block is None:
        return None
    allocs = [a for a in block.ops if isinstance(a, memref.AllocOp) and _is_device_transient(a)]
    if not allocs:
        return None
    intervals = live_intervals(block, [a.memref for a in allocs])
    sizes = [byte_size(a, names) for a in allocs]
    buffers = ModelBuffers(
        tuple(sizes),
        tuple((intervals[a.memref].first, intervals[a.memref].last) for a in allocs),
        tuple(_in_place_targets(allocs, sizes, intervals, block)),
    )
    # By name: the order of a set of dims would change the printed rules between compiles.
    unnamed = dict(sorted(((names(k), k) for k in _dim_values(sizes) if symbolic_dim(k) is None), key=_by_name))
    return RecordedBuffers(buffers, dim_rules(unnamed) if unnamed else None)


def format_model_buffers(recorded: RecordedBuffers) -> DictionaryAttr:
    buffers = recorded.buffers
    entry: dict[str, Attribute] = {
        "sizes": ArrayAttr([StringAttr(str(size)) for size in buffers.sizes]),
        "intervals": format_intervals(buffers.intervals),
        "in_place": DenseArrayBase.from_list(i64, list(buffers.in_place)),
    }
    if recorded.dim_rules is not None:
        entry["dims"] = StringAttr(recorded.dim_rules)
    return DictionaryAttr(entry)


def parse_model_buffers(attr: Attribute) -> RecordedBuffers:
    """One function's entry of `hip.model_buffers`; a ValueError says what is wrong."""
    if not isinstance(attr, DictionaryAttr):
        raise ValueError(f"{MODEL_BUFFERS_ATTR}: each entry must be a dictionary")
    sizes, intervals, in_place, dims = (attr.data.get(key) for key in ("sizes", "intervals", "in_place", "dims"))
    texts = string_array(sizes)
    if not (
        texts is not None
        and isinstance(intervals, DenseArrayBase)
        and isinstance(in_place, DenseArrayBase)
        and (dims is None or isinstance(dims, StringAttr))
    ):
        raise ValueError(
            f"{MODEL_BUFFERS_ATTR}: an entry needs sizes (strings), intervals and in_place (array<i64>), "
            "and dims, if any, a string"
        )
    pairs = parse_intervals(intervals, MODEL_BUFFERS_ATTR)
    buffers = model_buffers_from_text(list(texts), pairs, [int(t) for t in in_place.get_values()])
    return RecordedBuffers(buffers, dims.data if isinstance(dims, StringAttr) else None)


def recorded_model_buffers(module: ModuleOp, function: str) -> RecordedBuffers | None:
    """What hip-record-model-buffers wrote for `function`, None if nothing was recorded."""
    table = module.attributes.get(MODEL_BUFFERS_ATTR)
    if not isinstance(table, DictionaryAttr) or function not in table.data:
        return None
    return parse_model_buffers(table.data[function])
