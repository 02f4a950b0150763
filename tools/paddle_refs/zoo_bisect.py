"""Bisects a zoo model's difference from Paddle layer by layer: runs the model (formula weights and inputs, as
tools/paddle_refs/zoo.py) under one framework, records every sublayer's first output through forward post-hooks, and
compares two such records, printing the first layers that differ.

    /work/paddle_venv/bin/python tools/paddle_refs/zoo_bisect.py run paddle MODEL /tmp/pd.npz [float64]
    python tools/paddle_refs/zoo_bisect.py run oar MODEL /tmp/oar.npz [float64]
    python tools/paddle_refs/zoo_bisect.py compare /tmp/pd.npz /tmp/oar.npz

With ``float64`` the model is cast (``.to(dtype="float64")``) and fed float64 inputs on both sides, so what float32
rounding explains vanishes and a kernel difference stays."""
import contextlib
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "zoo"), str(ROOT)]  # paddle_alias, and this checkout's oar
import zoo as TOOL  # noqa: E402  (tools/paddle_refs/zoo.py)


def record(framework, model, out, dtype="float32"):
    if framework == "oar":
        from paddle_alias import paddle_alias
        ctx = paddle_alias()
    else:
        ctx = contextlib.nullcontext()
    with ctx:
        models = TOOL.zoo()
        import paddle
    build, specs = models[model]
    net = build()
    params = dict(net.named_parameters())
    state = net.state_dict()
    values = TOOL.FORMULAS.weights({k: (list(v.shape), str(v.dtype).replace("paddle.", ""))
                                    for k, v in state.items() if TOOL.FORMULAS.is_set(k, params)})
    net.set_state_dict({k: paddle.to_tensor(v) for k, v in values.items()})
    net.eval()
    if dtype != "float32":
        net.to(dtype=dtype)
    seen = {}

    def hook(name):
        def fn(layer, inputs, output):
            first = output[0] if isinstance(output, (tuple, list)) else output
            if hasattr(first, "numpy") and name not in seen:
                seen[name] = first.numpy().astype(np.float64)
        return fn

    for name, layer in net.named_sublayers():
        layer.register_forward_post_hook(hook(name))
    arrays = [TOOL.FORMULAS.make_input(s, k) for k, s in enumerate(specs)]
    arrays = [a.astype(dtype) if a.dtype == np.float32 else a for a in arrays]
    outs = net(*[paddle.to_tensor(a) for a in arrays])
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    for j, o in enumerate(outs):
        seen[f"<out{j}>"] = o.numpy()
    np.savez(out, **seen)


def compare(a, b, show=12):
    a, b = np.load(a), np.load(b)
    shown = 0
    for k in a.files:
        x, y = a[k].astype(np.float64), b[k].astype(np.float64)
        if x.shape != y.shape:
            print(f"{k}: shapes {x.shape} {y.shape}")
            continue
        diff = float(np.abs(x - y).max()) if x.size else 0.0
        scale = float(np.abs(x).max()) if x.size else 0.0
        if diff > 1e-5 * max(scale, 1e-30) and shown < show:
            print(f"{k}: max |diff| {diff:.3g}, max |value| {scale:.3g}")
            shown += 1
    print("last:", [(k, float(np.abs(a[k].astype(np.float64) - b[k]).max())) for k in a.files if k.startswith("<")])


if __name__ == "__main__":
    if sys.argv[1] == "run":
        record(*sys.argv[2:])
    else:
        compare(*sys.argv[2:])
