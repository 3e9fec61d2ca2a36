"""MLIR text out, with optional eliding of large constants."""

from __future__ import annotations

from io import StringIO
from typing import IO

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer


class ElidingPrinter(Printer):
    """A Printer that writes dense constants above a size as `dense_resource<__elided__>`."""

    def __init__(
        self,
        stream: IO[str],
        elide_larger_than: int | None = None,
        *,
        print_generic_format: bool = False,
        print_properties_as_attributes: bool = False,
        print_debuginfo: bool = False,
    ):
        super().__init__(
            stream=stream,
            print_generic_format=print_generic_format,
            print_properties_as_attributes=print_properties_as_attributes,
            print_debuginfo=print_debuginfo,
        )
        self._elide_larger_than = elide_larger_than

    def print_attribute(self, attribute: Attribute) -> None:
        limit = self._elide_larger_than
        if (
            limit is not None
            and isinstance(attribute, DenseIntOrFPElementsAttr)
            and len(attribute) > limit
        ):
            self.print_string("dense_resource<__elided__> : ")
            self.print_attribute(attribute.type)
            return
        super().print_attribute(attribute)


def print_ir(
    op: Operation,
    generic: bool = False,
    elide_larger_than: int | None = None,
    debuginfo: bool = False,
) -> str:
    """The textual form of `op`, ending with a newline."""
    out = StringIO()
    printer = ElidingPrinter(
        out,
        elide_larger_than,
        print_generic_format=generic,
        print_debuginfo=debuginfo,
    )
    printer.print_op(op)
    out.write("\n")
    return out.getvalue()
