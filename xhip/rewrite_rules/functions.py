"""Kept for buffer-results-to-out-params, which still imports `function_body` from here.

The contract lives in xhip/passes/contracts.py; once that pass imports it from
there, this module goes.
"""

from xhip.passes.contracts import function_body

__all__ = ["function_body"]
