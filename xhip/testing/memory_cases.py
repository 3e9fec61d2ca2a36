"""Planner inputs taken from the seeds, shared by tests and benchmarks."""

from __future__ import annotations

from xhip.memory import Buffer, SizeExpr

SEED_SHAPES = [(1, 128), (4, 512), (16, 2048)]
"""The (batch, seq) points at which the issues compare pool sizes."""


def seed_attention_buffers(batch: str = "b", seq: str = "s", alignment: int = 256) -> tuple[list[Buffer], SizeExpr]:
    """Seed 003 after hip-optimize-memrefs (Pass 15), and the seed's stacked pool 4A + 2B.

    Six transient buffers: A = b*s*256 bytes (memref<?x?x64xf32>) for the q, k, v
    projections and k transposed; B = b*s*s*4 bytes (memref<?x?x?xf32>) for the
    scores and the scaled scores; softmax writes into the dead scores buffer and
    the output is not pooled. Program points are the kernels: 0 q, 1 k, 2 v,
    3 transpose k, 4 scores = q @ kT, 5 scaled = scores * c, 6 softmax(scaled) ->
    scores, 7 out = scores @ v.
    """
    b, s = SizeExpr.dim(batch, batch), SizeExpr.dim(seq, seq)
    proj, square = 256 * b * s, 4 * b * s * s
    buffers = [
        Buffer("q", proj, 0, 4),
        Buffer("k", proj, 1, 3),
        Buffer("v", proj, 2, 7),
        Buffer("kT", proj, 3, 4),
        Buffer("scores", square, 4, 7),
        Buffer("scaled", square, 5, 6),
    ]
    return buffers, 4 * proj.align_up(alignment) + 2 * square.align_up(alignment)
