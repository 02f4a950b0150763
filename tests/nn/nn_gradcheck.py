"""Finite-difference gradient checks in float64 for functions of tensors and for layers."""
import numpy as np

import oar


def numeric_grad(f, arrays, i, eps=1e-6):
    base = [a.copy() for a in arrays]
    g = np.zeros_like(base[i])
    it = np.nditer(base[i], flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        orig = base[i][idx]
        base[i][idx] = orig + eps
        fp = f(*base)
        base[i][idx] = orig - eps
        fm = f(*base)
        base[i][idx] = orig
        g[idx] = (fp - fm) / (2 * eps)
    return g


def check_grad(fn, arrays, wrt=None, rtol=1e-5, atol=1e-6, seed=0):
    """Compares analytic gradients of ``sum(fn(*tensors) * w)`` (w random) with central differences."""
    arrays = [np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in arrays]
    wrt = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"] if wrt is None else wrt
    out0 = fn(*[oar.to_tensor(a) for a in arrays])
    w = np.random.default_rng(seed).normal(size=out0.shape)

    def scalar(*arrs):
        return float((fn(*[oar.to_tensor(a) for a in arrs]).numpy() * w).sum())
    ts = [oar.to_tensor(a, stop_gradient=(i not in wrt)) for i, a in enumerate(arrays)]
    out = fn(*ts)
    (out * oar.to_tensor(w)).sum().backward()
    for i in wrt:
        num = numeric_grad(scalar, arrays, i)
        ana = ts[i].grad.numpy() if ts[i].grad is not None else np.zeros_like(num)
        np.testing.assert_allclose(ana, num, rtol=rtol, atol=atol, err_msg=f"gradient of input {i}")


def check_layer_grad(layer, inputs, rtol=1e-5, atol=1e-6, seed=0, check_inputs=True):
    """Checks gradients of a float64 layer's parameters (and float inputs) by central differences."""
    layer.to(dtype="float64")
    inputs = [np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in inputs]
    params = [p for p in layer.parameters() if not p.stop_gradient]
    out0 = layer(*[oar.to_tensor(a) for a in inputs])
    out0 = out0[0] if isinstance(out0, (tuple, list)) else out0
    w = np.random.default_rng(seed).normal(size=out0.shape)

    def run(ts):
        o = layer(*ts)
        o = o[0] if isinstance(o, (tuple, list)) else o
        return o

    ts = [oar.to_tensor(a, stop_gradient=not (check_inputs and a.dtype.kind == "f")) for a in inputs]
    layer.clear_gradients()
    (run(ts) * oar.to_tensor(w)).sum().backward()
    eps = 1e-6
    for p in params:
        data = p.numpy()  # a host copy, perturbed and written back (the parameter may be on a device)
        num = np.zeros_like(data)
        it = np.nditer(data, flags=["multi_index"])
        for _ in it:
            idx = it.multi_index
            orig = data[idx]
            data[idx] = orig + eps
            p.set_value(data)
            fp = float((run([oar.to_tensor(a) for a in inputs]).numpy() * w).sum())
            data[idx] = orig - eps
            p.set_value(data)
            fm = float((run([oar.to_tensor(a) for a in inputs]).numpy() * w).sum())
            data[idx] = orig
            num[idx] = (fp - fm) / (2 * eps)
        p.set_value(data)
        ana = p.grad.numpy() if p.grad is not None else np.zeros_like(num)
        np.testing.assert_allclose(ana, num, rtol=rtol, atol=atol, err_msg=f"gradient of parameter {p.name}")
    for i, (t, a) in enumerate(zip(ts, inputs)):
        if t.stop_gradient:
            continue
        num = numeric_grad(lambda *arrs: float((run([oar.to_tensor(x) for x in arrs]).numpy() * w).sum()),
                           inputs, i)
        np.testing.assert_allclose(t.grad.numpy(), num, rtol=rtol, atol=atol, err_msg=f"gradient of input {i}")
