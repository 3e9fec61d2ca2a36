"""`hip.fused_elementwise`: a chain of elementwise hip ops run as one kernel.

    %r = hip.fused_elementwise(%ctx) ins(%x, %c : tensor<?x8xf32>, tensor<f32>)
           outs(%init : tensor<?x8xf32>)
           {steps = [#hip.step<hip.mul(in0, in1) : f32>, #hip.step<hip.tanh(t0) : f32>]}
           -> tensor<?x8xf32>

Each step applies one elementwise hip op (its class's C_EXPR on the GPU, its reference
kernel on NumPy) to inputs `in0`.. and to results `t0`.. of earlier steps; a step spells
its result's element type (the type the unfused op's output had) and the step op's own
properties. The last step is the output. The output has the broadcast shape of all
inputs, so a producer of a smaller shape is recomputed per output element.

hip-fuse-elementwise (xhip/passes/fuse_elementwise.py) builds these ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr, TensorType
from xdsl.ir import Attribute, Block, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, irdl_op_definition, prop_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xhip.diagnostics import XhipError
from xhip.dialects.hip.common import ContextType, element_type_of, rank_of, verify_error
from xhip.dialects.hip.compute import COMPUTE_OPS
from xhip.dialects.hip.dps import Arity, DPSOp, ShapeRule


@irdl_attr_definition
class StepAttr(ParametrizedAttribute):
    """One step of a fused chain: `#hip.step<hip.gelu(t0) {approximate = "tanh"} : f32>`."""

    name = "hip.step"
    op: StringAttr
    args: ArrayAttr[StringAttr]
    properties: DictionaryAttr
    result: TypeAttribute

    @staticmethod
    def make(op: str, args: Sequence[str], result: Attribute, properties: dict[str, Attribute] | None = None) -> StepAttr:
        return StepAttr(StringAttr(op), ArrayAttr([StringAttr(a) for a in args]), DictionaryAttr(properties or {}), result)  # type: ignore[arg-type]

    @property
    def arg_names(self) -> list[str]:
        return [a.data for a in self.args.data]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            op = parser.parse_identifier(context_msg=" (the step's op name, e.g. hip.mul)")
            args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_identifier)
            properties = parser.parse_optional_dictionary_attr_dict()
            parser.parse_punctuation(":")
            result = parser.parse_type()
        return (StringAttr(op), ArrayAttr([StringAttr(a) for a in args]), DictionaryAttr(properties), result)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.op.data}({', '.join(self.arg_names)})")
        if self.properties.data:
            printer.print_string(" ")
            printer.print_attr_dict(self.properties.data)
        printer.print_string(" : ")
        printer.print_attribute(self.result)
        printer.print_string(">")


def is_fusable(op_class: type) -> bool:
    """Whether an op may be a step: its kernel is the elementwise template over a C_EXPR."""
    return (
        issubclass(op_class, DPSOp)
        and getattr(op_class, "TEMPLATE", None) == "elementwise"
        and getattr(op_class, "C_EXPR", None) is not None
    )


STEP_CLASSES: dict[str, type[DPSOp]] = {op.name: op for op in COMPUTE_OPS if is_fusable(op)}
"""The op classes a step may name, by op name (derived from the op facts)."""

_VERIFIED_STEPS: set[tuple[object, ...]] = set()
"""(op name, argument element types, result type, properties) of the steps that verified."""


@irdl_op_definition
class FusedElementwiseOp(DPSOp):
    """`ins(x0, x1, ...) outs(y)`: the chain `steps` evaluated per element of y."""

    name = "hip.fused_elementwise"
    TEMPLATE: ClassVar[str] = "elementwise"
    SHAPE_RULE: ClassVar[ShapeRule] = ShapeRule.BROADCAST
    INPUTS: ClassVar[Arity] = (1, None)
    MAY_ALIAS_INPUT: ClassVar[bool] = True  # each element's inputs are read before it is written
    steps = prop_def(ArrayAttr[StepAttr])

    @staticmethod
    def step_class(name: str) -> type[DPSOp]:
        """The op class a step names (the kernels read its C_EXPR and reference kernel)."""
        return STEP_CLASSES[name]

    @property
    def step_list(self) -> list[StepAttr]:
        return list(self.steps.data)

    def verify_semantics(self) -> None:
        steps = self.step_list
        if not steps:
            raise verify_error(self, "needs at least one step")
        elements = [element_type_of(v) for v in self.inputs]
        results: list[Attribute] = []
        used: set[str] = set()
        for index, step in enumerate(steps):
            arg_elements = [self._arg_element(index, arg, elements, results) for arg in step.arg_names]
            self._verify_step(index, step, arg_elements)
            used.update(step.arg_names)
            results.append(step.result)
        # The last step is the output; every other value must feed a step.
        names = [f"in{i}" for i in range(len(elements))] + [f"t{i}" for i in range(len(steps) - 1)]
        unused = [name for name in names if name not in used]
        if unused:
            raise verify_error(self, f"{unused[0]} is never used by a step")
        output = element_type_of(self.outputs[0])
        if output != results[-1]:
            raise verify_error(self, f"output element type {output} differs from the last step's {results[-1]}")
        self.check_rank(self.outputs[0], max(rank_of(v) for v in self.inputs), "output")

    def _arg_element(self, index: int, arg: str, inputs: list[Attribute], results: list[Attribute]) -> Attribute:
        """The element type of input `inN` or of an earlier step's result `tN`."""
        for prefix, table, what in (("in", inputs, "inputs"), ("t", results, "earlier steps")):
            number = arg.removeprefix(prefix)
            if arg.startswith(prefix) and number.isdigit():
                if int(number) < len(table):
                    return table[int(number)]
                raise verify_error(self, f"step #{index} argument '{arg}' names no input or earlier step (there are {len(table)} {what})")
        raise verify_error(self, f"step #{index} argument '{arg}' is neither an input (in0, in1, ...) nor an earlier step (t0, t1, ...)")

    def _verify_step(self, index: int, step: StepAttr, arg_elements: list[Attribute]) -> None:
        """The step op's own verifier, on a detached op of rank-0 operands of the step's
        element types: each op's type rules stay written once, on its class."""
        name = step.op.data
        step_class = STEP_CLASSES.get(name)
        if step_class is None:
            raise verify_error(self, f"step #{index} '{name}' is not an elementwise hip op with a C expression")
        # A step's verdict depends on nothing but these (attributes are immutable values), and
        # the fused ops of a model repeat a few steps, verified again after every pass.
        key = (name, tuple(arg_elements), step.result, step.properties)
        if key in _VERIFIED_STEPS:
            return
        operand_types = [ContextType(), *(TensorType(e, []) for e in arg_elements), TensorType(step.result, [])]
        ctx, *ins, out = Block(arg_types=operand_types).args
        try:
            step_class(ctx, ins, [out], properties=dict(step.properties.data)).verify()
        except (XhipError, VerifyException) as err:
            message = err.message if isinstance(err, XhipError) else str(err)
            raise verify_error(self, f"step #{index} ({name}): {message}") from None
        _VERIFIED_STEPS.add(key)
