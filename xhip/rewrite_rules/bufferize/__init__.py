"""Bufferization of xhip's tensor-mode IR: the state, the memref helpers, one rule per tensor op.

`xhip.passes.one_shot_bufferize` drives it; this package holds what the driver
needs per value (`state`), the layout and type helpers (`types`), the globals of
tensor constants (`constants`) and the rules for the tensor ops (`tensor_ops`).
"""
