"""The matrix-instruction attention kernel (templates/attention_mma.hip.j2) on a GPU:
multi-head attention in each form the fusion produces (K as a layout perm or given
transposed; no mask, an additive mask, the exports' shared keep mask), head dims 32, 64
and 128, through pipelines/fp16.yaml and bf16.yaml, at shapes with partial query and key
tiles, one query row, and more keys than queries. Checked against onnxruntime's float32
with the half-precision rule (`check_outputs`: the K and ulp terms of the compute type).
Each shape runs twice: first with NaN queries (every output NaN), then with random ones, so
an output element the kernel does not write keeps its NaN and fails the check."""

from __future__ import annotations

import numpy as np
import pytest

import xhip
from xhip.api import compile_stages
from xhip.runtime.backends import make_backend
from xhip.runtime.backends.gpu.driver import DriverUnavailable
from xhip.runtime.bind import module_kernels
from xhip.runtime.check import check_outputs, references
from xhip.testing.attention_models import FORMS, attention_feeds, multi_head_attention

pytestmark = pytest.mark.gpu
SHAPES = ((2, 77, 131), (1, 64, 64), (3, 1, 200), (1, 130, 7))
"""(batch, sq, sk): partial tiles of both, a single query, fewer keys than one tile."""


@pytest.fixture(scope="module")
def backend_name():
    try:
        make_backend("cuda")
    except DriverUnavailable as err:
        pytest.skip(str(err))
    return "cuda"


@pytest.mark.parametrize("pipeline", ["fp16", "bf16"])
@pytest.mark.parametrize("head_dim", [32, 64, 128])
@pytest.mark.parametrize("form", FORMS)
def test_attention_on_matrix_instructions_matches_onnxruntime(backend_name, form, head_dim, pipeline):
    model = multi_head_attention(form, 3, head_dim)
    *_, (_, module, _) = compile_stages(model, pipeline)
    assert {s.family for s in module_kernels(module) if "attention" in s.family} == {"attention_mma"}
    executable = xhip.compile(model, pipeline, backend=backend_name)
    rng = np.random.default_rng(head_dim)
    for batch, sq, sk in SHAPES:
        sk = sq if form == "keep" else sk  # the second attention's keys are the first's queries
        feeds = attention_feeds(model, batch, sq, sk, rng)
        poisoned = dict(feeds, q=np.full_like(feeds["q"], np.nan))
        executable.run(poisoned)
        outputs = executable.run(feeds)
        result = check_outputs(outputs, references(model, feeds), backend_name, executable.compute_dtype)
        assert result.passed, f"{form} d{head_dim} {pipeline} at {(batch, sq, sk)}: {result.problems}"
