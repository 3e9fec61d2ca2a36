"""canonicalize: xDSL's canonicalization plus xhip's index and shape folds.

The YAML name stays `canonicalize` so pipelines read like MLIR's; the extra
folds (xhip.rewrite_rules.index_folds) are what dynamic-shape memory planning
needs and upstream does not provide.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern
from xdsl.transforms.dead_code_elimination import region_dce

from xhip.rewrite_rules.index_folds import INDEX_FOLD_PATTERNS
from xhip.rewrite_rules.unit_dim_transposes import UnitDimTransposeIsReshape


@dataclass(frozen=True)
class CanonicalizePass(ModulePass):
    """Upstream canonicalization patterns and folders, plus index/shape folds and unit-dim transposes as reshapes."""

    name = "canonicalize"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        pattern = GreedyRewritePatternApplier(
            [CanonicalizationRewritePattern(), *INDEX_FOLD_PATTERNS, UnitDimTransposeIsReshape()],
            ctx=ctx,
            folding_enabled=True,
        )
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_module(op)
