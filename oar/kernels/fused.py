"""Kernels of the ops the fusion passes create (oar/passes/fuse_*.py): an activation applied in place on a fresh
result, linear and convolution epilogues (bias, residual, activation written over the matmul's / convolution's
own output), add + activation with its gradient, and the elementwise-chain runner (NumPy ufuncs with ``out=``
scratch buffers, kept by the plan that owns it)."""
import numpy as np

from . import conv as conv_kernels
from .conv_plan import ConvRunner
from .backend import array_module, errstate


def relu_(out):
    xp = array_module(out)
    return xp.maximum(out, 0, out=out)


def tanh_(out):
    xp = array_module(out)
    return xp.tanh(out, out=out)


def sigmoid_(out):
    """oar's float sigmoid (`elementwise.sigmoid`, ``1 / (1 + exp(-x))``, the same ufuncs in the same order), in
    place."""
    xp = array_module(out)
    xp.negative(out, out=out)
    with errstate(xp, over="ignore"):
        xp.exp(out, out=out)
    xp.add(out, 1, out=out)
    return xp.true_divide(1, out, out=out)


# ---- add + activation (fused_elemwise_add_act) -----------------------------------------------------------------

ADD_ACTS = {  # name -> (in-place forward on the sum, derivative from the output)
    "relu": (relu_, lambda out: out > 0),
    "tanh": (tanh_, lambda out: 1 - out * out),
    "sigmoid": (sigmoid_, lambda out: out * (1 - out)),
}


def add_act(x, y, act):
    xp = array_module(x, y, act)
    out = xp.add(x, y)
    if out.dtype.kind == "f":
        ADD_ACTS[act][0](out)
    return out


def add_act_grad(out, g, act):
    return (g * ADD_ACTS[act][1](out)).astype(g.dtype, copy=False)


# ---- linear: matmul [+ bias] [-> relu] (fused_linear) ----------------------------------------------------------

EPILOGUE_ACTS = {"relu": relu_}  # the activations the linear and conv epilogues apply in place


def linear(x, w, b=None, act=None, reuse_output=False, out=None):
    xp = array_module(x, w)
    out = xp.matmul(x, w, out=out)
    if b is not None:
        xp.add(out, b, out=out)
    if act is not None:
        EPILOGUE_ACTS[act](out)
    return out


def linear_runner(act, reuse_output):
    """The executor's kernel ``run(x, w, b=None) -> (out,)``, without keyword arguments (it is on every MLP's hot
    path); with `reuse_output` the result goes into one buffer per input shape, reused on every run."""
    if act is not None and act != "relu":
        return lambda *args: (linear(*args, act=act),)
    relu, buffers = act == "relu", ({} if reuse_output else None)

    def run(x, w, b=None):
        xp = array_module(x, w)
        if buffers is None:
            out = xp.matmul(x, w)
        else:
            out = buffers.get(x.shape)  # the pass fused only x, w of one dtype
            if out is None or out.dtype != x.dtype or type(out) is not type(x):
                out = buffers[x.shape] = xp.empty(x.shape[:-1] + w.shape[1:], x.dtype)
            xp.matmul(x, w, out=out)
        if b is not None:
            xp.add(out, b, out=out)
        if relu:
            xp.maximum(out, 0, out=out)
        return (out,)
    return run


# ---- conv2d + bias [+ residual] [-> relu] (fused_conv2d) -------------------------------------------------------

def conv_epilogue(out, bias, residual, act):
    xp = array_module(out, bias, residual, act)
    xp.add(out, bias.reshape(1, -1, 1, 1), out=out)
    if residual is not None:
        xp.add(out, residual, out=out)
    if act is not None:
        EPILOGUE_ACTS[act](out)
    return out


def conv2d(input, filter, bias, residual, pads, strides, dilations, groups, act):
    """The reference kernel (eager, constant folding): im2col convolution, then the epilogue."""
    out = conv_kernels.conv_forward(input, filter, strides, pads, dilations, groups)
    return conv_epilogue(out, bias, residual, act)


def conv2d_planned(runners, weight, x, filter, bias, residual, pads, strides, dilations, reuse_output, act):
    """One run of a planned fused conv: a `ConvRunner` per padding in `runners` (a plan's own dict, emptied when
    `filter` is not the array `weight[0]` it was planned for), then the epilogue. Device arrays take the reference
    kernel (the plans hold host buffers)."""
    if array_module(x, filter) is not np:
        return conv2d(x, filter, bias, residual, pads, strides, dilations, 1, act)
    if filter is not weight[0]:  # new weights (or the first run): plans are rebuilt
        runners.clear()
        weight[0] = filter
    key = tuple(map(tuple, pads))
    r = runners.get(key)
    if r is None:
        r = runners[key] = ConvRunner(filter, strides, pads, dilations, reuse_output)
    return conv_epilogue(r(x), bias, residual, act)


# ---- elementwise chains (fused_elementwise) ---------------------------------------------------------------------
# A step is (ufunc name, operands, slot): an operand is ("a", k) = argument k, ("t", j) = step j's value, or
# ("c", value) = a constant; `slot` names the scratch buffer the step writes (None: a fresh array).

def _ufunc_steps(steps, xp=np):
    return [(getattr(xp, name), [tuple(o) for o in operands], slot) for name, operands, slot in steps]


def _operands(operands, args, vals):
    return [args[o[1]] if o[0] == "a" else vals[o[1]] if o[0] == "t" else o[1] for o in operands]


def _first_run(steps, args, n_slots):
    """Runs without `out=` and returns (result, buffers): a slot gets a buffer only when every step writing it
    produced the same shape and dtype (so `out=` changes no value)."""
    xp = array_module(*args)
    vals = []
    for fn, operands, _ in steps:
        vals.append(fn(*_operands(operands, args, vals)))
    kinds = {}
    for (_, _, slot), v in zip(steps, vals):
        if isinstance(v, xp.ndarray):
            kinds.setdefault(slot, set()).add((v.shape, v.dtype))
        else:
            kinds.setdefault(slot, set()).add(None)
    bufs = [None] * n_slots
    for slot, ks in kinds.items():
        if len(ks) == 1 and None not in ks:
            shape, dtype = next(iter(ks))
            bufs[slot] = xp.empty(shape, dtype)
    return vals[-1], bufs


def elementwise_chain(*args, steps, n_slots, reuse_out=False):
    """The reference kernel: the chain's ufuncs, each on fresh arrays."""
    return _first_run(_ufunc_steps(steps, array_module(*args)), args, n_slots)[0]


def elementwise_chain_runner(steps, n_slots, reuse_out):
    """The executor's kernel ``run(*args) -> (out,)``: generated straight-line code with its own scratch buffers,
    reused across runs (the first run, or one with other input shapes, allocates; later runs call each ufunc
    with ``out=``)."""
    names, steps = steps, _ufunc_steps(steps)
    env = {"np": np}
    state = {}

    def slow(*args):
        out, bufs = _first_run(steps, args, n_slots)
        if "fast" not in state:  # the first run fixes the shapes the buffers are for
            state["fast"] = _generate(steps, args, bufs, reuse_out, env)
        return (out,)

    def run(*args):
        xp = array_module(*args)
        if xp is not np:  # device arrays: the chain's ufuncs of the device module, on fresh arrays
            return (_first_run(_ufunc_steps(names, xp), args, n_slots)[0],)
        fast = state.get("fast")
        return fast(*args) if fast is not None else slow(*args)
    env["slow"] = slow
    return run


def _generate(steps, args, bufs, reuse_out, env):
    """Python source for the steady state: a shape/dtype guard, then one ufunc call per step."""
    names = [f"a{k}" for k in range(len(args))]
    guard = " or ".join(f"{n}.shape != {tuple(a.shape)!r} or {n}.dtype != d{k}"
                        for k, (n, a) in enumerate(zip(names, args)))
    for k, a in enumerate(args):
        env[f"d{k}"] = a.dtype
    lines = [f"def fast({', '.join(names)}):", f"    if {guard}:", f"        return slow({', '.join(names)})"]
    last = len(steps) - 1
    for j, (fn, operands, slot) in enumerate(steps):
        env[f"f{j}"] = fn
        ops = []
        for o in operands:
            if o[0] == "a":
                ops.append(names[o[1]])
            elif o[0] == "t":
                ops.append(f"t{o[1]}")
            else:
                env[f"c{j}_{len(ops)}"] = o[1]
                ops.append(f"c{j}_{len(ops)}")
        b = bufs[slot] if slot is not None and (j < last or reuse_out) else None
        if b is not None:
            env[f"b{slot}"] = b
            ops.append(f"out=b{slot}")
        lines.append(f"    t{j} = f{j}({', '.join(ops)})")
    lines.append(f"    return (t{last},)")
    exec(compile("\n".join(lines) + "\n", "<oar fused_elementwise>", "exec"), env)
    return env["fast"]
