"""The kernel specializations the test set uses: what CI renders and compiles offline."""

from __future__ import annotations

import numpy as np
import onnx

from xhip.api import compile_stages
from xhip.runtime.kernels.collect import module_specs, unique
from xhip.runtime.kernels.specs import KernelSpec
from xhip.testing.models import EXAMPLES, MODELS, TRANSFORMER_EXPORTS


def testset_specs() -> list[KernelSpec]:
    """The unique specs of every model of the test set, and of the transformer exports,
    compiled through pipelines/default.yaml."""
    models = [make(np.random.default_rng(0))[0] for make in MODELS.values()]
    models += [onnx.load(EXAMPLES / f"{name}.onnx") for name in TRANSFORMER_EXPORTS]
    specs: list[KernelSpec] = []
    for model in models:
        *_, (_, module, _) = compile_stages(model)
        specs.extend(module_specs(module))
    return unique(specs)
