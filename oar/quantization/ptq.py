"""Post-training int8 quantization (PaddleSlim's ``PostTrainingQuantization``): calibrate activation ranges on a
data loader, quantize weights per channel, insert quantize/dequantize (QDQ) ops into the inference program, save.

The program is first optimized (constant folding, batch-norm folding, conv + bias and linear + bias fusion, dead
code), so every quantized op is a ``fused_conv2d`` / ``fused_linear`` with constant weight W and bias b. For each:

    x -> quantize_linear(s_x) -> dequantize_linear -> op(., DQ(W_int8, s_w per channel), DQ(b_int32, s_x s_w))
      -> quantize_linear(s_y) -> dequantize_linear -> (the op's readers: residual adds, activations, ...)

This is ONNX's QDQ form: ONNX Runtime turns each ``DQ -> Conv -> Q`` group into an int8 convolution (QLinearConv)
and gets its speed from it; the native predictor folds the weight dequantization into float constants once and
runs the activations' fake quantization, so both compute the int8 model (up to rounding of the accumulation).
Activations are uint8 (the fast pair for ONNX Runtime's x86 kernels: uint8 activations, int8 weights): [-T, T]
with zero point 128, or [0, T] with zero point 0 when calibration never saw a negative value (relu outputs);
weights are symmetric int8 per output channel.

Example (runnable in `PostTrainingQuantization`'s docstring):
    >>> ptq = PostTrainingQuantization(model_dir='model/net', data_loader=loader, algo='KL')  # doctest: +SKIP
    >>> program = ptq.quantize()                                                            # doctest: +SKIP
    >>> ptq.save_quantized_model('model/net_int8')                                          # doctest: +SKIP
"""
import numpy as np

from .calibration import ALGOS, make_observer, weight_scales

QUANTIZABLE = {"fused_conv2d": ("input", "filter", 0), "fused_linear": ("x", "w", 1)}  # act slot, weight slot, axis
PREPARE = ("constant_folding", "fold_batch_norm", "dead_code_elimination")


def prepare(program, keep, scope):
    """The float program in the form quantization works on: folded, conv/linear fused with their biases only
    (weights read from, folded ones written to, `scope`)."""
    from .. import passes
    from ..passes.fuse_conv import fuse_conv_bias_act
    from ..passes.fuse_linear import fuse_linear
    p = passes.apply_passes(program, PREPARE, keep=keep, scope=scope)
    p = fuse_conv_bias_act(p, keep=keep, epilogue=False, scope=scope)
    p = fuse_linear(p, keep=keep, activation=False, scope=scope)
    return passes.dead_code_elimination(p, keep=keep)


# Paddle's `quantizable_op_type` names -> the fused op of `prepare`'s program they become
PADDLE_OP_TYPES = {"conv2d": "fused_conv2d", "depthwise_conv2d": "fused_conv2d", "mul": "fused_linear",
                   "matmul": "fused_linear", "matmul_v2": "fused_linear"}


def quantizable_ops(program, scope, op_types=None):
    """The ops `insert_qdq` quantizes: fused conv / linear ops whose weight and bias `scope` holds, no epilogue
    (only those of `op_types`, oar op names, when given)."""
    from ..passes.graph import bound_value
    out = []
    for op in program.global_block().ops:
        spec = QUANTIZABLE.get(op.type)
        if spec is None or op.attrs.get("act") or op.inputs.get("residual") or \
                (op_types is not None and op.type not in op_types):
            continue
        bias = op.inputs.get("bias") or op.inputs.get("b")
        w = bound_value(program, op.inputs[spec[1]][0], scope)
        if w is None or w.dtype != np.float32 or not bias or bound_value(program, bias[0], scope) is None:
            continue
        out.append(op)
    return out


def activation_params(threshold, nonnegative):
    """(scale, uint8 zero point) of an activation with range [-T, T], or [0, T] when it is never negative (then all
    256 levels cover [0, T], and ONNX Runtime can drop a Relu in front of the quantize op). Activations are uint8
    and weights int8: the pair (U8S8) that ONNX Runtime's x86 int8 kernels take directly."""
    t = max(float(threshold), 1e-8)
    return (t / 255.0, 0) if nonnegative else (t / 127.0, 128)


class _QDQBuilder:
    """Appends constants, QDQ ops and the ops they feed to a new op list of program `p` (see `insert_qdq`)."""

    def __init__(self, p, act_params, scope, weight_steps=None):
        from ..ir import Operator
        self.p, self.gb, self.act_params, self.Operator = p, p.global_block(), act_params, Operator
        self.scope, self.weight_steps = scope, weight_steps or {}
        self.ops = []
        self.dequantized = {}  # float var -> the var of its QDQ'd value
        self.source = {}       # and back

    def const(self, base, value):
        name = self.p.unique_name(base)
        self.gb.create_var(name, list(value.shape), value.dtype.name, persistable=True, stop_gradient=True)
        self.scope.vars[name] = value
        return name

    def op(self, type_, ins, out, shape, dtype, attrs, loc):
        name = self.p.unique_name(out)
        self.gb.create_var(name, list(shape), dtype)
        self.ops.append(self.Operator(self.gb, type_, ins, {"out": [name]}, attrs, loc))
        return name

    def dequantize(self, q, scale, zero, axis, shape, loc):
        return self.op("dequantize_linear", {"x": [q], "scale": [scale], "zero_point": [zero]}, "dequantized",
                       shape, "float32", {"quant_axis": axis}, loc)

    def qdq(self, name, loc):
        """The QDQ'd version of activation `name` (made once, shared by every reader)."""
        if name not in self.dequantized:
            v = self.gb.vars[name]
            scale, zero = self.act_params[name]
            s = self.const(name + ".scale", np.array(scale, np.float32))
            z = self.const(name + ".zero", np.array(zero, np.uint8))
            q = self.op("quantize_linear", {"x": [name], "scale": [s], "zero_point": [z]}, "quantized", v.shape,
                        "uint8", {"quant_axis": -1}, loc)
            self.dequantized[name] = d = self.dequantize(q, s, z, -1, v.shape, loc)
            self.source[d] = name
        return self.dequantized[name]

    def weight_and_bias(self, o, w_slot, axis, s_x, per_channel):
        """Replaces the op's float weight by DQ(int8) (scales along `axis`: the given step of `weight_steps`, else
        the abs max) and its bias by DQ(int32, s_x * s_w)."""
        from ..passes.graph import bound_value
        w_name = o.inputs[w_slot][0]
        b_slot = "bias" if "bias" in o.inputs else "b"
        b_name = o.inputs[b_slot][0]
        w, b = bound_value(self.p, w_name, self.scope), bound_value(self.p, b_name, self.scope).reshape(-1)
        given = self.weight_steps.get(w_name)
        s_w = weight_scales(w, axis if per_channel else None) if given is None else given
        s_w = np.broadcast_to(s_w, (w.shape[axis],)).astype(np.float32)
        # a dead channel's tiny weight scale must still leave its bias representable in int32
        s_w = np.maximum(s_w, np.abs(b) / (s_x * 2.0**30)).astype(np.float32)
        w_q = np.clip(np.rint(w / _along(s_w, w.ndim, axis)), -127, 127).astype(np.int8)
        s_b = (s_x * s_w).astype(np.float32)
        b_q = np.clip(np.rint(b.astype(np.float64) / s_b), -2**31 + 1, 2**31 - 1).astype(np.int32)
        wq, ws = self.const(w_name + ".int8", w_q), self.const(w_name + ".scale", s_w)
        wz = self.const(w_name + ".zero", np.zeros(w.shape[axis], np.int8))
        o.inputs[w_slot] = [self.dequantize(wq, ws, wz, axis, w.shape, o.loc)]
        bq, bs = self.const(b_name + ".int32", b_q), self.const(b_name + ".scale", s_b)
        bz = self.const(b_name + ".zero", np.zeros(b.shape, np.int32))
        o.inputs[b_slot] = [self.dequantize(bq, bs, bz, 0, b.shape, o.loc)]


def insert_qdq(program, act_params, keep=(), weight_quantize_type="channel_wise_abs_max", scope=None,
               op_types=None, weight_steps=None):
    """A copy of `program` (from `prepare`) with QDQ ops around every quantizable op whose input has parameters
    in `act_params` (var name -> (scale, uint8 zero point)). The output is quantized too when it has parameters,
    is not kept, and is not read by a single relu only (then the relu's output is quantized where it is used, so
    ONNX Runtime sees ``Conv -> Relu -> QuantizeLinear`` and folds the Relu into the int8 convolution). The float
    weights are read from `scope` (`global_scope()` when None); the int8 ones and the scales are written to it.
    `weight_steps` ({weight var: step}) fixes the steps of some weights (quantization-aware training's)."""
    from ..passes import dead_code_elimination
    from ..passes.graph import values_scope
    scope = values_scope(scope)
    p = program.clone()
    keep = set(keep)
    targets = {id(op) for op in quantizable_ops(p, scope, op_types)}
    readers = {}
    for o in p.global_block().ops:
        for n in o.input_names():
            readers.setdefault(n, []).append(o)
    b, quantized = _QDQBuilder(p, act_params, scope, weight_steps), 0
    for o in list(p.global_block().ops):
        o.inputs = {k: [b.dequantized.get(n, n) for n in v] for k, v in o.inputs.items()}
        x_slot, w_slot, axis = QUANTIZABLE.get(o.type, (None, None, None))
        x = o.inputs[x_slot][0] if id(o) in targets else None
        src = b.source.get(x, x)
        if x is None or src not in act_params:
            b.ops.append(o)
            continue
        o.inputs[x_slot] = [b.qdq(src, o.loc)]
        b.weight_and_bias(o, w_slot, axis, float(act_params[src][0]), weight_quantize_type == "channel_wise_abs_max")
        b.ops.append(o)
        quantized += 1
        y = o.output_names()[0]
        if y in act_params and y not in keep and [r.type for r in readers.get(y, [])] != ["relu"]:
            b.qdq(y, o.loc)
    p.global_block().ops = b.ops
    p._bump()
    p.provenance.append(f"quantization: {quantized} ops quantized to int8 (QDQ)")
    return dead_code_elimination(p, keep=keep)


def _along(v, ndim, axis):
    if np.ndim(v) == 0:
        return v
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


# Paddle options oar does not implement, with the values that ask for nothing more than what oar does
_ONLY = {"round_type": ("round",), "learning_rate": (0.001,), "is_full_quantize": (False,),
         "bias_correction": (False,), "activation_bits": (8,), "weight_bits": (8,),
         "activation_quantize_type": ("range_abs_max", "moving_average_abs_max"), "freeze_model": (True,),
         "skip_tensor_list": (None,), "same_scale_tensor_list": (None,), "scale_dict": (None,),
         "return_graph": (False,), "deploy_backend": (None,)}


def _refuse_unsupported(scope, **options):
    from ..graph.scope import global_scope
    if scope is not None and scope is not global_scope():
        raise ValueError("PostTrainingQuantization: scope= other than the global scope is not supported: oar reads "
                         "the weights from the model files; the quantized values are in `.scope` after quantize()")
    bad = {k: v for k, v in options.items() if v not in _ONLY[k]}
    if bad:
        given = ", ".join(f"{k}={v!r}" for k, v in bad.items())
        allowed = ", ".join(f"{k} in {list(_ONLY[k])}" for k in bad)
        raise NotImplementedError(f"PostTrainingQuantization: {given} not supported: oar quantizes weights and "
                                  f"activations to 8 bits with rounding and writes frozen QDQ models ({allowed})")


def _batched(sample_generator, batch_size):
    """Paddle's `sample_generator` (a callable yielding one sample, a tuple/list of per-input arrays or an array)
    grouped into batches of `batch_size` stacked along a new first dim."""
    def batches():
        samples = sample_generator() if callable(sample_generator) else sample_generator
        group = []
        for s in samples:
            group.append(s if isinstance(s, (list, tuple)) else (s,))
            if len(group) == batch_size:
                yield [np.stack([np.asarray(x[k]) for x in group]) for k in range(len(group[0]))]
                group = []
        if group:
            yield [np.stack([np.asarray(x[k]) for x in group]) for k in range(len(group[0]))]
    return batches


class PostTrainingQuantization:
    """Post-training int8 quantization of a saved model (PaddleSlim / ``paddle.static.quantization`` API).

    Args:
        model_dir: the saved model: a path prefix (``model/net``), a ``.pdmodel`` file or a directory.
        model_filename, params_filename: explicit file names inside `model_dir` (optional).
        data_loader: an iterable of calibration batches: feed dicts, lists/tuples whose first entries are the
            model's inputs (labels after them are ignored), or arrays (one-input models).
        batch_nums: how many batches to use (all when None).
        algo: activation calibration, one of ``abs_max``, ``avg``, ``moving_average``, ``hist``, ``KL``.
        weight_quantize_type: ``channel_wise_abs_max`` (per output channel) or ``abs_max`` (per tensor).
        hist_percent, bins, moving_rate: parameters of ``hist`` / ``KL`` / ``moving_average``.
        sample_generator, batch_size: single samples, grouped into batches of `batch_size`.
        quantizable_op_type: Paddle op names (``conv2d``, ``depthwise_conv2d``, ``mul``, ``matmul``,
            ``matmul_v2``) to quantize; empty: all of them.

    Paddle's other options are accepted at the values that ask for what oar does (8-bit weights and
    activations, rounding, frozen models) and raise NotImplementedError otherwise. `executor` is not needed;
    oar always writes the QDQ form (``onnx_format=True``'s; the numbers of ``False``'s fake-quant form are the
    same), always folds batch norms (``optimize_model``), and `is_use_cache_file`/`cache_dir` are deprecated
    in Paddle and unused there too.

    Example:
        >>> from oar.static import InputSpec
        >>> oar.jit.save(oar.nn.Linear(4, 3), 'model/net', input_spec=[InputSpec([None, 4], 'float32', 'x')])
        >>> batches = [np.random.rand(8, 4).astype('float32') for _ in range(2)]
        >>> ptq = oar.quantization.PostTrainingQuantization(model_dir="model/net", data_loader=batches, algo="abs_max")
        >>> [op.type for op in ptq.quantize().global_block().ops]
        ['quantize_linear', 'dequantize_linear', 'dequantize_linear', 'dequantize_linear', 'fused_linear']
        >>> ptq.save_quantized_model('model/net_int8')      # model/net_int8.pdmodel / .pdiparams
        'model/net_int8.pdmodel'
    """

    def __init__(self, executor=None, model_dir=None, scope=None, model_filename=None, params_filename=None,
                 batch_generator=None, sample_generator=None, data_loader=None, batch_size=10, batch_nums=None,
                 algo="KL", hist_percent=0.99999, quantizable_op_type=(), round_type="round", learning_rate=0.001,
                 is_full_quantize=False, bias_correction=False, activation_bits=8, weight_bits=8,
                 activation_quantize_type="range_abs_max", weight_quantize_type="channel_wise_abs_max",
                 onnx_format=False, freeze_model=True, optimize_model=False, is_use_cache_file=False,
                 skip_tensor_list=None, same_scale_tensor_list=None, cache_dir=None, scale_dict=None,
                 return_graph=False, deploy_backend=None, *, bins=2048, moving_rate=0.9):
        _refuse_unsupported(scope=scope, round_type=round_type, learning_rate=learning_rate,
                            is_full_quantize=is_full_quantize, bias_correction=bias_correction,
                            activation_bits=activation_bits, weight_bits=weight_bits,
                            activation_quantize_type=activation_quantize_type, freeze_model=freeze_model,
                            skip_tensor_list=skip_tensor_list, same_scale_tensor_list=same_scale_tensor_list,
                            scale_dict=scale_dict, return_graph=return_graph, deploy_backend=deploy_backend)
        if algo not in ALGOS:
            raise ValueError(f"PostTrainingQuantization: algo must be one of {list(ALGOS)}, got {algo!r}")
        if weight_quantize_type not in ("channel_wise_abs_max", "abs_max"):
            raise ValueError("weight_quantize_type must be 'channel_wise_abs_max' or 'abs_max', got "
                             f"{weight_quantize_type!r}")
        unknown = [t for t in quantizable_op_type if t not in PADDLE_OP_TYPES]
        if unknown:
            raise ValueError(f"PostTrainingQuantization: quantizable_op_type {unknown} not supported; oar quantizes "
                             f"{sorted(PADDLE_OP_TYPES)}")
        self.op_types = {PADDLE_OP_TYPES[t] for t in quantizable_op_type} or None
        if data_loader is not None:
            loader = data_loader
        elif batch_generator is not None:
            loader = batch_generator
        elif sample_generator is not None:
            loader = _batched(sample_generator, batch_size)
        else:
            loader = None
        if loader is None or model_dir is None:
            raise ValueError("PostTrainingQuantization needs model_dir and a data_loader (calibration batches)")
        self.model_dir, self.model_filename, self.params_filename = model_dir, model_filename, params_filename
        self.loader = loader() if callable(loader) else loader
        self.batch_nums, self.algo, self.weight_quantize_type = batch_nums, algo, weight_quantize_type
        self.observer_args = {"bins": bins, "hist_percent": hist_percent, "moving_rate": moving_rate}
        self.program = None
        self.scope = None   # the quantized program's values (an oar.static.Scope), set by quantize()

    def _files(self):
        import os
        from ..inference import Config
        d = os.fspath(self.model_dir)
        if self.model_filename:
            return Config(os.path.join(d, self.model_filename),
                          os.path.join(d, self.params_filename or self.model_filename[:-8] + ".pdiparams"))
        return Config(d)

    def _batches(self, names):
        batches = []
        for k, b in enumerate(self.loader):
            if self.batch_nums is not None and k >= self.batch_nums:
                break
            if isinstance(b, dict):
                vals = [b[n] for n in names]
            elif isinstance(b, (list, tuple)):
                vals = list(b[:len(names)])
            else:
                vals = [b]
            batches.append([np.asarray(getattr(v, "_data", v)) for v in vals])
        if not batches:
            raise ValueError("PostTrainingQuantization: the data loader gave no calibration batches")
        return batches

    def quantize(self):
        """Calibrates and returns the quantized inference Program (its weights in `scope`)."""
        from ..graph.model_files import load_files
        from ..graph.executor import Compiled
        from ..graph.scope import Scope
        config = self._files()
        rec, weights = load_files(config.prog_file(), config.params_file())
        prog = rec.infer_program
        self.scope = scope = Scope({n: a for n, a in weights.items() if n in prog.global_block().vars})
        self.record = rec
        fetch = rec.output_names
        prog = prepare(prog, fetch, scope)
        ops = quantizable_ops(prog, scope, self.op_types)
        watch = list(dict.fromkeys(n for o in ops for n in (o.inputs[QUANTIZABLE[o.type][0]][0],
                                                           o.output_names()[0])))
        observers = {n: make_observer(self.algo, **self.observer_args) for n in watch}
        batches = self._batches(rec.input_names)
        plan = Compiled(prog, rec.input_names, watch)
        nonnegative = dict.fromkeys(watch, True)
        passes = max(getattr(o, "passes", 1) for o in observers.values()) if observers else 0
        for k in range(passes):
            if k == 1:
                for obs in observers.values():
                    obs.start_second_pass()
            for vals in batches:
                for n, a in zip(watch, plan.run_values(vals, scope)):
                    observers[n].observe(a)
                    nonnegative[n] = nonnegative[n] and (a.size == 0 or float(a.min()) >= 0)
        params = {n: activation_params(obs.threshold(), nonnegative[n]) for n, obs in observers.items()}
        self.program = insert_qdq(prog, params, keep=fetch, weight_quantize_type=self.weight_quantize_type,
                                  scope=scope, op_types=self.op_types)
        self.activation_params = params
        return self.program

    def save_quantized_model(self, save_model_path, model_filename=None, params_filename=None):
        """Writes the quantized model as ``save_model_path + '.pdmodel' / '.pdiparams'`` (or the given names inside
        the `save_model_path` directory); returns the .pdmodel path."""
        if self.program is None:
            self.quantize()
        return write_model(save_model_path, self.program, self.record, self.scope, model_filename, params_filename)


def write_model(save_model_path, program, record, scope, model_filename=None, params_filename=None):
    """Writes `program` (an inference program; its persistable values in `scope`) with the feeds, fetches and
    output structure of `record` (the `ModelRecord` it came from) as a model the predictor loads; returns the
    .pdmodel path."""
    import os
    from ..graph import model_files as F
    path = os.fspath(save_model_path)
    if model_filename:
        pdmodel = os.path.join(path, model_filename)
        pdiparams = os.path.join(path, params_filename or model_filename[:-8] + ".pdiparams")
    else:
        pdmodel, pdiparams = F.file_names(path)
    p, rec = program, record
    gb = p.global_block()
    params = sorted(n for n in scope.vars if n in gb.vars and gb.vars[n].persistable)
    save_id = F.new_save_id()
    out = F.ModelRecord(p, p, rec.inputs, rec.outputs, rec.structure, params, rec.method, False, save_id)
    arrays = {n: scope.array(n) for n in params}
    info = {n: {"structured_name": None, "shape": list(a.shape), "dtype": a.dtype.name, "stop_gradient": True,
                "trainable": False, "is_parameter": False} for n, a in arrays.items()}
    F.write_files({pdmodel: F.encode_record(out), pdiparams: F.encode_weights(arrays, save_id),
                   pdiparams + ".info": F.encode_info(info, save_id)})
    return pdmodel
