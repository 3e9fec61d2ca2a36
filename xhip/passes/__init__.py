"""The pass registry: every pass a pipeline YAML or `-p` may name.

A pass's `name` is its YAML/CLI spelling; its dataclass fields are its options.
xDSL's cse and dce are registered next to ours; `canonicalize` is xDSL's
canonicalization extended with xhip's index folds (xhip/passes/canonicalize.py).
"""

from __future__ import annotations

from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from xhip.passes.add_context_arg import AddContextArgPass
from xhip.passes.canonicalize import CanonicalizePass
from xhip.passes.convert_onnx_to_hip import ConvertOnnxToHipPass
from xhip.passes.externalize_constants import ExternalizeConstantsPass



class CsePass(CommonSubexpressionElimination):
    """Common subexpression elimination (xDSL): merges equal pure ops, so equal extents become one value."""


class DcePass(DeadCodeElimination):
    """Dead code elimination (xDSL): erases unused ops that have no side effects."""


UPSTREAM_PASSES: tuple[type[ModulePass], ...] = (CsePass, DcePass)

XHIP_PASSES: tuple[type[ModulePass], ...] = (
    AddContextArgPass,
    CanonicalizePass,
    ConvertOnnxToHipPass,
    ExternalizeConstantsPass,
)


def available_passes() -> dict[str, type[ModulePass]]:
    """Pass name -> pass class, ours and the upstream ones we support."""
    return {p.name: p for p in (*XHIP_PASSES, *UPSTREAM_PASSES)}
