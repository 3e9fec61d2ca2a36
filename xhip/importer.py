"""ONNX model -> onnx-dialect module, built in memory (never through text).

The result has the shape of the seed's imported IR:

    func.func @main_graph(%arg0: tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "X"})
        -> (tensor<?x?x64xf32> {onnx.dim_params = "0:batch,1:seq", onnx.name = "out"}) {
      %0 = "onnx.Constant"() {value = dense<...> : tensor<64x64xf32>} : () -> tensor<64x64xf32>
      %1 = "onnx.MatMul"(%arg0, %0) {onnx_node_name = "q_proj"} : (...) -> tensor<?x?x64xf32>
      ...
    }
    "onnx.EntryPoint"() <{func = @main_graph}> : () -> ()

Result types come from ONNX shape inference, run on a stand-in copy of the graph in
which large constants are typed graph inputs, so inference never copies weights.
Weights go into `DenseIntOrFPElementsAttr`s as the tensor's raw little-endian bytes;
external data is read straight from its file into those bytes. Everything a user can
get wrong (file, opset, domain, op, attribute) is an `XhipError` naming the node.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from functools import cache
from typing import TypeAlias

import onnx
from google.protobuf.message import DecodeError
from onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto, TypeProto, numpy_helper
from onnx.external_data_helper import ExternalDataInfo
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BFloat16Type,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneType,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import AttrConstraint
from xdsl.utils.exceptions import VerifyException

from xhip.diagnostics import ECHO_LIMIT, XhipError, shorten
from xhip.dialects.onnx import shape_checks  # noqa: F401 (installs the onnx verifiers' shape checks)
from xhip.onnx_checks import (
    GraphError,
    check_graph,
    check_headers,
    node_label,
    tensor_nbytes,
    type_shape_problem,
    unsupported_element_type,
)
from xhip.onnx_wire import WireFormatError, mapped_file, model_bytes_without_weights, read_range
from xhip.dialects.onnx import (
    DENSE_CONSTR,
    DIM_PARAMS_ATTR,
    FLOAT_CONSTR,
    INT_CONSTR,
    INTS_CONSTR,
    NAME_ATTR,
    NODE_NAME_ATTR,
    ONNX_OPS,
    SI64,
    STRING_CONSTR,
    ConstantOp,
    EntryPointOp,
    IntsAttr,
    NoValueOp,
    OnnxOp,
    format_dim_params,
)

SUPPORTED_OPSETS = range(13, 22)
"""ai.onnx opsets whose operator forms the importer knows (13 to 21).

A model of another opset imports when each of its nodes has one of these forms:
And at opset 7 is the And of opset 13, and Cast at opset 25 is the Cast of
opset 21 with more element types (see `known_form`).
"""

DEFAULT_DOMAINS = ("", "ai.onnx")

ENTRY_FUNCTION = "main_graph"

STAND_IN_MIN_BYTES = 4096
"""Constants at least this large reach shape inference as typed inputs, not data."""

INFERENCE_PREFIX = "xhip.inference."
"""Names of the values added to the copy of a graph that inference alone sees."""

ElementType: TypeAlias = IntegerType | BFloat16Type | Float16Type | Float32Type | Float64Type

ELEMENT_TYPES: dict[int, ElementType] = {
    TensorProto.FLOAT: f32,
    TensorProto.DOUBLE: f64,
    TensorProto.FLOAT16: f16,
    TensorProto.BFLOAT16: BFloat16Type(),
    TensorProto.BOOL: i1,
    TensorProto.INT8: i8,
    TensorProto.INT16: i16,
    TensorProto.INT32: i32,
    TensorProto.INT64: i64,
    TensorProto.UINT8: IntegerType(8, Signedness.UNSIGNED),
    TensorProto.UINT16: IntegerType(16, Signedness.UNSIGNED),
    TensorProto.UINT32: IntegerType(32, Signedness.UNSIGNED),
    TensorProto.UINT64: IntegerType(64, Signedness.UNSIGNED),
}
"""ONNX element types we import, spelled as onnx-mlir does (signless ints, `ui` unsigned)."""

NON_TENSOR_KINDS = {
    "sequence_type": "a sequence",
    "map_type": "a map",
    "optional_type": "an optional",
    "sparse_tensor_type": "a sparse tensor",
}

TYPE_VALUED_ATTRIBUTES = {("Cast", "to")}
"""ONNX `int` attributes that hold a data type and become the element type itself."""


def import_model(
    model: ModelProto | str | os.PathLike[str],
    *,
    external_data_dir: str | os.PathLike[str] | None = None,
    map_weights: bool = False,
) -> ModuleOp:
    """Import an ONNX model (a path, or a ModelProto) as an onnx-dialect module.

    Every imported op is verified as it is built; a failure names its ONNX node.

    A path's external data is read from the files next to it. A ModelProto's external
    data must already be loaded, unless `external_data_dir` says where the files are.

    `map_weights`: large weights are views of the mapped model file instead of
    copies (no 0.15 s read and no anonymous memory for GPT-2 124M's 500 MB;
    the pages are read when a pass first touches them). For a process that ends
    with the compile (xhip-opt): a mapped file that is truncated while its
    views live would crash the process on the next touch.
    """
    source: str | None = None
    if isinstance(model, ModelProto):
        base_dir = None if external_data_dir is None else os.fspath(external_data_dir)
    else:
        source = os.fspath(model)
        model = _load(source)
        base_dir = os.fspath(external_data_dir) if external_data_dir is not None else os.path.dirname(source)
    return _Importer(model, source, base_dir, map_weights).run()


def _load(path: str) -> ModelProto:
    """The model at `path`; its weights (embedded or external) stay on disk until read."""
    if os.path.isdir(path):
        raise XhipError("cannot read ONNX model: it is a directory", path)
    if not os.path.isfile(path):
        raise XhipError("cannot read ONNX model: no such file", path)
    if os.path.getsize(path) == 0:
        raise XhipError("cannot read ONNX model: the file is empty", path)
    try:
        model = ModelProto()
        model.ParseFromString(model_bytes_without_weights(path))
        return model
    except (DecodeError, WireFormatError):
        raise XhipError("cannot read ONNX model: not a valid ONNX protobuf file", path) from None
    except OSError as err:
        raise XhipError(f"cannot read ONNX model: {err.strerror or err}", path) from None


# ---------------------------------------------------------------------------------
# Types and tensors
# ---------------------------------------------------------------------------------


@cache
def known_form(op_type: str, opset: int) -> bool:
    """Whether ai.onnx `op_type` at `opset` has an operator form xhip knows.

    Known are the forms of SUPPORTED_OPSETS, whichever opset a model names them
    by, and later forms that only widen the newest known one: the same inputs and
    outputs, more element types, and new attributes (which the dialect rejects
    when a node sets one it does not declare). Opsets 22 to 28 are of that kind
    for every supported op.
    """
    form = onnx.defs.get_schema(op_type, opset, "")
    known = {onnx.defs.get_schema(op_type, v, "").since_version for v in SUPPORTED_OPSETS if _exists(op_type, v)}
    if form.since_version in known:
        return True
    if not known or form.since_version < max(known):
        return False  # a form older than opset 13 (Softmax at 11 flattens trailing axes)
    newest = onnx.defs.get_schema(op_type, max(known), "")
    return (
        _signature(form.inputs) == _signature(newest.inputs)
        and _signature(form.outputs) == _signature(newest.outputs)
        and set(newest.attributes) <= set(form.attributes)
    )


def _exists(op_type: str, opset: int) -> bool:
    try:
        onnx.defs.get_schema(op_type, opset, "")
    except onnx.defs.SchemaError:
        return False
    return True


def _kinds(parameters: Sequence[onnx.defs.OpSchema.FormalParameter]) -> tuple[str, ...]:
    names = {
        onnx.defs.OpSchema.FormalParameterOption.Single: "required",
        onnx.defs.OpSchema.FormalParameterOption.Optional: "optional",
        onnx.defs.OpSchema.FormalParameterOption.Variadic: "variadic",
    }
    return tuple(names[p.option] for p in parameters)


def _signature(parameters: Sequence[onnx.defs.OpSchema.FormalParameter]) -> list[tuple[str, object]]:
    return [(p.name, p.option) for p in parameters]


def _domain(node: NodeProto) -> str:
    return node.domain or "ai.onnx"


class _Importer:
    """One import: the model, where errors point, and the values built so far."""

    def __init__(self, model: ModelProto, source: str | None, base_dir: str | None, map_weights: bool = False):
        self.model = model
        self.graph: GraphProto = model.graph
        self.source = source
        self.base_dir = base_dir
        self.map_weights = map_weights
        self._mapped_files: dict[str, memoryview] = {}
        self.opset = self._check_opset()
        self.values: dict[str, SSAValue] = {}
        self.types: dict[str, TypeProto] = {}
        self.block = Block()
        self.no_value: SSAValue | None = None

    def error(self, message: str) -> XhipError:
        return XhipError(message, self.source)

    # -- model-level checks ----------------------------------------------------------

    def _check_opset(self) -> int:
        versions = [o.version for o in self.model.opset_import if o.domain in DEFAULT_DOMAINS]
        if not versions:
            raise self.error("the model imports no ai.onnx opset")
        if len(set(versions)) > 1:
            # "" and "ai.onnx" spell one domain: the same version twice is harmless, two are ambiguous.
            listed = ", ".join(map(str, versions))
            raise self.error(f"the model imports the ai.onnx opset {len(versions)} times, at different versions ({listed})")
        version = versions[0]
        newest = onnx.defs.onnx_opset_version()
        if not 1 <= version <= newest:
            raise self.error(f"ai.onnx opset {version} is not supported (onnx {onnx.__version__} knows opsets 1 to {newest})")
        return version

    def _check_nodes(self) -> None:
        """Reject what xhip cannot import before shape inference has a say."""
        if self.graph.sparse_initializer:
            raise self.error(f"sparse initializer '{self.graph.sparse_initializer[0].values.name}' is not supported")
        try:
            check_graph(self.graph, self._value_kinds)
            check_headers(self.graph, ELEMENT_TYPES)
        except GraphError as err:
            raise self.error(str(err)) from None
        for index, node in enumerate(self.graph.node):
            described = f"{node_label(node, index)} (op '{shorten(node.op_type)}', domain '{shorten(_domain(node))}')"
            if node.domain not in DEFAULT_DOMAINS:
                raise self.error(f"{described} is not supported (xhip imports the ai.onnx domain only)")
            if node.op_type not in ONNX_OPS:
                raise self.error(f"{described} is not supported")
            try:
                schema = onnx.defs.get_schema(node.op_type, self.opset, "")
            except onnx.defs.SchemaError:
                first = min(
                    s.since_version
                    for s in onnx.defs.get_all_schemas_with_history()
                    if s.name == node.op_type and s.domain == ""
                )
                raise self.error(
                    f"{described} does not exist in opset {self.opset}; it was added in opset {first}"
                ) from None
            if not known_form(node.op_type, self.opset):
                raise self.error(
                    f"{described} has its opset-{schema.since_version} form at opset {self.opset}, which xhip "
                    f"does not support (xhip knows the forms of opsets {SUPPORTED_OPSETS.start} to "
                    f"{SUPPORTED_OPSETS.stop - 1})"
                )

    def _value_kinds(self, node: NodeProto) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """What ONNX's schema says of the node's inputs and outputs (None: no schema)."""
        try:
            domain = "" if node.domain in DEFAULT_DOMAINS else node.domain
            schema = onnx.defs.get_schema(node.op_type, self.opset, domain)
        except onnx.defs.SchemaError:
            return None  # refused after the structural checks, with the op named
        return _kinds(schema.inputs), _kinds(schema.outputs)

    # -- the whole import ----------------------------------------------------------

    def run(self) -> ModuleOp:
        self._check_nodes()
        self.types = self._inferred_types()
        initializers = {t.name for t in self.graph.initializer}
        inputs = [v for v in self.graph.input if v.name not in initializers]
        arg_types = [self._value_type(v.type, f"graph input '{shorten(v.name)}'") for v in inputs]
        self.block = Block(arg_types=arg_types)
        for position, (value, arg) in enumerate(zip(inputs, self.block.args)):
            arg.name_hint = f"arg{position}"  # prints as %arg0, like the seed IR
            self.values[value.name] = arg
        for tensor in self.graph.initializer:
            self.values[tensor.name] = self._constant(self._dense(tensor, f"initializer '{shorten(tensor.name)}'"))
        for index, node in enumerate(self.graph.node):
            self._emit_node(index, node)
        results = [self._output_value(v.name) for v in self.graph.output]
        self.block.add_op(func.ReturnOp(*results))
        function = func.FuncOp(
            ENTRY_FUNCTION,
            (arg_types, [r.type for r in results]),
            Region(self.block),
            arg_attrs=ArrayAttr([_signature_attrs(v.name, v.type) for v in inputs]),
            res_attrs=ArrayAttr([_signature_attrs(v.name, v.type) for v in self.graph.output]),
        )
        entry = EntryPointOp.create(properties={"func": SymbolRefAttr(ENTRY_FUNCTION)})
        return ModuleOp([function, entry])

    def _output_value(self, name: str) -> SSAValue:
        if name not in self.values:
            raise self.error(f"graph output '{shorten(name)}' is not produced by any node, input or initializer")
        return self.values[name]

    # -- shape inference -------------------------------------------------------------

    def _inferred_types(self) -> dict[str, TypeProto]:
        """Value name -> inferred type, from inference on a weight-free copy of the graph."""
        stand_in = self._stand_in_model()
        types = self._infer(stand_in)
        scalars = {n.input[0] for n in stand_in.graph.node if n.op_type == "NonZero" and _is_scalar(types.get(n.input[0]))}
        if scalars:
            # ONNX inference types NonZero of a scalar [0, n], and everything after it
            # so; its reference and onnxruntime read the scalar as a 1-element vector
            # and give [1, n]. Inference runs again on the graph with that reading.
            types = self._infer(_nonzero_of_vectors(stand_in, scalars))
        return types

    def _infer(self, model: ModelProto) -> dict[str, TypeProto]:
        try:
            inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
        except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError, ValueError) as err:
            raise self.error(f"shape inference failed: {_first_line(err)}") from None
        except MemoryError:
            raise self.error("shape inference ran out of memory") from None
        graph = inferred.graph
        return {v.name: v.type for v in (*graph.input, *graph.value_info, *graph.output)}

    def _stand_in_model(self) -> ModelProto:
        """The model with every large constant replaced by a typed graph input.

        Shape inference serializes its argument; handing it the real model would copy
        every weight (twice). Small constants keep their data: Reshape/Expand shapes
        and the like are read by data propagation.
        """
        copy = ModelProto(ir_version=self.model.ir_version, opset_import=self.model.opset_import)
        graph = copy.graph
        graph.name = self.graph.name
        graph.input.extend(self.graph.input)
        # A NonZero result's declared shape may say [0, n] (ONNX inference's reading of
        # a scalar input) or [1, n] (onnxruntime's): inference decides, not the model.
        nonzero = {n.output[0] for n in self.graph.node if n.op_type == "NonZero" and n.output}
        graph.output.extend(_without_shape(v) if v.name in nonzero else v for v in self.graph.output)
        graph.value_info.extend(_without_shape(v) if v.name in nonzero else v for v in self.graph.value_info)
        declared = {v.name for v in self.graph.input}
        for tensor in self.graph.initializer:
            if tensor_nbytes(tensor) < STAND_IN_MIN_BYTES:
                graph.initializer.append(self._inlined(tensor))
            elif tensor.name not in declared:
                graph.input.append(onnx.helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims))
        for node in self.graph.node:
            large = _large_constant_value(node)
            if large is None:
                graph.node.append(node)
            else:
                graph.input.append(onnx.helper.make_tensor_value_info(node.output[0], large.data_type, large.dims))
        return copy

    def _inlined(self, tensor: TensorProto) -> TensorProto:
        """`tensor` with its (small) data in the proto, external or not."""
        if tensor.data_location != TensorProto.EXTERNAL:
            return tensor
        inlined = TensorProto(name=tensor.name, data_type=tensor.data_type, dims=tensor.dims)
        inlined.raw_data = bytes(self._raw_bytes(tensor, f"initializer '{shorten(tensor.name)}'"))
        return inlined

    def _value_type(self, type_proto: TypeProto, what: str) -> Attribute:
        """`tensor<?x64xf32>` for an ONNX tensor type: symbolic or unknown dims are `?`."""
        if not type_proto.HasField("tensor_type"):
            kind = NON_TENSOR_KINDS.get(type_proto.WhichOneof("value") or "", "an untyped value")
            raise self.error(f"{what} is {kind}; xhip imports tensors only")
        tensor_type = type_proto.tensor_type
        element = self._element_type(tensor_type.elem_type, what)
        problem = type_shape_problem(type_proto)
        if problem:
            raise self.error(f"{what}: {problem}")
        if not tensor_type.HasField("shape"):
            return UnrankedTensorType(element)
        dims = [d.dim_value if d.HasField("dim_value") else DYNAMIC_INDEX for d in tensor_type.shape.dim]
        return TensorType(element, dims)

    def _element_type(self, data_type: int, what: str) -> ElementType:
        if data_type not in ELEMENT_TYPES:
            raise self.error(f"{what} {unsupported_element_type(data_type)}")
        return ELEMENT_TYPES[data_type]

    # -- constants -------------------------------------------------------------------

    def _raw_bytes(self, tensor: TensorProto, what: str) -> bytes | memoryview:
        """The tensor's data as little-endian bytes, read once, in the layout xDSL stores
        (with `map_weights`, external data is a view of the mapped file)."""
        if tensor.data_location == TensorProto.EXTERNAL:
            return self._external_bytes(tensor, what)
        if tensor.HasField("raw_data"):
            return tensor.raw_data
        return numpy_helper.to_array(tensor).tobytes()

    def _external_bytes(self, tensor: TensorProto, what: str) -> bytes | memoryview:
        if self.base_dir is None:
            raise self.error(
                f"{what} keeps its data in an external file; import the model from its path, "
                "load it with onnx.load(..., load_external_data=True), or pass external_data_dir"
            )
        try:
            info = ExternalDataInfo(tensor)
            offset = int(info.offset or 0)
            size = tensor_nbytes(tensor) if info.length is None else int(info.length)
        except ValueError:
            problem = "malformed external data reference (offset and length must be integers)"
            raise self.error(f"{what}: {problem}") from None
        written = shorten(info.location)
        base = os.path.realpath(self.base_dir)
        location = os.path.realpath(os.path.join(base, info.location))
        if os.path.commonpath([base, location]) != base:
            raise self.error(f"{what}: external data location '{written}' is outside the model's directory")
        try:
            whole = self._mapped_files.get(location) if self.map_weights else None
            if self.map_weights and whole is None:
                whole = self._mapped_files[location] = mapped_file(location)
            available = len(whole) if whole is not None else os.path.getsize(location)
            if offset < 0 or size < 0 or offset + size > available:
                raise self.error(
                    f"{what}: external data '{written}' has {available} bytes; "
                    f"the tensor needs bytes {offset} to {offset + size}"
                )
            data = whole[offset : offset + size] if whole is not None else read_range(location, offset, size)
        except OSError as err:
            raise self.error(f"{what}: cannot read external data '{written}': {err.strerror}") from None
        if len(data) != size:
            raise self.error(f"{what}: external data '{written}' ends after {len(data)} of {size} bytes")
        return data

    def _dense(self, tensor: TensorProto, what: str) -> DenseIntOrFPElementsAttr:
        """A dense attribute over the tensor's bytes (no per-element conversion)."""
        element = self._element_type(tensor.data_type, what)
        data = self._raw_bytes(tensor, what)
        if len(data) != tensor_nbytes(tensor):
            raise self.error(
                f"{what} has {len(data)} bytes of data, its shape {list(tensor.dims)} needs {tensor_nbytes(tensor)}"
            )
        # A memoryview (a mapped file's weights) is stored as is: xDSL reads the data through
        # the buffer protocol, and copying it to `bytes` is what map_weights avoids.
        return DenseIntOrFPElementsAttr(TensorType(element, tensor.dims), BytesAttr(data))  # type: ignore[arg-type]

    def _constant(self, value: DenseIntOrFPElementsAttr, node_name: str = "") -> SSAValue:
        attributes: dict[str, Attribute] = {"value": value}
        if node_name:
            attributes[NODE_NAME_ATTR] = StringAttr(node_name)
        op = ConstantOp.create(result_types=[value.type], attributes=attributes)
        self.block.add_op(op)
        return op.results[0]

    def _constant_node_value(self, node: NodeProto, label: str) -> DenseIntOrFPElementsAttr:
        """The tensor of a Constant node, whichever `value*` attribute spells it."""
        if len(node.attribute) != 1:
            raise self.error(f"{label} (op 'Constant') must have exactly one value attribute")
        attr = node.attribute[0]
        spellings: dict[str, tuple[int, Sequence[float] | Sequence[int], list[int]]] = {
            "value_float": (TensorProto.FLOAT, [attr.f], []),
            "value_floats": (TensorProto.FLOAT, attr.floats, [len(attr.floats)]),
            "value_int": (TensorProto.INT64, [attr.i], []),
            "value_ints": (TensorProto.INT64, attr.ints, [len(attr.ints)]),
        }
        if attr.name == "value":
            return self._dense(attr.t, f"{label} (op 'Constant')")
        if attr.name in spellings:
            data_type, values, dims = spellings[attr.name]
            return self._dense(onnx.helper.make_tensor("", data_type, dims, values), label)
        raise self.error(f"{label} (op 'Constant') attribute '{shorten(attr.name)}' is not supported")

    # -- nodes -----------------------------------------------------------------------

    def _emit_node(self, index: int, node: NodeProto) -> None:
        label = node_label(node, index)
        if node.op_type == "Constant":
            self.values[node.output[0]] = self._constant(self._constant_node_value(node, label), node.name)
            return
        op_class = ONNX_OPS[node.op_type]
        properties, moved_inputs = self._properties(op_class, node, label)
        operands = self._operands(op_class, node, label, moved_inputs)
        result_types = self._result_types(op_class, node, label)
        attributes = {NODE_NAME_ATTR: StringAttr(node.name)} if node.name else {}
        op = op_class.create(
            operands=operands, result_types=result_types, properties=properties, attributes=attributes
        )
        try:
            op.verify()
        except VerifyException as err:
            raise self.error(f"{label} (op '{node.op_type}'): {_first_line(err)}") from None
        self.block.add_op(op)
        for name, result in zip(node.output, op.results):
            if name:
                self.values[name] = result

    def _operands(
        self, op_class: type[OnnxOp], node: NodeProto, label: str, moved: dict[int, SSAValue]
    ) -> list[SSAValue]:
        """Node inputs by position; absent optional ones are `onnx.NoValue`."""
        kinds = op_class.input_kinds()
        names = list(node.input)
        if kinds == ("variadic",):
            return [self.values[name] for name in names]
        if len(names) > len(kinds):
            raise self.error(f"{label} (op '{node.op_type}') has {len(names)} inputs; it takes at most {len(kinds)}")
        operands: list[SSAValue] = []
        for position, kind in enumerate(kinds):
            name = names[position] if position < len(names) else ""
            if position in moved:
                operands.append(moved[position])
            elif name:
                operands.append(self.values[name])
            elif kind == "optional":
                operands.append(self._no_value())
            else:
                raise self.error(f"{label} (op '{node.op_type}') is missing its required input #{position}")
        return operands

    def _no_value(self) -> SSAValue:
        if self.no_value is None:
            op = NoValueOp.create(result_types=[NoneType()], attributes={"value": UnitAttr()})
            self.block.add_op(op)
            self.no_value = op.results[0]
        return self.no_value

    def _result_types(self, op_class: type[OnnxOp], node: NodeProto, label: str) -> list[Attribute]:
        kinds = op_class.output_kinds()
        names = list(node.output)
        if kinds != ("variadic",) and len(names) > len(kinds):
            raise self.error(f"{label} (op '{node.op_type}') has {len(names)} outputs; it has at most {len(kinds)}")
        if kinds != ("variadic",):
            names += [""] * (len(kinds) - len(names))
        types: list[Attribute] = []
        for name in names:
            if not name:
                types.append(NoneType())
            elif name in self.types:
                types.append(self._value_type(self.types[name], f"output '{shorten(name)}' of {label}"))
            else:
                raise self.error(f"{label} (op '{node.op_type}'): shape inference gave no type for output '{shorten(name)}'")
        return types

    def _properties(
        self, op_class: type[OnnxOp], node: NodeProto, label: str
    ) -> tuple[dict[str, Attribute], dict[int, SSAValue]]:
        """ONNX attributes as properties, plus inputs that older opsets spelled as attributes.

        Before opset 18, ReduceMean/ReduceMax took `axes` as an attribute; the op takes
        it as an input, so such an attribute becomes an int64 constant operand.
        """
        definition = op_class.get_irdl_definition()
        operand_positions = {name: i for i, (name, _) in enumerate(definition.operands)}
        properties: dict[str, Attribute] = {}
        moved: dict[int, SSAValue] = {}
        for attr in node.attribute:
            described = f"{label} (op '{node.op_type}') attribute '{shorten(attr.name)}'"
            if attr.ref_attr_name:
                raise self.error(f"{described} refers to a function attribute, which is not supported")
            if attr.name in definition.properties:
                value = self._attribute(node.op_type, attr, described)
                constr = definition.properties[attr.name].constr
                if value is None or not constr.verifies(value):
                    kind = AttributeProto.AttributeType.Name(attr.type)
                    raise self.error(f"{described} has type {kind}; the op expects {_expected_kind(constr)}")
                properties[attr.name] = value
            elif attr.name in operand_positions and attr.type == AttributeProto.INTS:
                moved[operand_positions[attr.name]] = self._ints_constant(attr.ints)
            else:
                raise self.error(f"{described} is not supported")
        return properties, moved

    def _ints_constant(self, values: Iterable[int]) -> SSAValue:
        data = list(values)
        return self._constant(DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(data)]), data))

    def _attribute(self, op_type: str, attr: AttributeProto, described: str) -> Attribute | None:
        """The property spelling of an ONNX attribute; None for kinds no op property has."""
        if (op_type, attr.name) in TYPE_VALUED_ATTRIBUTES and attr.type == AttributeProto.INT:
            return self._element_type(attr.i, described)
        match attr.type:
            case AttributeProto.INT:
                return IntegerAttr(attr.i, SI64)
            case AttributeProto.INTS:
                return IntsAttr(tuple(attr.ints))
            case AttributeProto.FLOAT:
                return FloatAttr(attr.f, f32)
            case AttributeProto.STRING:
                return StringAttr(attr.s.decode("utf-8", errors="replace"))
            case AttributeProto.TENSOR:
                return self._dense(attr.t, described)
            case _:
                return None


def _expected_kind(constr: AttrConstraint) -> str:
    """The ONNX attribute type a property constraint stands for."""
    kinds = [(INT_CONSTR, "INT"), (INTS_CONSTR, "INTS"), (FLOAT_CONSTR, "FLOAT"), (DENSE_CONSTR, "TENSOR")]
    return next((kind for known, kind in kinds if known == constr), "STRING" if constr == STRING_CONSTR else "INT (a data type)")


def _large_constant_value(node: NodeProto) -> TensorProto | None:
    """The tensor of a Constant node big enough to be replaced for shape inference."""
    if node.op_type != "Constant" or node.domain not in DEFAULT_DOMAINS:
        return None
    for attr in node.attribute:
        if attr.name == "value" and tensor_nbytes(attr.t) >= STAND_IN_MIN_BYTES:
            return attr.t
    return None


def _without_shape(value: onnx.ValueInfoProto) -> onnx.ValueInfoProto:
    copy = onnx.ValueInfoProto()
    copy.CopyFrom(value)
    if copy.type.HasField("tensor_type"):
        copy.type.tensor_type.ClearField("shape")
    return copy


def _is_scalar(type_proto: TypeProto | None) -> bool:
    return type_proto is not None and type_proto.tensor_type.HasField("shape") and not type_proto.tensor_type.shape.dim


def _nonzero_of_vectors(model: ModelProto, scalars: set[str]) -> ModelProto:
    """A copy of `model` (for inference only) whose NonZero nodes read each scalar
    in `scalars` through a Reshape to [1]."""
    copy = ModelProto()
    copy.CopyFrom(model)
    del copy.graph.node[:]
    shape = f"{INFERENCE_PREFIX}shape_1"
    copy.graph.initializer.append(onnx.helper.make_tensor(shape, TensorProto.INT64, [1], [1]))
    for node in model.graph.node:
        if node.op_type == "NonZero" and node.input[0] in scalars:
            vector = f"{INFERENCE_PREFIX}{node.input[0]}"
            copy.graph.node.append(onnx.helper.make_node("Reshape", [node.input[0], shape], [vector]))
            copy.graph.node.append(onnx.helper.make_node("NonZero", [vector], list(node.output)))
        else:
            copy.graph.node.append(node)
    return copy


def _signature_attrs(name: str, type_proto: TypeProto) -> DictionaryAttr:
    """`{onnx.dim_params = "0:batch,1:seq", onnx.name = "X"}` for a graph input/output."""
    attrs: dict[str, Attribute] = {}
    if type_proto.HasField("tensor_type") and type_proto.tensor_type.HasField("shape"):
        symbols = {i: d.dim_param for i, d in enumerate(type_proto.tensor_type.shape.dim) if d.HasField("dim_param")}
        if symbols:
            attrs[DIM_PARAMS_ATTR] = format_dim_params(symbols)
    attrs[NAME_ATTR] = StringAttr(name)
    return DictionaryAttr(attrs)


def _first_line(err: Exception) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return shorten(lines[0], 2 * ECHO_LIMIT) if lines else type(err).__name__
