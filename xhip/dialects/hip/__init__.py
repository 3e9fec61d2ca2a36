"""The hip dialect: the execution context, device buffers, readbacks and compute ops.

Infrastructure ops manage memory (`hip.alloc`, `hip.get_pool`, `hip.alloc_output`, ...)
and make device data visible to the host (`hip.readback_scalar`, `hip.readback_dim`).

Compute ops are destination-passing (DPS) and come in two modes:

    %r = hip.add(%ctx) ins(%a, %b : tensor<?xf32>, tensor<?xf32>)
                       outs(%init : tensor<?xf32>) -> tensor<?xf32>      // tensor mode
    hip.add(%ctx) ins(%a, %b : memref<?xf32>, memref<?xf32>)
                  outs(%o : memref<?xf32>)                               // memref mode

Tensor mode has one result per init and no memory effects; memref mode has no results
and reads its `ins` and writes its `outs` (per value, so analyses can tell buffers apart).
Host scalars that parameterize a kernel (slice starts, range start/delta, a fill value)
follow the context: `hip.slice(%ctx, %start0, %step0) ...`. Their types are not spelled
in the custom form: they are looked up from the (dominating) definitions.
"""

from xdsl.ir import Dialect

from xhip.dialects.hip.common import BYTE_BUFFER, ContextType, DataType
from xhip.dialects.hip.compute import (
    AbsOp,
    AddOp,
    AndOp,
    BroadcastOp,
    CastOp,
    ComparisonOp,
    ConcatOp,
    CopyOp,
    CumSumOp,
    DataMovementOp,
    DivOp,
    EqualOp,
    ErfOp,
    ExpandOp,
    ExpOp,
    FillOp,
    GatherNDOp,
    GatherOp,
    GeluOp,
    GemmOp,
    GeneratorOp,
    GreaterEqualOp,
    GreaterOp,
    IndexedGatherOp,
    IsNaNOp,
    LayerNormOp,
    LessEqualOp,
    LessOp,
    LogOp,
    MatmulOp,
    MaxOp,
    MinOp,
    MulOp,
    NegOp,
    NonZeroOp,
    NotOp,
    OrOp,
    PowOp,
    RangeOp,
    ReciprocalOp,
    ReduceMaxOp,
    ReduceMeanOp,
    ReduceOp,
    ReduceSumOp,
    ReluOp,
    SigmoidOp,
    SliceOp,
    SoftmaxOp,
    SplitOp,
    SqrtOp,
    SubOp,
    TanhOp,
    TransposeOp,
    UnaryElementwiseOp,
    WhereOp,
)
from xhip.dialects.hip.dps import DPSOp, ElementKind, ShapeRule
from xhip.dialects.hip.infra import (
    AllocOp,
    AllocOutputOp,
    FreeOp,
    GetConstantOp,
    GetHostScratchOp,
    GetPoolOp,
    ReadbackDimOp,
    ReadbackScalarOp,
)

HIP = Dialect(
    "hip",
    [
        # Infrastructure.
        AllocOp, AllocOutputOp, FreeOp, GetPoolOp, GetHostScratchOp, GetConstantOp,
        ReadbackScalarOp, ReadbackDimOp,
        # Elementwise.
        AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp,
        EqualOp, LessOp, GreaterOp, LessEqualOp, GreaterEqualOp, AndOp, OrOp, NotOp, WhereOp,
        ReluOp, SigmoidOp, TanhOp, ErfOp, SqrtOp, ExpOp, LogOp, NegOp, AbsOp, ReciprocalOp,
        IsNaNOp, CastOp, GeluOp, CopyOp,
        # Linear algebra, normalization, reductions and scans.
        MatmulOp, GemmOp, SoftmaxOp, LayerNormOp, ReduceMeanOp, ReduceSumOp, ReduceMaxOp,
        CumSumOp,
        # Data movement and generators.
        TransposeOp, ConcatOp, SplitOp, SliceOp, GatherOp, GatherNDOp, ExpandOp,
        RangeOp, NonZeroOp, FillOp,
    ],  # fmt: skip
    [ContextType],
)

__all__ = [
    "AbsOp",
    "AddOp",
    "AllocOp",
    "AllocOutputOp",
    "AndOp",
    "BYTE_BUFFER",
    "BroadcastOp",
    "CastOp",
    "ComparisonOp",
    "ConcatOp",
    "ContextType",
    "CopyOp",
    "CumSumOp",
    "DPSOp",
    "DataMovementOp",
    "DataType",
    "DivOp",
    "ElementKind",
    "EqualOp",
    "ErfOp",
    "ExpOp",
    "ExpandOp",
    "FillOp",
    "FreeOp",
    "GatherNDOp",
    "GatherOp",
    "GeluOp",
    "GemmOp",
    "GeneratorOp",
    "GetConstantOp",
    "GetHostScratchOp",
    "GetPoolOp",
    "GreaterEqualOp",
    "GreaterOp",
    "HIP",
    "IndexedGatherOp",
    "IsNaNOp",
    "LayerNormOp",
    "LessEqualOp",
    "LessOp",
    "LogOp",
    "MatmulOp",
    "MaxOp",
    "MinOp",
    "MulOp",
    "NegOp",
    "NonZeroOp",
    "NotOp",
    "OrOp",
    "PowOp",
    "RangeOp",
    "ReadbackDimOp",
    "ReadbackScalarOp",
    "ReciprocalOp",
    "ReduceMaxOp",
    "ReduceMeanOp",
    "ReduceOp",
    "ReduceSumOp",
    "ReluOp",
    "ShapeRule",
    "SigmoidOp",
    "SliceOp",
    "SoftmaxOp",
    "SplitOp",
    "SqrtOp",
    "SubOp",
    "TanhOp",
    "TransposeOp",
    "UnaryElementwiseOp",
    "WhereOp",
]
