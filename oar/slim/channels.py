"""Channel dependencies of a model, read from its traced program: which parameters must lose the same channels
when a convolution loses filters.

The model is traced once (``to_static`` with a fixed input shape, eval mode). Every ``conv2d`` with ``groups=1``
opens a *channel space*: the channels of its output (axis 1, NCHW). Walking the ops in order, a space flows through
the ops that keep channels where they are (bias add, batch norm, activations, pooling, dropout) and every
parameter on the way joins it (conv bias, batch norm's four vectors). It ends at the ops that read channels:

- a ``conv2d`` (``groups=1``): its filter loses the same input channels (axis 1);
- a depthwise ``conv2d`` (``groups`` = channels): its filter loses the same filters (axis 0), its bias too, and
  the space flows on through its output (the layer's ``groups`` shrinks with it);
- ``flatten`` (from axis 1) then ``matmul`` (a Linear): the Linear loses the H*W rows of each channel;
- ``add`` of two spaces (a residual connection): the two become one space (pruned with one mask).

Any other op reading a space's channels (``concat``, ``reshape``, ``transpose``, a reduction over channels, a
grouped conv, a model output) *blocks* the space: pruning it raises an error naming that op and the source line
that created it. A space is pruned through its *masters*: the filters of the convs that open it.

Example:
    >>> from oar.slim.channels import channel_spaces
    >>> net = oar.nn.Sequential(oar.nn.Conv2D(1, 4, 3), oar.nn.BatchNorm2D(4), oar.nn.ReLU(), oar.nn.Conv2D(4, 2, 3))
    >>> spaces = channel_spaces(net, [1, 1, 8, 8])
    >>> [(m.param == net[3].weight.name, m.axis) for m in spaces[net[0].weight.name].members][-1]
    (True, 1)
    >>> len(spaces[net[0].weight.name].members)      # conv weight and bias, batch norm's 4, the next conv's input
    7
"""
from typing import NamedTuple

CHANNEL_KEEPING = {"relu", "relu6", "leaky_relu", "sigmoid", "tanh", "gelu", "silu", "swish", "hardswish",
                   "hardsigmoid", "elu", "mish", "softplus", "dropout", "scale", "cast", "assign", "max_pool2d",
                   "avg_pool2d", "pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d"}
BN_SLOTS = ("scale", "bias", "mean", "variance")


class Member(NamedTuple):
    """A parameter that loses channels with a space: along `axis`, `repeat` consecutive entries per channel."""
    param: str
    axis: int
    repeat: int = 1


class Space:
    """One channel space: its members, the convs (filters) that open it, what blocks it."""

    def __init__(self, master, channels):
        self.masters, self.members, self.blocked, self.channels = [master], [], None, channels
        self.depthwise = []  # filters of depthwise convs whose `groups` follows the space

    def __repr__(self):
        return f"Space(masters={self.masters}, members={len(self.members)}, blocked={self.blocked!r})"


class _UnionFind:
    def __init__(self):
        self.parent = {}

    def find(self, k):
        while self.parent.get(k, k) != k:
            k = self.parent[k]
        return k

    def union(self, a, b):
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[b] = a
        return a


def trace_program(model, input_shape):
    """(program, {var name: parameter Tensor}) of `model.forward` traced for one input of `input_shape` in eval
    mode (the mode is restored)."""
    from ..jit import to_static
    from ..graph.input_spec import InputSpec
    was_training = model.training
    model.eval()
    try:
        spec = InputSpec(list(input_shape), "float32", "x")
        cp = to_static(model.forward, input_spec=[spec]).get_concrete_program(spec)
    finally:
        if was_training:
            model.train()
    return cp.main_program, dict(cp.scope.vars), [v.name for v in cp.outputs]


def _where(op):
    loc = op.loc
    return f"op '{op.type}' at {loc[0]}:{loc[1]} ({loc[2].strip()})" if loc else f"op '{op.type}'"


def channel_spaces(model, input_shape):
    """{master filter name: Space} of `model` traced at `input_shape` (see the module doc); masters of one space
    share the Space object."""
    program, params, outputs = trace_program(model, input_shape)
    gb = program.global_block()
    uf, spaces, masters = _UnionFind(), {}, []
    chan, flat, param_view = {}, {}, {}  # var -> space key; flattened var -> (space key, H*W); reshape -> param

    def space(var):
        return spaces[uf.find(chan[var])]

    def block(var, op):
        s = space(var)
        s.blocked = s.blocked or _where(op)

    for op in gb.ops:
        ins = {k: v[0] for k, v in op.inputs.items() if v}
        outs = op.output_names()
        read = [n for v in op.inputs.values() for n in v if n in chan]
        if op.type == "reshape" and ins.get("x") in params:
            param_view[outs[0]] = ins["x"]
        elif op.type == "conv2d":
            w = ins["filter"]
            c_out, c_in_g = params[w].shape[0], params[w].shape[1]
            groups = op.attrs.get("groups", 1)
            x = ins["input"]
            if groups == 1:
                if x in chan:
                    space(x).members.append(Member(w, 1))
                spaces[w] = Space(w, c_out)
                spaces[w].members.append(Member(w, 0))
                masters.append(w)
                chan[outs[0]] = w
            elif x in chan and c_in_g == 1 and c_out == groups:  # depthwise, one filter per channel
                s = space(x)
                s.members.append(Member(w, 0))
                s.depthwise.append(w)
                chan[outs[0]] = chan[x]
            elif x in chan:
                block(x, op)
        elif op.type == "add" and read:
            x, y = ins["x"], ins["y"]
            if x in chan and y in chan:  # a residual connection: one space
                ra, rb = uf.find(chan[x]), uf.find(chan[y])
                if ra != rb:
                    a, b = spaces[ra], spaces.pop(rb)
                    a.members += b.members
                    a.masters += b.masters
                    a.depthwise += b.depthwise
                    a.blocked = a.blocked or b.blocked
                    uf.parent[rb] = ra
                chan[outs[0]] = ra
            else:
                c, other = (x, y) if x in chan else (y, x)
                if other in param_view:
                    space(c).members.append(Member(param_view[other], 0))
                    chan[outs[0]] = chan[c]
                else:
                    block(c, op)
        elif op.type == "batch_norm" and ins["x"] in chan:
            s = space(ins["x"])
            s.members += [Member(ins[k], 0) for k in BN_SLOTS if ins.get(k) in params]
            chan[outs[0]] = chan[ins["x"]]
        elif op.type in CHANNEL_KEEPING and read and read[0] == ins.get("x"):
            chan[outs[0]] = chan[ins["x"]]
        elif op.type == "flatten" and ins["x"] in chan and op.attrs.get("start_axis") == 1 and \
                op.attrs.get("stop_axis") in (-1, len(gb.vars[ins["x"]].shape) - 1):
            shape = gb.vars[ins["x"]].shape
            hw = 1
            for d in shape[2:]:
                hw *= d
            flat[outs[0]] = (chan[ins["x"]], hw)
        elif op.type == "matmul" and ins.get("x") in flat and ins.get("y") in params and \
                not op.attrs.get("transpose_y") and not op.attrs.get("transpose_x"):
            key, hw = flat[ins["x"]]
            spaces[uf.find(key)].members.append(Member(ins["y"], 0, hw))
        else:
            for n in read:
                block(n, op)
            for n in (v for vs in op.inputs.values() for v in vs if v in flat):
                s = spaces[uf.find(flat[n][0])]
                s.blocked = s.blocked or _where(op)
    for n in outputs:
        if n in chan:
            space(n).blocked = space(n).blocked or f"model output '{n}' (its channels are the model's result)"
    return {w: spaces[uf.find(w)] for w in masters}
