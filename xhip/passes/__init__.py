"""The pass registry: every pass a pipeline YAML or `-p` may name.

Each module of this package holds one pass (a frozen dataclass ModulePass);
the registry finds them, so adding a pass is adding its module. A pass's
`name` is its YAML/CLI spelling; its dataclass fields are its options.
xDSL's cse and dce are registered next to ours; `canonicalize` is xDSL's
canonicalization extended with xhip's index folds (xhip/passes/canonicalize.py).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import (
    CommonSubexpressionElimination,
)
from xdsl.transforms.dead_code_elimination import DeadCodeElimination


class CsePass(CommonSubexpressionElimination):
    """Common subexpression elimination (xDSL): merges equal pure ops, so equal extents become one value."""


class DcePass(DeadCodeElimination):
    """Dead code elimination (xDSL): erases unused ops that have no side effects."""


UPSTREAM_PASSES: tuple[type[ModulePass], ...] = (CsePass, DcePass)


@cache
def xhip_passes() -> tuple[type[ModulePass], ...]:
    """The pass defined in each module of this package, by name."""
    found: dict[str, type[ModulePass]] = {}
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, ModulePass)
                and value.__module__ == module.__name__
                and isinstance(getattr(value, "name", None), str)
            ):
                assert value.name not in found, f"two passes named {value.name}"
                found[value.name] = value
    return tuple(found[name] for name in sorted(found))


def available_passes() -> dict[str, type[ModulePass]]:
    """Pass name -> pass class, ours and the upstream ones we support."""
    return {p.name: p for p in (*xhip_passes(), *UPSTREAM_PASSES)}
