"""hip-fuse-gelu: GELU written out as its formula becomes one `hip.gelu`.

Exports below opset 20 have no Gelu op, so torch.onnx and transformers write it as its
formula (BERT, ViT and Whisper the exact form, GPT-2 the tanh form):

- exact: x * 0.5 * (1 + erf(x / √2)), with x * (1/√2) for the division;
- tanh: x * 0.5 * (1 + tanh(√(2/π) * (x + 0.044715 * x³))), x³ as pow(x, 3) or x * x * x.

The products may be grouped and ordered in any way (`_factors` flattens them), and 1 may
stand on either side of its sum. hip-fuse-elementwise makes such a chain one kernel
anyway, but a chain evaluates pow, a division and every step's rounding to the storage
type: ViT-B/16's bias + GELU in fp16 was compute-bound on the H100 (49.8 us a call against
PyTorch's 30.1). `hip.gelu` evaluates the formula in the compute type (float for half) and
rounds once, so a half-precision model's GELU is also closer to float64 than the steps were.

Only ops in tensor mode, without run-time scalars, whose results the formula alone uses
(x itself may have other users); the constants must match to 1e-3 relative (an fp16
√2 is 1.4140625). It runs before hip-fuse-elementwise, which would otherwise take the
steps into a chain of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, tensor
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from xhip.dialects.hip import AddOp, DivOp, ErfOp, GeluOp, MulOp, PowOp, TanhOp
from xhip.rewrite_rules.dead_operands import erase_with_dead_operands
from xhip.rewrite_rules.producers import sole_use_producer
from xhip.rewrite_rules.scalar_constants import unit_float_constant

PASS = "hip-fuse-gelu"

SQRT_2 = 1.4142135623730951
SQRT_2_OVER_PI = 0.7978845608028654
CUBE_COEFFICIENT = 0.044715


def _near(value: float | None, expected: float) -> bool:
    return value is not None and abs(value - expected) <= 1e-3 * abs(expected)


def _factors(value: SSAValue, steps: list[Operation]) -> list[SSAValue]:
    """The factors of a product tree of hip.mul steps (`steps` gains each mul)."""
    mul = sole_use_producer(value, MulOp)
    if mul is None:
        return [value]
    steps.append(mul)
    return [factor for operand in mul.inputs for factor in _factors(operand, steps)]


def _split(factors: list[SSAValue], constant: float) -> list[SSAValue] | None:
    """`factors` without the one unit constant near `constant`; None when there is none."""
    for index, factor in enumerate(factors):
        if _near(unit_float_constant(factor), constant):
            return factors[:index] + factors[index + 1 :]
    return None


def _one_plus(value: SSAValue, steps: list[Operation]) -> SSAValue | None:
    """t of a `1 + t` (or `t + 1`) step."""
    add = sole_use_producer(value, AddOp)
    if add is None:
        return None
    for one, term in (add.inputs, reversed(add.inputs)):
        if unit_float_constant(one) == 1.0:
            steps.append(add)
            return term
    return None


def _erf_argument_is(x: SSAValue, argument: SSAValue, steps: list[Operation]) -> bool:
    """argument == x / √2 or x * (1/√2)."""
    div = sole_use_producer(argument, DivOp)
    if div is not None:
        steps.append(div)
        return div.inputs[0] is x and _near(unit_float_constant(div.inputs[1]), SQRT_2)
    return _split(_factors(argument, steps), 1 / SQRT_2) == [x]


def _is_cube(value: SSAValue, x: SSAValue, steps: list[Operation]) -> bool:
    """value == pow(x, 3) or x * x * x."""
    power = sole_use_producer(value, PowOp)
    if power is not None:
        steps.append(power)
        return power.inputs[0] is x and unit_float_constant(power.inputs[1]) == 3.0
    return _factors(value, steps) == [x, x, x]


def _tanh_argument_is(x: SSAValue, argument: SSAValue, steps: list[Operation]) -> bool:
    """argument == √(2/π) * (x + 0.044715 * x³), the sum's terms in either order."""
    inner = _split(_factors(argument, steps), SQRT_2_OVER_PI)
    add = sole_use_producer(inner[0], AddOp) if inner is not None and len(inner) == 1 else None
    if add is None:
        return False
    steps.append(add)
    for linear, cubic in (add.inputs, reversed(add.inputs)):
        if linear is x:
            cube = _split(_factors(cubic, steps), CUBE_COEFFICIENT)
            return cube is not None and (cube == [x, x, x] or (len(cube) == 1 and _is_cube(cube[0], x, steps)))
    return False


def _gelu_of(root: MulOp) -> tuple[SSAValue, str, list[Operation]] | None:
    """(x, approximate, the formula's steps other than the root) when `root` is the last
    product of a GELU of x."""
    steps: list[Operation] = []
    factors = [f for operand in root.inputs for f in _factors(operand, steps)]
    rest = _split(factors, 0.5)
    if rest is None or len(rest) != 2:
        return None
    for x, sum_ in (rest, reversed(rest)):
        found = list(steps)
        term = _one_plus(sum_, found)
        if term is None or x.type != root.res[0].type:
            continue
        for kind, approximate, argument_is in ((ErfOp, "none", _erf_argument_is), (TanhOp, "tanh", _tanh_argument_is)):
            function = sole_use_producer(term, kind)
            if function is not None and argument_is(x, function.inputs[0], found):
                return x, approximate, [function, *found]
    return None


class GeluFormula(RewritePattern):
    """x * 0.5 * (1 + erf(x / √2)) or its tanh form -> hip.gelu(x)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter) -> None:
        if not op.is_tensor_mode or op.scalars or len(op.res) != 1:
            return
        found = _gelu_of(op)
        if found is None:
            return
        x, approximate, steps = found
        gelu = GeluOp(op.ctx, [x], list(op.outputs), properties={"approximate": StringAttr(approximate)})
        gelu.location = op.location
        rewriter.replace(op, [gelu])
        # Each step's one use was a later step of the formula: erase the last ones first.
        for step in sorted(steps, key=lambda s: -_position(s)):
            if not any(result.uses for result in step.results):
                erase_with_dead_operands(step, rewriter.erase, (tensor.EmptyOp, arith.ConstantOp))


def _position(op: Operation) -> int:
    block = op.parent_block()
    assert block is not None
    return block.get_operation_index(op)


@dataclass(frozen=True)
class FuseGeluPass(ModulePass):
    """GELU written out as its formula (exact or tanh form) becomes one hip.gelu."""

    name = PASS

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(GeluFormula(), apply_recursively=False).rewrite_module(op)
