"""Rendering: one KernelSpec to HIP source with Jinja, keyed by the hash of the source.

    kernel = render(spec)                  # RenderedKernel(name, source, digest)
    source = kernel.source_for("cuda")     # the prelude first, for NVRTC / nvcc
    unit = render_unit(specs)              # many kernels in one translation unit

The templates live in templates/ at the repository root (`*.hip.j2` and the CUDA prelude).
The same text serves HIP (the templates include <hip/hip_runtime.h>) and CUDA (the
prelude, prepended, maps the HIP names they use); `digest` names the text exactly, so it
keys the compile cache.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import jinja2

from xhip.kernels.spec_types import KernelSpec, pairs, render_chain_expr
from xhip.shipped import shipped_folder

TEMPLATES = shipped_folder("templates")
"""templates/ of the checkout, or its copy inside an installed wheel."""
PRELUDE = "cuda_prelude.h"

Target = Literal["hip", "cuda"]
TARGETS: tuple[Target, ...] = ("hip", "cuda")


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,  # a misspelt variable fails, never renders empty
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals["chain_expr"] = render_chain_expr
    env.globals["pairs"] = pairs
    return env


def prelude() -> str:
    return (TEMPLATES / PRELUDE).read_text()


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class RenderedKernel:
    name: str
    source: str
    """The HIP source, headers included (guards let many be concatenated)."""
    needs: tuple[str, ...] = ()

    def source_for(self, target: Target) -> str:
        return _with_target(self.source, self.needs, target)

    def digest(self, target: Target) -> str:
        return digest(self.source_for(target))


def _with_target(source: str, needs: Iterable[str], target: Target) -> str:
    defines = "".join(f"#define {macro} 1\n" for macro in sorted(set(needs)))
    return defines + (prelude() if target == "cuda" else "") + source


def render(spec: KernelSpec) -> RenderedKernel:
    """The source of one specialization (deterministic: same spec, same text)."""
    template = environment().get_template(f"{spec.family}.hip.j2")
    return RenderedKernel(spec.name, template.render(spec.variables()), spec.needs)


def render_unit(specs: Iterable[KernelSpec], target: Target) -> str:
    """One translation unit holding every kernel of `specs` (once each, by name)."""
    unique = {spec.name: spec for spec in specs}
    kernels = [render(spec) for spec in unique.values()]
    needs = {n for k in kernels for n in k.needs}
    return _with_target("\n".join(k.source for k in kernels), needs, target)
