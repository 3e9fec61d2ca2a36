"""The kernel specializations the test set uses: what CI renders and compiles offline."""

from __future__ import annotations

import numpy as np
import onnx

from xhip.api import compile_stages
from xhip.kernels.coverage import unique
from xhip.kernels.spec_types import KernelSpec
from xhip.runtime.bind import module_kernels
from xhip.testing.models import EXAMPLES, MODELS, TRANSFORMER_EXPORTS


def testset_specs() -> list[KernelSpec]:
    """The unique specs of every model of the test set, and of the transformer exports,
    compiled through pipelines/default.yaml."""
    models = [make(np.random.default_rng(0))[0] for make in MODELS.values()]
    models += [onnx.load(EXAMPLES / f"{name}.onnx") for name in TRANSFORMER_EXPORTS]
    specs: list[KernelSpec] = []
    for model in models:
        *_, (_, module, _) = compile_stages(model)
        specs.extend(module_kernels(module))
    return unique(specs)
