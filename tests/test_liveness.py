"""Alias roots and live intervals through views."""

from __future__ import annotations

from xhip.analysis.liveness import Interval, alias_roots, live_intervals, max_live_sum
from xhip.context import make_context
from xhip.parsing import parse_module

IR = """
func.func @f(%ctx: !hip.context, %n: index, %x: memref<16xf32>) -> memref<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %pool = hip.get_pool(%ctx, %c256) : memref<?xi8>
  %a = memref.view %pool[%c0][] : memref<?xi8> to memref<16xf32>
  %a2 = memref.expand_shape %a [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  %b = memref.alloc() : memref<16xf32>
  hip.relu(%ctx) ins(%x : memref<16xf32>) outs(%b : memref<16xf32>)
  %b1 = memref.subview %b[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  %c = memref.alloc() : memref<8xf32>
  "memref.copy"(%b1, %c) : (memref<8xf32, strided<[1]>>, memref<8xf32>) -> ()
  hip.relu(%ctx) ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  func.return %a2 : memref<4x4xf32>
}
"""


def _block():
    module = parse_module(make_context(), IR, "live.mlir")
    return next(iter(module.ops)).body.blocks.first


def _named(block):
    return {v.name_hint: v for op in block.ops for v in op.results if v.name_hint}


def test_views_alias_their_root():
    block = _block()
    roots, named = alias_roots(block), _named(block)
    assert roots[named["a2"]] is named["a"]
    assert roots[named["b1"]] is named["b"]
    assert roots[named["a"]] is named["a"], "a view into a pool is a buffer of its own"


def test_intervals_follow_aliases_to_the_last_use():
    block = _block()
    named = _named(block)
    intervals = live_intervals(block, [named["a"], named["b"], named["c"]])
    assert intervals[named["b"]] == Interval(5, 9), "b lives until the copy reads its subview"
    assert intervals[named["c"]] == Interval(8, 9)
    assert intervals[named["a"]] == Interval(3, 11), "a is returned through a2: live to the end"


def test_max_live_sum():
    intervals = {"x": Interval(0, 2), "y": Interval(3, 5), "z": Interval(2, 3)}
    assert max_live_sum(intervals, {"x": 10, "y": 20, "z": 5}) == 25
    assert max_live_sum({"x": Interval(0, 1), "y": Interval(2, 3)}, {"x": 10, "y": 20}) == 20
