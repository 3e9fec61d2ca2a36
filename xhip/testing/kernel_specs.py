"""The kernel specializations the test set uses: what CI renders and compiles offline."""

from __future__ import annotations

import numpy as np

from xhip.api import compile_stages
from xhip.runtime.kernels.collect import module_specs, unique
from xhip.runtime.kernels.specs import KernelSpec
from xhip.testing.models import MODELS


def testset_specs() -> list[KernelSpec]:
    """The unique specs of every model of the test set compiled through pipelines/default.yaml."""
    specs: list[KernelSpec] = []
    for make in MODELS.values():
        model, _ = make(np.random.default_rng(0))
        *_, (_, module, _) = compile_stages(model)
        specs.extend(module_specs(module))
    return unique(specs)
