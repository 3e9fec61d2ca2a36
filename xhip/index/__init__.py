"""Host index arithmetic: building it (`emitter`), proving facts about it (`facts`),
evaluating it at concrete extents (`host_eval`) and tracing it (`symbolic`).

The package sits below `xhip.shapes`, the dialects and the analyses: it depends on
xDSL's `arith` and on `xhip.diagnostics` only, so every layer above can use it.
"""
