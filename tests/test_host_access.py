"""xhip.analysis.host_access: which buffers the host reads or writes, through which views.

The memory passes that act on it run end to end in tests/test_memory_passes_end_to_end.py.
"""

from __future__ import annotations

from helpers import first_function_block, named_values, parse_verified

from xhip.analysis.host_access import forward_aliases, host_accessed_roots, host_accesses

ACCESSES = """
func.func @f(%ctx: !hip.context, %x: memref<8xi64>, %flag: i1, %v: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %stored = memref.alloc() : memref<2x4xi64>
  %flat = memref.collapse_shape %stored [[0, 1]] : memref<2x4xi64> into memref<8xi64>
  %tail = memref.subview %flat[4] [4] [1] : memref<8xi64> to memref<4xi64, strided<[1], offset: 4>>
  memref.store %v, %tail[%c0] : memref<4xi64, strided<[1], offset: 4>>
  %loaded = memref.alloc() : memref<1xi64>
  hip.copy(%ctx) ins(%x : memref<8xi64>) outs(%flat : memref<8xi64>)
  %nested = memref.alloc() : memref<1xi64>
  scf.if %flag {
    memref.store %v, %nested[%c0] : memref<1xi64>
  }
  %bytes = memref.alloc() : memref<64xi8>
  %carved = memref.view %bytes[%c0][] : memref<64xi8> to memref<2xi64>
  memref.store %v, %carved[%c0] : memref<2xi64>
  %device = memref.alloc() : memref<8xi64>
  hip.copy(%ctx) ins(%x : memref<8xi64>) outs(%device : memref<8xi64>)
  %d = memref.dim %device, %c0 : memref<8xi64>
  %copied = memref.alloc() : memref<8xi64>
  "memref.copy"(%device, %copied) : (memref<8xi64>, memref<8xi64>) -> ()
  %r = memref.load %loaded[%c0] : memref<1xi64>
  %s = memref.load %x[%d] : memref<8xi64>
  func.return %r : i64
}
"""


def test_host_accesses_through_views_nested_regions_and_carved_buffers():
    module = parse_verified(ACCESSES)
    named = named_values(module)
    block = first_function_block(module)
    found = host_accesses(block)
    accessed = {v.name_hint for v in host_accessed_roots(block)}
    # Through collapse_shape + subview: the root is the allocation.
    assert "stored" in accessed and "tail" not in accessed and "flat" not in accessed
    assert [op.name for op in found[named["stored"]]] == ["memref.store"]
    assert "loaded" in accessed, "a host load counts as much as a store"
    assert "nested" in accessed, "an access inside a region counts"
    # A memref.view is a buffer of its own AND touches the bytes it is carved from.
    assert {"carved", "bytes"} <= accessed
    # Kernels, memref.dim and memref.copy are not host accesses.
    assert "device" not in accessed and "copied" not in accessed
    x = block.args[1]
    assert x in found, "function arguments are roots too"


def test_forward_aliases_follow_views_from_their_source_only():
    module = parse_verified(ACCESSES)
    named = named_values(module)
    aliases = [v.name_hint for v in forward_aliases(named["stored"])]
    assert aliases == ["stored", "flat", "tail"]
    assert [v.name_hint for v in forward_aliases(named["bytes"])] == ["bytes", "carved"]
    assert [v.name_hint for v in forward_aliases(named["device"])] == ["device"]
