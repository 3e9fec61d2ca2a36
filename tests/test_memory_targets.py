"""The memory issue's targets on the transformer stack (xhip.testing.transformer_stack).

Pool bytes of the default pipeline, on the reference backend, against the model's
own bounds and the peers' figures measured on the same graph (IREE 3.13 and TVM
0.27 with symbolic shapes, in MiB at (1,128) / (4,512) / (8,1024)). The pool is
what the runs request; the bounds are the model's (hip-record-model-buffers).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import xhip
from xhip.shipped import shipped_pipelines
from xhip.testing.transformer_stack import transformer_stack_model

MIB = 2**20
SHAPES = [(1, 128), (4, 512), (8, 1024)]
TARGET_MIB = {(1, 128): 1.18, (4, 512): 25, (8, 1024): 168}
PEERS_MIB = {"IREE 3.13": (2.25, 60, 368), "TVM 0.27": (2.62, 66, 392)}


@pytest.fixture(scope="module")
def reports():
    executable = xhip.compile(transformer_stack_model(2), pipeline=shipped_pipelines()["default"], backend="reference")
    found = {}
    for batch, seq in SHAPES:
        x = np.random.default_rng(batch * seq).standard_normal((batch, seq, 256)).astype(np.float32)
        executable.run({"X": x})
        found[batch, seq] = copy.copy(executable.report)  # the executable reuses its report
    return found


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_pool_meets_the_target_and_beats_the_peers(reports, shape):
    report = reports[shape]
    assert report.pool_bytes <= TARGET_MIB[shape] * MIB
    for peer, figures in PEERS_MIB.items():
        assert report.pool_bytes < figures[SHAPES.index(shape)] * MIB, peer


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_pool_is_within_5_percent_of_the_in_place_bound(reports, shape):
    report = reports[shape]
    assert report.in_place_lower_bound_bytes < report.lower_bound_bytes  # in-place writes happen
    assert report.in_place_lower_bound_bytes <= report.pool_bytes <= 1.05 * report.in_place_lower_bound_bytes
