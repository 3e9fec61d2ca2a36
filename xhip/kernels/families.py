"""Every kernel family, by the TEMPLATE the hip op classes name, and the ways to ask one.

    site = site_of(facts)                                        # what the runtime binds
    specs = specs_for_launch(op_class, {}, [x, y], [out])        # the kernels, from facts
    values = launch_values(op_class, {}, [], [a, b], [c])        # one launch's arguments

A new family is one module (TEMPLATES, `site(facts) -> Site`, its reference kernels
registered with `xhip.kernels.reference.register`) plus its template, listed below.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType

import numpy as np

from xhip.diagnostics import XhipError, did_you_mean
from xhip.dialects.hip.properties import properties_for
from xhip.kernels import attention, conv, copy, cumsum, elementwise, gather, generate, matmul, nonzero, pool, reduce, resize, rows
from xhip.kernels.family import OpFacts, Site, Values, ViewLike
from xhip.kernels.reference import KERNELS, OP_CLASSES, Kernel, KernelCall
from xhip.kernels.spec_types import KernelSpec, OpClass, Operand

FAMILY_MODULES: tuple[ModuleType, ...] = (elementwise, rows, reduce, copy, gather, cumsum, pool, conv, resize, generate, nonzero, matmul, attention)

FAMILIES: dict[str, ModuleType] = {template: module for module in FAMILY_MODULES for template in module.TEMPLATES}
"""The family module of each TEMPLATE an op class names."""


def family_of(op_class: OpClass) -> ModuleType:
    template = getattr(op_class, "TEMPLATE", None)
    if template not in FAMILIES:
        raise ValueError(f"'{op_class.name}' names no kernel template")
    return FAMILIES[template]


def site_of(facts: OpFacts) -> Site:
    """The launch site of one op: its family's kernels, form choice and launch values."""
    return family_of(facts.op_class).site(facts)  # type: ignore[no-any-return]


def facts_for(op_class: OpClass, attributes: Mapping[str, object], ins: Sequence[Operand], outs: Sequence[Operand]) -> OpFacts:
    """Facts from plain values (tests, scripts): properties completed with the defaults."""
    return OpFacts(op_class, properties_for(op_class, attributes), tuple(ins), tuple(outs))


def specs_for_launch(
    op_class: OpClass, attributes: Mapping[str, object], ins: Sequence[Operand], outs: Sequence[Operand], *, assume_equal: bool = False
) -> list[KernelSpec]:
    """The kernels that run one op over operands with these facts (launch order): the form
    for every launch, or with `assume_equal` the one for launches without run-time
    broadcast (the same where a site has one form)."""
    forms = site_of(facts_for(op_class, attributes, ins, outs)).forms
    return list(forms[-1] if assume_equal else forms[0])


def launch_values(
    op_class: OpClass, attributes: Mapping[str, object], scalars: Sequence[int | float], ins: Sequence[ViewLike], outs: Sequence[ViewLike]
) -> list[Values]:
    """The argument values of each kernel launch that runs the op over these views (facts
    taken from the views themselves), in the order its kernels are listed."""
    facts = [Operand.at_launch(v.dtype, v.shape, v.strides) for v in (*ins, *outs)]
    site = site_of(facts_for(op_class, attributes, facts[: len(ins)], facts[len(ins) :]))
    return site.values(ins, outs, scalars)


# ---- reference kernels by op ------------------------------------------------------------


def supported_ops() -> frozenset[str]:
    """Names (without `hip.`) of the ops that have a reference kernel."""
    return frozenset(kernel.name for kernel in KERNELS.values())


def kernel_of(op_class: type, location: str | None = None) -> Kernel:
    kernel = KERNELS.get(op_class)
    if kernel is None:
        raise XhipError(f"no reference kernel for '{op_class.name}'", location)  # type: ignore[attr-defined]
    return kernel


def run_kernel(
    name: str,
    inputs: Sequence[np.ndarray],
    outputs: Sequence[np.ndarray],
    attributes: Mapping[str, object],
    scalars: Sequence[int | float],
    *,
    location: str | None = None,
) -> None:
    """Runs the reference kernel of `hip.<name>`, writing into `outputs` in place; the
    properties `attributes` leaves out take the dialect's defaults.

    `location` (the op's, when the caller has one) prefixes every error."""
    op_class = OP_CLASSES.get(name)
    if op_class is None or op_class not in KERNELS:
        hint = did_you_mean(name, [k.name for k in KERNELS.values()])
        raise XhipError(f"no reference kernel for 'hip.{name}'{hint}", location)
    KERNELS[op_class](KernelCall(name, inputs, outputs, properties_for(op_class, attributes), scalars, location))


