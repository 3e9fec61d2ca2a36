"""The hip dialect (placeholder until the dialect lands)."""

from xdsl.ir import Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition


@irdl_attr_definition
class ContextType(ParametrizedAttribute, TypeAttribute):
    """The opaque execution context, always the first function argument."""

    name = "hip.context"


HIP = Dialect("hip", [], [ContextType])
