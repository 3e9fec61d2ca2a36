"""The pass registry: every pass a pipeline YAML or `-p` may name.

Each module of this package holds one pass (a frozen dataclass ModulePass); `PASS_MODULES`
names the module of each pass, and a module is imported when a pipeline names its pass
(`-p hip-add-context-arg` loads that pass alone, not the converters and kernel families
the others bring). Adding a pass is adding its module and its line in the table (a test
holds the table to the modules). A pass's `name` is its YAML/CLI spelling; its dataclass
fields are its options. xDSL's cse and dce are registered next to ours; `canonicalize` is
xDSL's canonicalization extended with xhip's index folds (xhip/passes/canonicalize.py).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping
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


PASS_MODULES: dict[str, str] = {
    "buffer-results-to-out-params": "buffer_results_to_out_params",
    "canonicalize": "canonicalize",
    "convert-onnx-to-hip": "convert_onnx_to_hip",
    "hip-add-context-arg": "add_context_arg",
    "hip-append-kv-caches": "append_kv_caches",
    "hip-externalize-constants": "externalize_constants",
    "hip-fold-attention-layouts": "fold_attention_layouts",
    "hip-fold-cast-into-matmul": "fold_cast_into_matmul",
    "hip-fold-transpose-into-matmul": "fold_transpose_into_matmul",
    "hip-fuse-attention": "fuse_attention",
    "hip-fuse-elementwise": "fuse_elementwise",
    "hip-fuse-gelu": "fuse_gelu",
    "hip-fuse-softmax": "fuse_softmax",
    "hip-hoist-alloc-size-arith": "hoist_alloc_size_arith",
    "hip-lower-allocs": "lower_allocs",
    "hip-lower-host-visibility": "lower_host_visibility",
    "hip-materialize-host-scalars": "materialize_host_scalars",
    "hip-optimize-memrefs": "optimize_memrefs",
    "hip-pool-allocs": "pool_allocs",
    "hip-record-model-buffers": "record_model_buffers",
    "hip-resolve-extern-constants": "resolve_extern_constants",
    "hip-resolve-memref-dims": "resolve_memref_dims",
    "hip-use-output-allocator": "use_output_allocator",
    "one-shot-bufferize": "one_shot_bufferize",
    "onnx-convert-precision": "convert_precision",
    "onnx-fold-constants": "fold_constants",
    "onnx-fold-conv-batch-norm": "fold_conv_batch_norm",
    "onnx-merge-sibling-matmuls": "merge_sibling_matmuls",
}
"""Each of our passes' name -> the module of this package that defines it."""


def _passes_in(module: object) -> dict[str, type[ModulePass]]:
    return {
        value.name: value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, ModulePass)
        and value.__module__ == module.__name__ and isinstance(getattr(value, "name", None), str)  # type: ignore[attr-defined]
    }  # fmt: skip


@cache
def _load(name: str) -> type[ModulePass]:
    module = importlib.import_module(f"{__name__}.{PASS_MODULES[name]}")
    found = _passes_in(module).get(name)
    assert found is not None, f"{module.__name__} defines no pass named {name} (see PASS_MODULES)"
    return found


class PassTable(Mapping[str, type[ModulePass]]):
    """Pass name -> pass class, each of ours imported when first asked for."""

    def __getitem__(self, name: str) -> type[ModulePass]:
        for upstream in UPSTREAM_PASSES:
            if upstream.name == name:
                return upstream
        if name not in PASS_MODULES:
            raise KeyError(name)
        return _load(name)

    def __iter__(self) -> Iterator[str]:
        return iter([*PASS_MODULES, *(p.name for p in UPSTREAM_PASSES)])

    def __len__(self) -> int:
        return len(PASS_MODULES) + len(UPSTREAM_PASSES)


def xhip_passes() -> tuple[type[ModulePass], ...]:
    """Every pass of ours (each module imported), by name."""
    return tuple(_load(name) for name in sorted(PASS_MODULES))


def scanned_passes() -> dict[str, str]:
    """Pass name -> module, found by importing every module of this package (what
    PASS_MODULES must say)."""
    found: dict[str, str] = {}
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for name in _passes_in(module):
            assert name not in found, f"two passes named {name}"
            found[name] = module_info.name
    return found


def available_passes() -> Mapping[str, type[ModulePass]]:
    """Pass name -> pass class, ours and the upstream ones we support (ours imported on demand)."""
    return PassTable()
