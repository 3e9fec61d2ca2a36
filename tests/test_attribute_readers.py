"""Readers of IR attributes go through the owning dialect's helpers, so a bad
attribute reads the same everywhere: one located line, never a traceback.

Hand-written IR can carry a malformed `onnx.dim_params` or `hip.external_data`;
the importer and hip-externalize-constants never write one. Each reader
(buffer-results-to-out-params, the runtime's signature, hip-resolve-extern-constants,
the runtime's constant upload) must reject it with the parser's own message.
"""

from __future__ import annotations

import pytest

from xhip.context import make_context
from xhip.diagnostics import XhipError
from xhip.dialects.hip.attributes import ExternalData, format_external_data, parse_external_data
from xhip.parsing import parse_module
from xhip.pass_runner import run_passes
from xhip.passes.buffer_results_to_out_params import BufferResultsToOutParamsPass
from xhip.passes.resolve_extern_constants import ResolveExternConstantsPass
from xhip.runtime.executable import Executable

BAD_DIM_PARAMS = """
func.func @main_graph(%x: memref<?xf32> {onnx.dim_params = "batch", onnx.name = "x"}) -> memref<?xf32> {
  func.return %x : memref<?xf32>
}
"""

BAD_EXTERNAL_DATA = """
"memref.global"() <{sym_name = "w", type = memref<4xf32>, initial_value, sym_visibility = "private"}> {hip.external_data = {index = 0 : i64, offset = -4 : i64, size = 16 : i64}} : () -> ()
func.func @main_graph() -> memref<4xf32> {
  %w = memref.get_global @w : memref<4xf32>
  func.return %w : memref<4xf32>
}
"""


def _module(text: str):
    return parse_module(make_context(), text, "bad.mlir")


def test_out_params_pass_rejects_malformed_dim_params():
    with pytest.raises(XhipError, match=r"bad\.mlir:2:1: error: buffer-results-to-out-params: '@main_graph': "
                       r"onnx\.dim_params entry 'batch' is not AXIS:NAME"):
        run_passes(make_context(), _module(BAD_DIM_PARAMS), [BufferResultsToOutParamsPass()])


def test_runtime_signature_rejects_malformed_dim_params():
    with pytest.raises(XhipError, match=r"bad\.mlir:2:1: error: x: onnx\.dim_params entry 'batch' is not AXIS:NAME"):
        Executable(_module(BAD_DIM_PARAMS))


def test_resolve_pass_and_runtime_read_external_data_alike():
    message = r"@w: hip\.external_data needs a non-negative integer 'offset'"
    with pytest.raises(XhipError, match=r"bad\.mlir:2:1: error: " + message):
        run_passes(make_context(), _module(BAD_EXTERNAL_DATA), [ResolveExternConstantsPass()])
    with pytest.raises(XhipError, match=r"bad\.mlir:4:3: error: " + message):
        Executable(_module(BAD_EXTERNAL_DATA)).run({})


def test_external_data_round_trip():
    data = ExternalData(index=2, offset=128, size=64)
    attr = format_external_data(data)
    assert [key for key in attr.data] == ["index", "offset", "size"]
    assert parse_external_data(attr) == data
