"""`oar.onnx.export`: a Layer (or function) converted with `oar.jit`, optimized as the predictor does, written
as a standard ONNX model.

Path: `to_static` -> the pruned inference program that `oar.jit.save` would write -> the inference passes
(constant folding, batch-norm folding, dead code elimination) -> one ONNX node group per op through each op's
`OpDef.onnx` lowering (written beside the op's definition) -> ``path + '.onnx'``.
"""
import os

import numpy as np

from ..ops.registry import REGISTRY
from ..passes.graph import values_scope
from .context import Context, onnx_dtype, user_line

OPSET = 13  # lowerings are written against opset 13; 11-12 by `Context`, later ones by onnx.version_converter
MIN_OPSET = 11
EXPORT_PASSES = ("constant_folding", "fold_batch_norm", "dead_code_elimination")
_CONFIGS = ("output_spec", "enable_onnx_checker", "verbose")


def _require_onnx():
    try:
        import onnx  # noqa: F401
    except ImportError:
        raise ImportError("oar.onnx.export needs the 'onnx' package: pip install 'oar-dl[onnx]' (or pip install "
                          "onnx onnxruntime)") from None
    return onnx


def export(layer, path, input_spec=None, opset_version=OPSET, **configs):
    """Exports a Layer (or function) to ``path + '.onnx'`` (Paddle's ``paddle.onnx.export``).

    The layer is converted with `oar.jit.to_static` in eval mode; the model's inputs are named after the
    `InputSpec` names and unknown dims (None / -1) become symbolic dims; parameters become initializers.
    `cond` becomes an ONNX If and `while` a Loop.

    Args:
        layer: an `oar.nn.Layer` or a function (plain or `to_static`), or the path prefix of a saved model:
            oar's own files or Paddle's (legacy ``.pdmodel`` or PIR ``.json``, with ``.pdiparams``), as
            paddle2onnx converts them.
        path: file prefix; ``path + '.onnx'`` is written (directories are created).
        input_spec: `InputSpec`s (or example Tensors) for the forward arguments; optional when `layer.forward`
            was decorated with `to_static(input_spec=...)`.
        opset_version: ONNX opset of the written model (11 or later; Paddle's default 9 is too old for the
            ops oar writes).
        configs: ``output_spec`` (which outputs to keep, as in `oar.jit.save`), ``enable_onnx_checker``
            (run `onnx.checker.check_model`, default True).

    Raises:
        NotImplementedError naming every op type without an ONNX lowering and the user line that created it.

    Example:
        >>> oar.onnx.export(net, 'model/net', input_spec=[InputSpec([None, 3, 32, 32], 'float32', 'image')])
    """
    bad = [k for k in configs if k not in _CONFIGS]
    if bad:
        raise ValueError(f"oar.onnx.export: unknown config(s) {bad}; accepted: {list(_CONFIGS)}")
    onnx = _require_onnx()
    path = os.fspath(path)
    if not path or os.path.basename(path) == "":
        raise ValueError(f"oar.onnx.export: path {path!r} must be a file prefix such as 'model/net'")
    program, scope, inputs, outputs = inference_program(layer, input_spec, configs.get("output_spec"))
    model = program_to_onnx(program, inputs, outputs, opset_version, scope)
    if configs.get("enable_onnx_checker", True):
        onnx.checker.check_model(model)
    file = path + ".onnx"
    d = os.path.dirname(file)
    if d:
        os.makedirs(d, exist_ok=True)
    onnx.save(model, file)
    return file


def inference_program(layer, input_spec=None, output_spec=None):
    """(program, scope, input specs, output specs) of `layer` as the predictor would run it: the inference
    program of `oar.jit.save` with the inference passes applied, and the `oar.static.Scope` of its values.
    `layer` may also be the path prefix of a saved model (oar's, or Paddle's own legacy or PIR files)."""
    from .. import passes
    from ..graph.scope import Scope
    if isinstance(layer, (str, os.PathLike)):
        from ..graph.budget import Budget
        from ..graph.model_files import file_names, load_files
        rec, weights = load_files(*file_names(os.fspath(layer)), Budget())
        scope = Scope(dict(weights))
        prog = passes.apply_passes(rec.infer_program, EXPORT_PASSES, keep=rec.output_names, scope=scope)
        return prog, scope, rec.inputs, rec.outputs
    from ..jit.save_load import _concrete, _methods, records_from_concrete
    from ..jit.traced import traced_concrete
    from ..nn.layer import Layer
    traced = traced_concrete(layer)
    if traced is not None:  # oar.jit.trace / TracedLayer: its traced program
        records, tensors, _ = records_from_concrete([("forward", traced[0])], traced[1], output_spec)
        return _optimized(records["forward"], tensors)
    was_training = isinstance(layer, Layer) and layer.training
    if was_training:
        layer.eval()
    try:
        name, sf, specs = _methods(layer, input_spec)[0]
        if name != "forward":
            raise ValueError(f"oar.onnx.export: {type(layer).__name__} needs input_spec for forward")
        entry = (name, _concrete(name, sf, specs))
        records, tensors, _ = records_from_concrete([entry], layer, output_spec)
    finally:
        if was_training:
            layer.train()
    return _optimized(records["forward"], tensors)


def _optimized(rec, tensors):
    from .. import passes
    from ..graph.scope import Scope
    scope = Scope({n: tensors[n]._data for n in rec.params})   # folding writes here, not into the layer
    prog = passes.apply_passes(rec.infer_program, EXPORT_PASSES, keep=rec.output_names, scope=scope)
    return prog, scope, rec.inputs, rec.outputs


def _missing_lowerings(program):
    """{op type: first op of that type} for ops without an ONNX lowering, sub-blocks included."""
    missing = {}
    for b in program.blocks:
        for op in b.ops:
            d = REGISTRY.get(op.type)
            if (d is None or d.onnx is None) and op.type not in missing:
                missing[op.type] = op
    return missing


def _why(op_type):
    """' (the reason)' an op type declares for having no lowering (`OpDef.onnx_reason`), else ''."""
    d = REGISTRY.get(op_type)
    return f" ({d.onnx_reason})" if d is not None and d.onnx_reason else ""


def _value_info(name, shape, dtype):
    from onnx import helper
    dims = [d if d >= 0 else f"{name}_dim{i}" for i, d in enumerate(shape)]
    return helper.make_tensor_value_info(name, onnx_dtype(dtype), dims)


def program_to_onnx(program, inputs, outputs, opset_version=OPSET, scope=None):
    """An ONNX ModelProto for `program` fed by `inputs` and fetching `outputs` (lists of {name, shape, dtype});
    the values `scope` (`global_scope()` when None) holds for its persistable variables become initializers."""
    _require_onnx()
    from onnx import helper, numpy_helper
    opset_version = int(opset_version)
    if opset_version < MIN_OPSET:
        raise ValueError(f"oar.onnx.export: opset_version {opset_version} is not supported (oar writes opset "
                         f"{MIN_OPSET} or later; 13 or later recommended)")
    missing = _missing_lowerings(program)
    if missing:
        lines = "\n".join(f"  {t}{_why(t)}{user_line(op)}" for t, op in missing.items())
        raise NotImplementedError(f"oar.onnx.export: {len(missing)} op type(s) have no ONNX lowering: "
                                  f"{sorted(missing)}\n{lines}")
    built = min(opset_version, OPSET)
    ctx = Context(program, built)
    gb = program.global_block()
    values = values_scope(scope)
    graph_inputs = []
    for spec in inputs:
        ctx.bind(spec["name"], ctx.fresh(spec["name"]))
        graph_inputs.append(_value_info(spec["name"], spec["shape"], spec["dtype"]))
    consts = [n for n, v in gb.vars.items() if v.persistable and n in values]
    for n in consts:
        ctx.bind(n, n)
        ctx.used.add(n)
        ctx.initializers.append(numpy_helper.from_array(np.array(values.array(n), order="C"), n))
    ctx.lower_ops(gb.ops)
    graph_outputs, taken = [], {i["name"] for i in inputs}
    for spec in outputs:
        src = ctx.name(spec["name"])
        if src != spec["name"] or src in consts or src in taken:
            src = ctx.node("Identity", [src], [ctx.fresh(spec["name"])])  # an output of its own
        taken.add(src)
        graph_outputs.append(_value_info(src, spec["shape"], spec["dtype"]))
    graph = helper.make_graph(ctx.scope.nodes, "oar_model", graph_inputs, graph_outputs, ctx.initializers)
    model = helper.make_model(graph, producer_name="oar", producer_version=_version(),
                              opset_imports=[helper.make_opsetid("", built)])
    if opset_version > built:
        from onnx import version_converter
        try:
            model = version_converter.convert_version(model, opset_version)
        except Exception as e:
            raise ValueError(f"oar.onnx.export: cannot write opset {opset_version} (the model is built at opset "
                             f"{OPSET}; the onnx version converter says: {e})") from None
    # the oldest IR version that carries the opset: readable by as many onnxruntime releases as possible
    model.ir_version = helper.find_min_ir_version_for(list(model.opset_import), ignore_unknown=True)
    return model


def _version():
    from ..core.info import VERSION as __version__
    return __version__


