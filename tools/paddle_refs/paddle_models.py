"""Writes the Paddle model files oar's tests load (tests/jit_save/paddle_models/): small models exported by
PaddlePaddle itself in both of its formats, with reference inputs and outputs.

Run once where paddlepaddle is installed (never a dependency of oar):

    python -m venv /tmp/pv && /tmp/pv/bin/pip install paddlepaddle==3.3.1
    /tmp/pv/bin/python tools/paddle_refs/paddle_models.py

It re-runs itself with ``FLAGS_enable_pir_api=0`` for the legacy (ProgramDesc) files and ``=1`` for PIR
(``.json``). Outputs: ``<format>/<model>.{pdmodel|json,pdiparams}`` and ``<model>.npz`` (``x``: the input,
``<format>_<i>``: Paddle's outputs for it, from the layer whose weights were saved)."""
import os
import subprocess
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "jit_save", "paddle_models")


def models(paddle):
    nn, F = paddle.nn, paddle.nn.functional

    class ConvNet(nn.Layer):
        """conv + batch norm + relu + pools + depthwise conv + hardswish + resize + linear + softmax."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2D(8)
            self.dw = nn.Conv2D(8, 8, 3, padding=1, groups=8, bias_attr=False)
            self.fc = nn.Linear(8 * 2 * 2 + 8, 6)

        def forward(self, x):
            y = F.relu(self.bn(self.conv(x)))
            y = F.max_pool2d(y, 2)
            y = F.hardswish(self.dw(y))
            g = F.adaptive_avg_pool2d(y, 1).flatten(1)
            y = F.avg_pool2d(F.interpolate(y, scale_factor=2, mode="bilinear"), 4)
            y = paddle.concat([y.flatten(1), g], axis=1)
            return F.softmax(self.fc(y))

    class Block(nn.Layer):
        """embedding + layer norm + self-attention + silu MLP, split/concat/slice/reduce and a max head."""

        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(20, 16)
            self.ln = nn.LayerNorm(16)
            self.qkv = nn.Linear(16, 48)
            self.mlp = nn.Linear(16, 16)
            self.head = nn.Linear(16, 5)

        def forward(self, ids):
            h = self.ln(self.emb(ids))
            q, k, v = paddle.split(self.qkv(h), 3, axis=-1)
            q = q.reshape([0, 0, 2, 8]).transpose([0, 2, 1, 3])
            k = k.reshape([0, 0, 2, 8]).transpose([0, 2, 1, 3])
            v = v.reshape([0, 0, 2, 8]).transpose([0, 2, 1, 3])
            a = F.softmax(paddle.scale(q @ k.transpose([0, 1, 3, 2]), 0.25), axis=-1)
            o = (a @ v).transpose([0, 2, 1, 3]).reshape([0, 0, 16])
            h = h + F.silu(self.mlp(o)) + F.dropout(o, 0.1, training=False)
            pooled = F.softsign(h.mean(axis=1)) + F.relu6(h[:, 0, :]) + F.leaky_relu(h[:, -1, :], 0.1)
            logits = paddle.clip(self.head(pooled), -3.0, 3.0)
            return logits, paddle.max(logits, axis=-1).unsqueeze(-1).astype("float64")

    class Branchy(nn.Layer):
        """A tensor-dependent `if` (PIR: an `if` op with two regions)."""

        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            y = self.fc(x)
            if y.mean() > 0:
                y = y * 2
            else:
                y = y - 1
            return y

    class Looper(nn.Layer):
        """A tensor-dependent `while` carrying a state, RNN-style (PIR: a `while` op with a body region)."""

        def __init__(self):
            super().__init__()
            self.cell = nn.Linear(4, 4)

        def forward(self, x):
            h = paddle.zeros_like(x)
            i = paddle.zeros([1], "int64")
            while i < 3:
                h = F.relu(self.cell(h)) + x
                i = i + 1
            return h

        def static_forward(self, x):  # the same loop written for a legacy static program
            i, h = paddle.static.nn.while_loop(lambda i, h: i < 3, lambda i, h: [i + 1, F.relu(self.cell(h)) + x],
                                               [paddle.full([1], 0, "int64"), paddle.zeros_like(x)])
            return h

    spec = paddle.static.InputSpec
    r = np.random.default_rng(0)
    return {
        "convnet": (ConvNet, [spec([None, 3, 8, 8], "float32", "x")],
                    r.standard_normal([2, 3, 8, 8]).astype("float32")),
        "block": (Block, [spec([None, 6], "int64", "ids")], r.integers(0, 20, [3, 6]).astype("int64")),
        "branchy": (Branchy, [spec([None, 4], "float32", "x")], r.standard_normal([2, 4]).astype("float32")),
        "looper": (Looper, [spec([None, 4], "float32", "x")], r.standard_normal([2, 4]).astype("float32")),
    }


def _save_static(paddle, net, spec, prefix):
    """The layer built in a legacy static program and saved with `save_inference_model`."""
    state = {k: v.numpy() for k, v in net.state_dict().items()}
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        xs = [paddle.static.data(s.name, s.shape, s.dtype) for s in spec]
        static_net = type(net)()
        static_net.eval()
        outs = getattr(static_net, "static_forward", static_net)(*xs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    static_net.set_state_dict(state)
    paddle.static.save_inference_model(prefix, xs, outs, exe, program=main)
    paddle.disable_static()


def export(fmt):
    import paddle
    paddle.seed(7)
    os.makedirs(os.path.join(OUT, fmt), exist_ok=True)
    for name, (cls, spec, x) in models(paddle).items():
        if fmt == "legacy" and name == "branchy":  # Paddle 3.3.1 cannot build `cond` in legacy mode
            continue
        net = cls()
        for p in net.parameters():  # batch-norm statistics away from their defaults, so a mix-up shows
            if p.name.endswith(("w_1", "w_2")) and "batch_norm" in p.name:
                p.set_value(paddle.rand(p.shape) + 0.5)
        net.eval()
        outs = net(paddle.to_tensor(x))
        outs = [o.numpy() for o in (outs if isinstance(outs, (list, tuple)) else [outs])]
        prefix = os.path.join(OUT, fmt, name)
        if fmt == "legacy":
            _save_static(paddle, net, spec, prefix)  # Paddle 3.3.1's to_static fails on some ops in legacy mode
        else:
            paddle.jit.save(paddle.jit.to_static(net, input_spec=spec, full_graph=True), prefix)
        ref = os.path.join(OUT, f"{name}.npz")
        data = dict(np.load(ref)) if os.path.exists(ref) else {}
        data["x"] = x
        for i, o in enumerate(outs):
            data[f"{fmt}_{i}"] = o
        if name == "branchy":  # the input that takes the other branch
            data["x_other"] = x - 10
            data[f"{fmt}_other"] = net(paddle.to_tensor(x - 10)).numpy()
        np.savez(ref, **data)
        print(fmt, name, [o.shape for o in outs])


if __name__ == "__main__":
    if len(sys.argv) > 1:
        export(sys.argv[1])
    else:
        for fmt, flag in (("legacy", "0"), ("pir", "1")):
            env = {**os.environ, "FLAGS_enable_pir_api": flag}
            subprocess.run([sys.executable, __file__, fmt], check=True, env=env)
