"""The runtime's rank-reducing slices keep the dims the bufferizer's rule keeps.

`tensor.extract_slice` and `memref.subview` may drop unit dims; which ones is
decided by `kept_dims` (xhip/rewrite_rules/bufferize/types.py), the rule the
bufferizer types its views with. A `[1, n] -> [?]` slice must keep dim 1 (the
`?` is n, not the leading 1).
"""

from __future__ import annotations

import numpy as np
import pytest

from xhip.context import make_context
from xhip.parsing import parse_module
from xhip.runtime.executable import Executable

TENSOR_SLICE = """
func.func @main_graph(%x: tensor<1x5xf32>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<1x5xf32>
  %row = tensor.extract_slice %x[0, 0] [1, %n] [1, 1] : tensor<1x5xf32> to tensor<?xf32>
  func.return %row : tensor<?xf32>
}
"""

MEMREF_SUBVIEW = """
func.func @main_graph(%x: memref<1x5xf32>) -> memref<?xf32> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c1 : memref<1x5xf32>
  %row = memref.subview %x[0, 0] [1, %n] [1, 1] : memref<1x5xf32> to memref<?xf32, strided<[1]>>
  %copy = memref.alloc(%n) : memref<?xf32>
  "memref.copy"(%row, %copy) : (memref<?xf32, strided<[1]>>, memref<?xf32>) -> ()
  func.return %copy : memref<?xf32>
}
"""


@pytest.mark.parametrize("text", [TENSOR_SLICE, MEMREF_SUBVIEW], ids=["extract_slice", "subview"])
def test_unit_dim_before_dynamic_is_dropped(text):
    x = np.arange(5, dtype=np.float32).reshape(1, 5)
    outputs = Executable(parse_module(make_context(), text, "slice.mlir")).run({"arg0": x})
    np.testing.assert_array_equal(outputs["result0"], x[0])
