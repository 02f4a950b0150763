"""Shared by the converter tests: `convert(src)` runs the conversion steps on source text; `check(fn, *args)`
runs `fn` eagerly and converted and compares the outputs, and the gradients of the float tensor inputs."""
import ast
import textwrap

import numpy as np

import oar as paddle
from oar.jit.transformers import STEPS
from oar.jit.transformers.base import Context, to_source


def convert(src, upto=None):
    tree = ast.parse(textwrap.dedent(src))
    ctx = Context("<test>", "f")
    for name, step in STEPS:
        tree = step(tree, ctx)
        if name == upto:
            break
    return to_source(tree), ctx


def T(v, dtype="float32"):
    return paddle.to_tensor(np.array(v, dtype))


def _arrays(v):
    if isinstance(v, dict):
        return {k: _arrays(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_arrays(x) for x in v] if isinstance(v, list) else tuple(_arrays(x) for x in v)
    return v.numpy() if hasattr(v, "numpy") else v


def assert_same(a, b, path="out"):
    """Same nesting, and the same numbers at the leaves (a Python number and a one-element tensor match)."""
    a, b = _arrays(a), _arrays(b)
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{path}: {a!r} vs {b!r}"
        for k in a:
            assert_same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{path}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    else:
        np.testing.assert_allclose(np.asarray(b, dtype="float64"), np.asarray(a, dtype="float64"), rtol=1e-5,
                                   atol=1e-6, err_msg=path)


def _inputs(inputs, grad):
    return [paddle.to_tensor(x.numpy(), stop_gradient=not (grad and x.dtype.name.startswith("float")))
            if hasattr(x, "numpy") else x for x in inputs]


def check(fn, *inputs, grad=True, ops=()):
    """`fn(*inputs)` eagerly and through to_static give the same values, and the same gradients of the float
    tensor inputs (through the sum of the float outputs); the program holds the op types `ops`. Returns the
    StaticFunction."""
    ein, sin = _inputs(inputs, grad), _inputs(inputs, grad)
    want = fn(*ein)
    sf = paddle.jit.to_static(fn)
    got = sf(*sin)
    assert_same(want, got)
    if grad and _backward(want):
        assert _backward(got)
        for a, b in zip(ein, sin):
            if getattr(a, "grad", None) is not None:
                np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-5, atol=1e-6)
    if ops:
        have = {op.type for b in sf.concrete_program.main_program.blocks for op in b.ops}
        assert set(ops) <= have, (ops, have)
    return sf


def _backward(out):
    leaves = [v for v in paddle.utils.flatten(out if isinstance(out, (list, tuple, dict)) else [out])
              if hasattr(v, "stop_gradient") and not v.stop_gradient and v.dtype.name.startswith("float")]
    if leaves:
        total = leaves[0].sum()
        for v in leaves[1:]:
            total = total + v.sum()
        total.backward()
    return bool(leaves)
