"""Einsum as transposes, reshapes, sums and batched matmuls (no kernel of its own).

The equation's operands are contracted left to right. For a pair, each operand first sums
the labels no later term needs and the other lacks; the labels both share and a later term
(or the output) needs are the batch, those both share and none needs are contracted, the
rest are each side's own. A becomes [batch.., left, contracted] and B [batch.., contracted,
right] (a transpose each, then a view merging the groups), one hip.matmul (batch dims
broadcast as MatMul's, which is what "..." asks), and a view splits left and right again.
The last term sums what the output lacks and is transposed into its order. "..." names
the leading dims of each operand, aligned from the right as NumPy broadcasting does.

A label repeated within one operand is that operand's diagonal: its two dims are moved
last, merged into one of n * n elements and sliced with step n + 1 (a strided view where n
is static, the slice kernel where it is a run-time dim), once per repeat.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i64
from xdsl.ir import Operation, SSAValue

from xhip import shapes
from xhip.dialects import hip
from xhip.rewrite_rules.onnx_to_hip.registry import converts
from xhip.rewrite_rules.onnx_to_hip.state import ConversionState, Lowered
from xhip.rewrite_rules.onnx_to_hip.views import reshape_value, strided_window
from xhip.shapes import Dim

ELLIPSIS = "..."


@dataclass
class _Term:
    """A tensor and the label of each of its dims."""

    value: SSAValue
    dims: list[Dim]
    labels: list[str]


def parse_equation(state: ConversionState, equation: str, ranks: list[int]) -> tuple[list[list[str]], list[str]]:
    """Each operand's labels and the output's; "..." becomes labels ".0", ".1", .. numbered
    so that the broadcast dims of every operand line up from the right."""
    text = equation.replace(" ", "")
    inputs_text, arrow, output_text = text.partition("->")
    terms = inputs_text.split(",")
    if len(terms) != len(ranks):
        raise state.error(f"Einsum equation '{equation}' has {len(terms)} operand terms for {len(ranks)} inputs")
    named = [term.replace(ELLIPSIS, "") for term in terms]
    if not all(name.isalpha() or not name for name in named) or any(term.count(ELLIPSIS) > 1 for term in terms):
        raise state.error(f"Einsum equation '{equation}' is not letters and at most one '...' per term")
    broadcast = [rank - len(name) for rank, name in zip(ranks, named)]
    if any(b < 0 or (b > 0 and ELLIPSIS not in term) for b, term in zip(broadcast, terms)):
        raise state.error(f"Einsum equation '{equation}' does not match the inputs' ranks {ranks}")
    widest = max(broadcast, default=0)

    def labels(term: str, count: int) -> list[str]:
        before, dots, after = term.partition(ELLIPSIS)
        return [*before, *([f".{widest - count + i}" for i in range(count)] if dots else []), *after]

    operand_labels = [labels(term, b) for term, b in zip(terms, broadcast)]
    if arrow:
        output = labels(output_text, widest)
        if not output_text.replace(ELLIPSIS, "").isalpha() and output_text.replace(ELLIPSIS, ""):
            raise state.error(f"Einsum output '{output_text}' is not letters and '...'")
        unknown = set(output) - {label for found in operand_labels for label in found}
        if unknown or len(set(output)) != len(output):
            raise state.error(f"Einsum output '{output_text}' names labels no input has, or one twice")
    else:  # implicit: the broadcast dims, then the labels that appear once, sorted
        counts: dict[str, int] = {}
        for found in operand_labels:
            for label in found:
                counts[label] = counts.get(label, 0) + 1
        output = [f".{i}" for i in range(widest)] + sorted(l for l, n in counts.items() if n == 1 and not l.startswith("."))
    return operand_labels, output


def _transposed(state: ConversionState, term: _Term, order: list[str]) -> _Term:
    return _permuted(state, term, [term.labels.index(label) for label in order])


def _permuted(state: ConversionState, term: _Term, perm: list[int]) -> _Term:
    order = [term.labels[i] for i in perm]
    if perm == list(range(len(perm))):
        return _Term(term.value, term.dims, order)
    dims = state.check(shapes.transpose(state.emitter, term.dims, perm))
    (lowered,) = state.compute(hip.TransposeOp, [term.value], [(dims, _element(term))], properties={"perm": DenseArrayBase.from_list(i64, perm)})
    assert lowered.value is not None
    return _Term(lowered.value, lowered.dims, order)


def _diagonal(state: ConversionState, term: _Term) -> _Term:
    """The term with each label it repeats kept once: x[.., i, .., i, ..] -> x[.., i] (the
    module doc), repeated until no label repeats."""
    em = state.emitter
    while True:
        label = next((l for l in term.labels if term.labels.count(l) > 1), None)
        if label is None:
            return term
        first = term.labels.index(label)
        second = term.labels.index(label, first + 1)
        n, other = term.dims[first], term.dims[second]
        if n is not other and not (isinstance(n, int) and n == other):
            raise state.error(f"Einsum label '{label}' is repeated in one term over extents {shapes.format_shape([n, other])}, which are not known to be equal")
        rest = [i for i in range(len(term.labels)) if i not in (first, second)]
        moved = _permuted(state, term, [*rest, first, second])
        kept = moved.dims[: len(rest)]
        value, dims = _viewed(state, moved, [*kept, em.mul(n, n)])
        strides = [*([1] * len(kept)), em.add(n, 1)]
        diagonal = strided_window(state, value, [0] * len(dims), [*kept, n], strides, _element(moved))
        assert diagonal.value is not None
        term = _Term(diagonal.value, diagonal.dims, [*moved.labels[: len(rest)], label])


def _summed(state: ConversionState, term: _Term, labels: list[str]) -> _Term:
    if not labels:
        return term
    axes = sorted(term.labels.index(label) for label in labels)
    dims = state.check(shapes.reduce(state.emitter, term.dims, axes, False, False))
    properties = {"axes": DenseArrayBase.from_list(i64, axes), "keepdims": IntegerAttr.from_bool(False)}
    (lowered,) = state.compute(hip.ReduceSumOp, [term.value], [(dims, _element(term))], properties=properties)
    assert lowered.value is not None
    return _Term(lowered.value, lowered.dims, [label for label in term.labels if label not in labels])


def _viewed(state: ConversionState, term: _Term, dims: list[Dim]) -> tuple[SSAValue, list[Dim]]:
    return reshape_value(state, term.value, term.dims, dims, dims)


def _element(term: _Term):
    return term.value.type.element_type  # type: ignore[attr-defined]


def _contracted(state: ConversionState, a: _Term, b: _Term, needed: set[str]) -> _Term:
    """a and b as one term with the labels `needed` later (and the batch and own labels)."""
    a = _summed(state, a, [l for l in a.labels if l not in b.labels and l not in needed])
    b = _summed(state, b, [l for l in b.labels if l not in a.labels and l not in needed])
    batch = [l for l in a.labels if l in b.labels and l in needed]
    contract = [l for l in a.labels if l in b.labels and l not in needed]
    left = [l for l in a.labels if l not in b.labels]
    right = [l for l in b.labels if l not in a.labels]
    em = state.emitter
    a = _transposed(state, a, batch + left + contract)
    b = _transposed(state, b, batch + contract + right)
    # After the transposes: a is [batch, left, contract], b is [batch, contract, right].
    n = len(batch)
    left_dims, contract_dims = a.dims[n : n + len(left)], a.dims[n + len(left) :]
    right_dims = b.dims[n + len(contract) :]
    for label, ea, eb in zip(contract, contract_dims, b.dims[n : n + len(contract)]):
        if isinstance(ea, int) and isinstance(eb, int) and ea != eb:
            raise state.error(f"Einsum label '{label}' has extents {ea} and {eb}")
    k = em.product(contract_dims)
    a_value, a_dims = _viewed(state, a, [*a.dims[:n], em.product(left_dims), k])
    b_value, b_dims = _viewed(state, b, [*b.dims[:n], k, em.product(right_dims)])
    dims = state.check(shapes.matmul(em, a_dims, b_dims))
    (product,) = state.compute(hip.MatmulOp, [a_value, b_value], [(dims, _element(a))])
    assert product.value is not None
    out = _Term(product.value, product.dims, [])
    value, out_dims = _viewed(state, out, [*product.dims[:n], *left_dims, *right_dims])
    return _Term(value, out_dims, batch + left + right)


@converts("Einsum")
def convert_einsum(op: Operation, state: ConversionState) -> list[Lowered]:
    equation = op.equation.data  # type: ignore[attr-defined]
    if not equation:
        raise state.error("Einsum needs an equation")
    operands = list(op.operands)
    labels, output = parse_equation(state, equation, [len(state.dims(v)) for v in operands])
    terms = [_diagonal(state, _Term(state.tensor(v), list(state.dims(v)), found)) for v, found in zip(operands, labels)]
    term = terms[0]
    for i, other in enumerate(terms[1:], start=1):
        needed = set(output).union(*(t.labels for t in terms[i + 1 :]))
        term = _contracted(state, term, other, needed)
    term = _summed(state, term, [l for l in term.labels if l not in output])
    term = _transposed(state, term, output)
    dims = state.fit_to_declared(term.dims, op.results[0].type)
    return [Lowered(dims, state.element_type(operands[0]), state.cast(term.value, dims))]
