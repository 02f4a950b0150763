"""`oar.summary` (a table of layers, output shapes and parameter counts) and `oar.flops` (multiply-accumulate count
of a forward pass), both by running the network once on zeros with forward hooks on its leaf layers."""
import numpy as np

from .. import nn


def _inputs(input_size, dtypes, input):
    import oar
    if input is not None:
        return list(input) if isinstance(input, (list, tuple)) else [input]
    if input_size is None:
        raise ValueError("summary/flops need input_size (e.g. (1, 3, 224, 224)) or input")
    sizes = [input_size] if isinstance(input_size[0], (int, type(None))) else list(input_size)
    dtypes = dtypes if isinstance(dtypes, (list, tuple)) else [dtypes or "float32"] * len(sizes)
    return [oar.zeros([1 if d is None or d == -1 else int(d) for d in s], dt) for s, dt in zip(sizes, dtypes)]


def _leaves(net):
    return [(name, layer) for name, layer in net.named_sublayers(include_self=True) if not layer._sub_layers] or \
        [("", net)]


def _run(net, inputs, on_leaf):
    import oar
    hooks = [layer.register_forward_post_hook(lambda l, i, o, n=name: on_leaf(n, l, i, o)) for name, layer in
             _leaves(net)]
    was_training = net.training
    net.eval()
    try:
        with oar.no_grad():
            net(*inputs)
    finally:
        for h in hooks:
            h.remove()
        if was_training:
            net.train()


def _shape(o):
    if isinstance(o, (list, tuple)):
        return [_shape(v) for v in o]
    return list(o.shape) if hasattr(o, "shape") else []


def summary(net, input_size=None, dtypes=None, input=None):
    """Prints each leaf layer's type, input and output shapes and parameter count; returns the totals.

    Args:
        input_size: the input shape (a tuple) or a list of shapes, batch dim included (None/-1 means 1).
        dtypes: dtype(s) of the inputs (default float32).
        input: example tensor(s) instead of input_size.

    Example:
        >>> info = oar.summary(oar.nn.Sequential(oar.nn.Linear(4, 3), oar.nn.ReLU()), (2, 4))  # doctest: +ELLIPSIS
        ---...
        >>> info
        {'total_params': 15, 'trainable_params': 15}
    """
    rows, counts = [], {}

    def record(name, layer, inputs, out):
        kind = type(layer).__name__
        counts[kind] = counts.get(kind, 0) + 1
        n = sum(int(np.prod(p.shape)) for p in layer.parameters(include_sublayers=False))
        rows.append((f"{kind}-{counts[kind]}", str(_shape(list(inputs))), str(_shape(out)), n, out))

    inputs = _inputs(input_size, dtypes, input)
    _run(net, inputs, record)
    params = net.parameters()
    total = sum(int(np.prod(p.shape)) for p in params)
    trainable = sum(int(np.prod(p.shape)) for p in params if not p.stop_gradient)
    line = "-" * 79
    print(line)
    print(f"{'Layer (type)':>15} {'Input Shape':>20} {'Output Shape':>20} {'Param #':>12}")
    print("=" * 79)
    out_bytes = 0
    for name, ins, outs, n, out in rows:
        print(f"{name:>15} {ins:>20} {outs:>20} {n:>12,}")
        for o in (out if isinstance(out, (list, tuple)) else [out]):
            if hasattr(o, "shape"):
                out_bytes += int(np.prod(o.shape)) * o.element_size() if hasattr(o, "element_size") else 0
    print("=" * 79)
    print(f"Total params: {total:,}\nTrainable params: {trainable:,}\nNon-trainable params: {total - trainable:,}")
    print(line)
    in_mb = sum(int(np.prod(t.shape)) * t.element_size() for t in inputs) / 2 ** 20
    fb_mb, p_mb = 2 * out_bytes / 2 ** 20, sum(int(np.prod(p.shape)) * p.element_size() for p in params) / 2 ** 20
    print(f"Input size (MB): {in_mb:.2f}\nForward/backward pass size (MB): {fb_mb:.2f}\nParams size (MB): {p_mb:.2f}")
    print(f"Estimated Total Size (MB): {in_mb + fb_mb + p_mb:.2f}")
    print(line)
    return {"total_params": total, "trainable_params": trainable}


def _numel(t):
    return int(np.prod(t.shape))


def _conv_flops(layer, inputs, out):
    w = layer.weight
    per_out = int(np.prod(w.shape[1:])) + (1 if getattr(layer, "bias", None) is not None else 0)
    return _numel(out) * per_out


def _adaptive_avg_flops(layer, inputs, out):
    in_sp, out_sp = inputs[0].shape[2:], out.shape[2:]
    kernel = int(np.prod([max(i // max(o, 1), 1) for i, o in zip(in_sp, out_sp)]))
    return _numel(out) * (kernel + 1)


# Paddle's counting rules (paddle/hapi/dynamic_flops.py): multiply-accumulates of the dominant ops
_RULES = {
    nn.Conv1D: _conv_flops, nn.Conv2D: _conv_flops, nn.Conv3D: _conv_flops,
    nn.Conv1DTranspose: _conv_flops, nn.Conv2DTranspose: _conv_flops, nn.Conv3DTranspose: _conv_flops,
    nn.Linear: lambda layer, inputs, out: _numel(out) * layer.weight.shape[0],
    nn.BatchNorm1D: lambda layer, inputs, out: 2 * _numel(inputs[0]),
    nn.BatchNorm2D: lambda layer, inputs, out: 2 * _numel(inputs[0]),
    nn.BatchNorm3D: lambda layer, inputs, out: 2 * _numel(inputs[0]),
    nn.AvgPool1D: lambda layer, inputs, out: _numel(out), nn.AvgPool2D: lambda layer, inputs, out: _numel(out),
    nn.AvgPool3D: lambda layer, inputs, out: _numel(out),
    nn.AdaptiveAvgPool1D: _adaptive_avg_flops, nn.AdaptiveAvgPool2D: _adaptive_avg_flops,
    nn.AdaptiveAvgPool3D: _adaptive_avg_flops,
}


def flops(net, input_size, custom_ops=None, print_detail=False):
    """Floating-point operation count (multiply-accumulates) of one forward pass on an input of `input_size`, by
    Paddle's rules: convolutions and Linear count their MACs, batch norm 2 per element, average pooling one per
    output; activations, max pooling and dropout count 0.

    Args:
        custom_ops: {LayerClass: fn(layer, inputs, output) -> count} for layers of your own.
        print_detail: print the count of each layer.

    Example:
        >>> oar.flops(oar.nn.Linear(4, 3), [2, 4])
        24
    """
    rules = dict(_RULES)
    rules.update(custom_ops or {})
    per_layer = []

    def record(name, layer, inputs, out):
        rule = next((r for cls, r in rules.items() if type(layer) is cls), None)
        per_layer.append((name or type(layer).__name__, type(layer).__name__, int(rule(layer, inputs, out)) if rule
                          else 0))

    _run(net, _inputs(list(input_size), None, None), record)
    total = sum(n for *_, n in per_layer)
    if print_detail:
        for name, kind, n in per_layer:
            print(f"{name:<30} {kind:<20} {n:>14,}")
        print(f"Total Flops: {total:,}")
    return total
