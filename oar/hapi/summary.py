"""`oar.summary` (the per-layer table Paddle prints) and `oar.flops` (Paddle's FLOP count rules per layer type),
both by running one forward pass with post-hooks on every leaf layer."""
import numbers
from collections import OrderedDict

import numpy as np

from ..core.state import no_grad


def _shape_of(x):
    if isinstance(x, (list, tuple)):
        return [_shape_of(v) for v in x]
    return list(x.shape) if hasattr(x, "shape") else []


def _is_shape(s):
    return isinstance(s, (list, tuple)) and all(isinstance(v, numbers.Number) or v is None for v in s)


def _normalize_sizes(input_size):
    """Paddle's rules: one shape or a list of shapes; a None/-1 batch dim becomes 1."""
    from ..graph.input_spec import InputSpec
    if isinstance(input_size, InputSpec):
        input_size = tuple(input_size.shape)
    if isinstance(input_size, int):
        input_size = (input_size,)
    if isinstance(input_size, list) and not _is_shape(input_size):
        input_size = [tuple(s.shape) if isinstance(s, InputSpec) else (s,) if isinstance(s, int) else s
                      for s in input_size]

    def check(shape):
        if _is_shape(shape):
            unknown = sum(1 for v in shape if v is None or v == -1)
            if unknown > 1:
                raise ValueError(f"summary: only the batch dim of input_size may be None or -1, got {shape}")
            out = tuple(1 if v is None or v == -1 else int(v) for v in shape)
            if any(v <= 0 for v in out):
                raise ValueError(f"summary: input_size dims must be > 0, got {shape}")
            return out
        return [check(s) for s in shape]
    return check(input_size)


def _build_inputs(sizes, dtypes):
    from ..ops.random import rand
    from ..ops.math import cast
    if _is_shape(sizes):
        return cast(rand(list(sizes)), dtypes if isinstance(dtypes, str) else (dtypes or ["float32"])[0])
    dtypes = dtypes if isinstance(dtypes, (list, tuple)) else [dtypes or "float32"] * len(sizes)
    return [_build_inputs(s, d) for s, d in zip(sizes, dtypes)]


def _leaf_layers(net):
    from ..nn.layer.container import LayerList, Sequential
    subs = list(net.sublayers())
    if not subs:
        return [net]
    return [m for m in subs if not isinstance(m, (Sequential, LayerList))]


def _run_with_hooks(net, inputs, hook):
    """Calls ``hook(layer, inputs, output)`` for every leaf layer during one eval-mode forward pass."""
    was_training = net.training
    handles = [m.register_forward_post_hook(hook) for m in _leaf_layers(net)]
    net.eval()
    try:
        with no_grad():
            net(*inputs) if isinstance(inputs, list) else net(inputs)
    finally:
        for h in handles:
            h.remove()
        if was_training:
            net.train()


def _summary_rows(net, inputs):
    rows, counts = OrderedDict(), {}

    def hook(layer, inp, out):
        cls = type(layer).__name__
        counts[cls] = counts.get(cls, 0) + 1
        params = trainable = 0
        for p in layer._parameters.values():
            if p is None:
                continue
            n = int(np.prod(p.shape))
            params += n
            trainable += 0 if p.stop_gradient else n
        rows[f"{cls}-{counts[cls]}"] = {"input_shape": _shape_of(inp), "output_shape": _shape_of(out),
                                        "nb_params": params, "trainable_params": trainable}
    _run_with_hooks(net, inputs, hook)
    return rows


def _table(rows, input_sizes):
    w = {"layer": 15, "in": 20, "out": 20, "params": 15}
    for name, r in rows.items():
        w["layer"] = max(w["layer"], len(name))
        w["in"] = max(w["in"], len(str(r["input_shape"])))
        w["out"] = max(w["out"], len(str(r["output_shape"])))
        w["params"] = max(w["params"], len(str(r["nb_params"])))
    width = max(75, sum(w.values()) + 5)
    line = "{:^{}} {:^{}} {:^{}} {:^{}}"
    out = ["-" * width, line.format("Layer (type)", w["layer"], "Input Shape", w["in"], "Output Shape", w["out"],
                                    "Param #", w["params"]), "=" * width]
    total = trainable = total_out = 0
    for name, r in rows.items():
        out.append(line.format(name, w["layer"], str(r["input_shape"]), w["in"], str(r["output_shape"]), w["out"],
                               f"{r['nb_params']:,}", w["params"]))
        total += r["nb_params"]
        trainable += r["trainable_params"]
        shapes = r["output_shape"] if r["output_shape"] and isinstance(r["output_shape"][0], list) \
            else [r["output_shape"]]
        total_out += sum(int(np.prod(s)) for s in shapes if s)

    def in_size(s):
        return abs(np.prod(s) * 4.0 / 1024 ** 2) if _is_shape(s) else sum(in_size(v) for v in s)
    mb_in, mb_out, mb_params = in_size(input_sizes), abs(2.0 * total_out * 4.0 / 1024 ** 2), total * 4.0 / 1024 ** 2
    out += ["=" * width, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
            f"Non-trainable params: {total - trainable:,}", "-" * width, f"Input size (MB): {mb_in:0.2f}",
            f"Forward/backward pass size (MB): {mb_out:0.2f}", f"Params size (MB): {mb_params:0.2f}",
            f"Estimated Total Size (MB): {mb_in + mb_out + mb_params:0.2f}", "-" * width]
    return "\n".join(out) + "\n", {"total_params": total, "trainable_params": trainable}


def summary(net, input_size=None, dtypes=None, input=None):
    """Prints each leaf layer's input/output shapes and parameter count (Paddle's table) and returns
    ``{'total_params': N, 'trainable_params': M}``.

    Args:
        net (Layer): the network.
        input_size (tuple | list[tuple] | InputSpec): input shape(s); a None/-1 batch dim becomes 1.
        dtypes (str | list[str]): input dtypes (default float32).
        input (Tensor | list[Tensor] | dict): a real input instead of `input_size`, passed to the net as one
            argument (``net(input)``, as Paddle).

    Example:
        >>> info = paddle.summary(paddle.vision.models.LeNet(), (1, 1, 28, 28))   # doctest: +ELLIPSIS
        ---------------------------------------------------------------------------
         Layer (type)       Input Shape          Output Shape         Param #
        ===========================================================================
           Conv2D-1       [[1, 1, 28, 28]]      [1, 6, 28, 28]          60
        ...
        Total params: 61,610
        ...
        >>> info
        {'total_params': 61610, 'trainable_params': 61610}
    """
    if input_size is None and input is None:
        raise ValueError("summary: give input_size (e.g. (1, 1, 28, 28)) or input (a Tensor or list of Tensors)")
    if input is not None:
        inputs = [input]  # Paddle calls net(input): a list or dict of tensors arrives as one argument
        input_size = _shape_of(input)
    else:
        input_size = _normalize_sizes(input_size)
        inputs = _build_inputs(input_size if not _is_shape(input_size) else input_size, dtypes)
        inputs = [inputs] if _is_shape(input_size) else inputs
    text, info = _table(_summary_rows(net, inputs), input_size)
    print(text)
    return info


# ---- flops: Paddle's per-layer rules (python/paddle/hapi/dynamic_flops.py) ------------------------------------
def _numel(x):
    return int(np.prod(x.shape))


def _conv_flops(m, x, y):
    w = m.weight
    kernel = int(np.prod(w.shape[2:]))
    bias = 1 if getattr(m, "bias", None) is not None else 0
    groups = getattr(m, "_groups", None) or getattr(m, "groups", 1) or 1
    return _numel(y) * (x.shape[1] / groups * kernel + bias)


def _flop_rules():
    """Paddle's table (``register_hooks`` in python/paddle/hapi/dynamic_flops.py), layer class -> count."""
    from .. import nn
    bn = lambda m, x, y: 2 * _numel(x) if not m.training else 0   # noqa: E731
    zero = lambda m, x, y: 0   # noqa: E731
    adaptive = lambda m, x, y: (int(np.prod(np.array(x.shape[2:]) // np.array(y.shape[2:]))) + 1) * _numel(y)  # noqa
    table = {"Conv1D": _conv_flops, "Conv2D": _conv_flops, "Conv3D": _conv_flops, "Conv1DTranspose": _conv_flops,
             "Conv2DTranspose": _conv_flops, "Conv3DTranspose": _conv_flops, "BatchNorm2D": bn, "BatchNorm": bn,
             "ReLU": zero, "ReLU6": zero, "LeakyReLU": lambda m, x, y: _numel(x),
             "Linear": lambda m, x, y: m.weight.shape[0] * _numel(y), "Dropout": zero,
             "AvgPool1D": lambda m, x, y: _numel(y), "AvgPool2D": lambda m, x, y: _numel(y),
             "AvgPool3D": lambda m, x, y: _numel(y), "AdaptiveAvgPool1D": adaptive, "AdaptiveAvgPool2D": adaptive,
             "AdaptiveAvgPool3D": adaptive}
    return {getattr(nn, k): v for k, v in table.items() if hasattr(nn, k)}


def _print_table(header, rows):
    """Paddle's flops table: centred cells between ``+----+`` rules."""
    cells = [[str(c) for c in r] for r in [header] + rows]
    widths = [max(len(r[i]) for r in cells) + 2 for i in range(len(header))]
    rule = "+" + "+".join("-" * w for w in widths) + "+"
    line = lambda r: "|" + "|".join(c.center(w) for c, w in zip(r, widths)) + "|"   # noqa: E731
    print("\n".join([rule, line(cells[0]), rule] + [line(r) for r in cells[1:]] + [rule]))


def flops(net, input_size, custom_ops=None, print_detail=False):
    """Counts the floating-point operations of one forward pass with Paddle's rules (conv: output elements x
    (in_channels/groups x kernel + bias); linear: in_features x output elements; norms 2 per element in eval;
    activations, dropout and max-pooling 0). Layers without a rule count 0, with a note.

    Args:
        net (Layer): the network. input_size (list[int]): the input shape, batch included.
        custom_ops (dict): ``{LayerClass: fn(layer, inputs, output)}``; as in Paddle, `fn` adds to
            ``layer.total_ops`` (or returns the count), ``inputs`` being the tuple of the layer's inputs.
        print_detail (bool): also print the per-layer table.

    Example:
        >>> n = paddle.flops(paddle.vision.models.LeNet(), [1, 1, 28, 28])   # doctest: +ELLIPSIS
        <class 'oar.nn.layer.conv.Conv2D'>'s flops has been counted
        ...
        Total Flops: 347560     Total Params: 61610
    """
    rules = _flop_rules()
    custom_ops = custom_ops or {}
    rows, seen = [], set()

    def hook(layer, inp, out):
        cls = type(layer)
        inputs = tuple(inp) if isinstance(inp, (list, tuple)) else (inp,)
        y = out[0] if isinstance(out, (list, tuple)) else out
        if cls not in seen:
            seen.add(cls)
            print(f"Customize Function has been applied to {cls}" if cls in custom_ops
                  else f"{cls}'s flops has been counted" if cls in rules
                  else f"Cannot find suitable count function for {cls}. Treat it as zero FLOPs.")
        if cls in custom_ops:
            object.__setattr__(layer, "total_ops", 0)
            got = custom_ops[cls](layer, inputs, y)
            n = int(got if got is not None else layer.__dict__.pop("total_ops", 0))
        else:
            n = int(abs(rules[cls](layer, inputs[0], y))) if cls in rules else 0
        params = sum(int(np.prod(p.shape)) for p in layer._parameters.values() if p is not None)
        rows.append([layer.full_name(), _shape_of(inputs[0]), _shape_of(y), params, n])

    sizes = _normalize_sizes(input_size)
    inputs = _build_inputs(sizes, None)
    _run_with_hooks(net, [inputs] if _is_shape(sizes) else inputs, hook)
    total = sum(r[4] for r in rows)
    params = sum(r[3] for r in rows)
    if print_detail:
        _print_table(["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"], rows)
    print(f"Total Flops: {total}     Total Params: {params}")
    return total
