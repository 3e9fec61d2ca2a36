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

from xhip.dialects.hip.attributes import (
    BUFFER_COUNT_ATTR,
    BUFFER_DOMAINS_ATTR,
    BUFFER_OFFSETS_ATTR,
    CONSTANT_OFFSETS_ATTR,
    CONSTANT_SIZES_ATTR,
    CONSTANTS_FILE_ATTR,
    CONSTANTS_SHA256_ATTR,
    CONSTANTS_SIZE_ATTR,
    DOMAIN_COUNT_ATTR,
    EXTERNAL_DATA_ATTR,
    OUT_PARAM_ATTR,
    POOL_ALIGNMENT_ATTR,
    POOL_SIZE_ATTR,
    POOL_SIZES_ATTR,
    DOMAIN_POOLS_ATTR,
    RUNTIME_OFFSET,
    ExternalData,
    format_external_data,
    parse_external_data,
    pool_alignment,
    pool_attributes,
)
from xhip.dialects.hip.common import BYTE_BUFFER, ContextType, DataType
from xhip.dialects.hip import compute as _compute
from xhip.dialects.hip.compute import *  # noqa: F403 -- the op classes, named by compute.__all__
from xhip.dialects.hip.compute import COMPUTE_OPS
from xhip.dialects.hip.dps import DPSOp, ElementKind
from xhip.dialects.hip.attention import AttentionOp
from xhip.dialects.hip.fused import STEP_CLASSES, FusedElementwiseOp, StepAttr, is_fusable
from xhip.dialects.hip.infra import (
    AllocOp,
    AllocOutputOp,
    CacheAppendOp,
    FreeOp,
    GetConstantOp,
    GetHostScratchOp,
    GetPoolOp,
    PlanPoolOp,
    ReadbackDimOp,
    ReadbackScalarOp,
)
from xhip.dialects.hip.reify import ShapeRule

HIP = Dialect(
    "hip",
    [
        # Infrastructure.
        AllocOp, AllocOutputOp, CacheAppendOp, FreeOp, GetPoolOp, PlanPoolOp, GetHostScratchOp, GetConstantOp,
        ReadbackScalarOp, ReadbackDimOp,
        *COMPUTE_OPS,
        FusedElementwiseOp, AttentionOp,
    ],
    [ContextType, StepAttr],
)

__all__ = [
    "BUFFER_COUNT_ATTR",
    "BUFFER_DOMAINS_ATTR",
    "BUFFER_OFFSETS_ATTR",
    "CONSTANT_OFFSETS_ATTR",
    "CONSTANT_SIZES_ATTR",
    "CONSTANTS_FILE_ATTR",
    "CONSTANTS_SHA256_ATTR",
    "CONSTANTS_SIZE_ATTR",
    "DOMAIN_COUNT_ATTR",
    "DOMAIN_POOLS_ATTR",
    "EXTERNAL_DATA_ATTR",
    "OUT_PARAM_ATTR",
    "POOL_ALIGNMENT_ATTR",
    "POOL_SIZE_ATTR",
    "POOL_SIZES_ATTR",
    "RUNTIME_OFFSET",
    "ExternalData",
    "format_external_data",
    "parse_external_data",
    "pool_alignment",
    "pool_attributes",
    "AllocOp",
    "AttentionOp",
    "AllocOutputOp",
    "CacheAppendOp",
    "BYTE_BUFFER",
    "ContextType",
    "DPSOp",
    "DataType",
    "ElementKind",
    "FreeOp",
    "FusedElementwiseOp",
    "GetConstantOp",
    "GetHostScratchOp",
    "GetPoolOp",
    "HIP",
    "PlanPoolOp",
    "ReadbackDimOp",
    "ReadbackScalarOp",
    "STEP_CLASSES",
    "ShapeRule",
    "StepAttr",
    "is_fusable",
]
__all__ += _compute.__all__
