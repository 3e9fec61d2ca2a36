"""The kernel specializations the test set uses: what CI renders and compiles offline."""

from __future__ import annotations

import numpy as np
import onnx

from xhip.api import compile_stages
from xhip.kernels.coverage import unique
from xhip.kernels.spec_types import KernelSpec
from xhip.runtime.bind import module_kernels
from xhip.testing.models import EXAMPLES, MODELS, TRANSFORMER_EXPORTS


HALF_PIPELINES = ("fp16", "bf16")
"""The shipped pipelines that compute in half precision: every model goes through them too,
so that each half-precision kernel (and each float32 chain through a cast to half) is
compiled in CI."""


def testset_specs() -> list[KernelSpec]:
    """The unique specs of every model of the test set and of the transformer exports,
    compiled through pipelines/default.yaml and through each of `HALF_PIPELINES`."""
    models = [make(np.random.default_rng(0))[0] for make in MODELS.values()]
    models += [onnx.load(EXAMPLES / f"{name}.onnx") for name in TRANSFORMER_EXPORTS]
    specs: list[KernelSpec] = []
    for model in models:
        for pipeline in (None, *HALF_PIPELINES):
            *_, (_, module, _) = compile_stages(model, pipeline)
            specs.extend(module_kernels(module))
    return unique(specs)
