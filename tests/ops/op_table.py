"""ONE table of op descriptions, reused by every op-level test (eager forward/gradient/infer_meta here, static ==
eager in tests/static).

Each row (`Case`) has:
    name   -- unique id, "op[variant]"
    fn     -- ``fn(*tensors)`` using only the public API (Tensor or tuple/list of Tensors out)
    ref    -- ``ref(*arrays)`` the NumPy reference (array or tuple of arrays)
    inputs -- list of NumPy arrays (float64 for differentiable inputs)
    diff   -- indices of the inputs to gradient-check (float64, finite differences)
    rtol / atol -- forward tolerances
Rows for random or data-dependent-shape ops say so in `tags` ("random", "dynamic_shape").
"""
import math

import numpy as np

import oar

R = np.random.default_rng(1234)


def randn(*s):
    return R.standard_normal(s)


def pos(*s):
    return R.uniform(0.5, 2.0, s)


def unit(*s):
    return R.uniform(-0.9, 0.9, s)


def ints(hi, *s):
    return R.integers(0, hi, s).astype(np.int64)


def distinct(*s):
    """Values with well separated entries (no ties: safe for sort/max gradients)."""
    n = int(np.prod(s)) if s else 1
    return (R.permutation(n).astype(np.float64) * 0.37 + R.uniform(0, 0.1, n)).reshape(s)


def generators(seed, *names):
    """`randn`/`pos`/`unit`/`distinct` drawing from their own stream, for the rows of another file
    (OAR_OP_TABLE_SEED=n shifts the seeds: a longer run over other inputs)."""
    import os
    rng = np.random.default_rng(seed + int(os.environ.get("OAR_OP_TABLE_SEED", "0")))
    made = {"randn": lambda *s: rng.standard_normal(s), "pos": lambda *s: rng.uniform(0.5, 2.0, s),
            "unit": lambda *s: rng.uniform(-0.9, 0.9, s),
            "distinct": lambda *s: (rng.permutation(int(np.prod(s)) if s else 1).astype(np.float64) * 0.37
                                    + rng.uniform(0, 0.1, int(np.prod(s)) if s else 1)).reshape(s)}
    return tuple(made[n] for n in names) if len(names) > 1 else made[names[0]]


# ---- reference helpers ----------------------------------------------------------------------------------------------

def _set(x, index, v):
    y = x * 1.0  # setitem on a non-leaf keeps the gradient path to x
    y[index] = v
    return y


def _set_np(x, index, v):
    y = x.copy()
    y[index] = v
    return y


def _np_at(x, i, v):
    y = x.copy()
    np.add.at(y, i, v)
    return y


def _np_nd_add(x, i, u):
    y = x.copy()
    np.add.at(y, tuple(np.moveaxis(i, -1, 0)), u)
    return y


def _np_scatter(x, i, u, overwrite):
    y = x.copy()
    if overwrite:
        y[i] = u
    else:
        y[i] = 0
        np.add.at(y, i, u)
    return y


def _np_put(x, i, v, axis, reduce):
    y = x.copy()
    if reduce == "assign":
        np.put_along_axis(y, i, v, axis)
    else:
        grids = list(np.ogrid[tuple(np.s_[:n] for n in i.shape)])
        grids[axis] = i
        np.add.at(y, tuple(grids), np.broadcast_to(v, i.shape))
    return y



class Case:
    __slots__ = ("name", "fn", "ref", "inputs", "diff", "rtol", "atol", "tags")

    def __init__(self, name, fn, ref, inputs, diff, rtol, atol, tags):
        self.name, self.fn, self.ref, self.inputs, self.diff = name, fn, ref, inputs, diff
        self.rtol, self.atol, self.tags = rtol, atol, tags

    def tensors(self, requires_grad=False):
        return [oar.to_tensor(a, stop_gradient=not (requires_grad and i in self.diff))
                for i, a in enumerate(self.inputs)]

    def __repr__(self):
        return self.name


CASES = []


def add(name, fn, ref, *variants, diff=None, grad=True, rtol=1e-7, atol=1e-9, tags=()):
    """Adds one row per input variant; `diff` defaults to every float input."""
    for k, inputs in enumerate(variants):
        inputs = [np.asarray(a) for a in inputs]
        d = tuple(i for i, a in enumerate(inputs) if a.dtype.kind == "f") if diff is None else tuple(diff)
        outs = ref(*[a.copy() for a in inputs])
        if not any(np.asarray(o).dtype.kind == "f" for o in (outs if isinstance(outs, (tuple, list)) else [outs])):
            d = ()  # integer/bool results: nothing to differentiate
        CASES.append(Case(f"{name}[{k}]", fn, ref, inputs, d if grad else (), rtol, atol, tuple(tags)))


# ---- elementwise ---------------------------------------------------------------------------------------------
BIN = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), ()), ((2, 3), ())]


def binary(name, fn, ref, gen=randn, gen_y=None, **kw):
    add(name, fn, ref, *[(gen(*a), (gen_y or gen)(*b)) for a, b in BIN], **kw)


binary("add", oar.add, np.add)
binary("subtract", oar.subtract, np.subtract)
binary("multiply", oar.multiply, np.multiply)
binary("divide", oar.divide, np.divide, gen_y=pos)
binary("floor_divide", oar.floor_divide, np.floor_divide, gen_y=pos, grad=False)
binary("remainder", oar.remainder, np.mod, gen=pos, gen_y=pos, diff=(0,))
binary("pow", oar.pow, np.power, gen=pos)
binary("maximum", oar.maximum, np.maximum)
binary("minimum", oar.minimum, np.minimum)
binary("fmax", oar.fmax, np.fmax)
binary("fmin", oar.fmin, np.fmin)
add("fmax_nan", oar.fmax, np.fmax, (np.array([1.0, np.nan, np.nan, -2.0]), np.array([np.nan, 3.0, np.nan, 5.0])),
    grad=False)
binary("atan2", oar.atan2, np.arctan2)
binary("operator_add", lambda x, y: x + y, np.add)
binary("operator_rsub_scalar", lambda x, y: 2.0 - x * y, lambda x, y: 2.0 - x * y)
binary("operator_matmul_like_mul", lambda x, y: x * 3 / (y * y + 1), lambda x, y: x * 3 / (y * y + 1))
add("where", lambda c, x, y: oar.where(c, x, y), np.where,
    (randn(3, 4) > 0, randn(3, 4), randn(3, 4)), (randn(3, 1) > 0, randn(1, 4), randn(4)),
    (np.array(True), randn(2, 3), randn()), (randn(2, 3) > 0, randn(), randn()), diff=(1, 2))

UN = [(3, 4), (2, 3, 4), ()]


def unary(name, fn, ref, gen=randn, **kw):
    add(name, fn, ref, *[(gen(*s),) for s in UN], **kw)


_erf = np.vectorize(math.erf)
unary("neg", oar.neg, np.negative)
unary("exp", oar.exp, np.exp)
unary("expm1", oar.expm1, np.expm1)
unary("log", oar.log, np.log, gen=pos)
unary("log2", oar.log2, np.log2, gen=pos)
unary("log10", oar.log10, np.log10, gen=pos)
unary("log1p", oar.log1p, np.log1p, gen=pos)
unary("sqrt", oar.sqrt, np.sqrt, gen=pos)
unary("rsqrt", oar.rsqrt, lambda x: 1 / np.sqrt(x), gen=pos)
unary("square", oar.square, np.square)
unary("abs", oar.abs, np.abs)
unary("sign", oar.sign, np.sign)
unary("sin", oar.sin, np.sin)
unary("cos", oar.cos, np.cos)
unary("tan", oar.tan, np.tan, gen=unit)
unary("asin", oar.asin, np.arcsin, gen=unit)
unary("acos", oar.acos, np.arccos, gen=unit)
unary("atan", oar.atan, np.arctan)
unary("sinh", oar.sinh, np.sinh)
unary("cosh", oar.cosh, np.cosh)
unary("tanh", oar.tanh, np.tanh)
unary("sigmoid", oar.sigmoid, lambda x: 1 / (1 + np.exp(-x)))
unary("erf", oar.erf, lambda x: _erf(x).astype(x.dtype))
add("erf_float32", oar.erf, lambda x: _erf(x).astype(np.float32), (randn(50).astype(np.float32),), grad=False,
    rtol=1e-6, atol=3e-7)
unary("floor", oar.floor, np.floor)
unary("ceil", oar.ceil, np.ceil)
unary("round", oar.round, np.round)
unary("trunc", oar.trunc, np.trunc)
unary("reciprocal", oar.reciprocal, np.reciprocal, gen=pos)
unary("isnan", oar.isnan, np.isnan)
unary("isinf", oar.isinf, np.isinf)
unary("isfinite", oar.isfinite, np.isfinite)
unary("scale", lambda x: oar.scale(x, 2.0, 1.0), lambda x: x * 2 + 1)
unary("clip", lambda x: oar.clip(x, -0.5, 0.7), lambda x: np.clip(x, -0.5, 0.7))
unary("clip_min_only", lambda x: oar.clip(x, min=0.1), lambda x: np.clip(x, 0.1, None))
unary("cast", lambda x: oar.cast(x, "float32"), lambda x: x.astype(np.float32), rtol=1e-6, grad=False)
unary("cast_int", lambda x: (x * 3).astype("int32"), lambda x: (x * 3).astype(np.int32), grad=False)
add("nan_to_num", lambda x: oar.nan_to_num(x, nan=1.0, posinf=9.0),
    lambda x: np.nan_to_num(x, nan=1.0, posinf=9.0), (np.array([1.5, np.nan, np.inf, -np.inf, -2.0]),), grad=False)
add("nan_to_num_grad", oar.nan_to_num, np.nan_to_num, (randn(3, 4),))

# ---- comparisons and logic ------------------------------------------------------------------------------------
for _n, _r in [("equal", np.equal), ("not_equal", np.not_equal), ("less_than", np.less),
               ("less_equal", np.less_equal), ("greater_than", np.greater), ("greater_equal", np.greater_equal)]:
    add(_n, getattr(oar, _n), _r, *[(ints(3, *a).astype(np.float64), ints(3, *b).astype(np.float64))
                                    for a, b in BIN])
for _n, _r in [("logical_and", np.logical_and), ("logical_or", np.logical_or), ("logical_xor", np.logical_xor)]:
    add(_n, getattr(oar, _n), _r, *[(randn(*a) > 0, randn(*b) > 0) for a, b in BIN])
for _n, _r in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor)]:
    add(_n, getattr(oar, _n), _r, *[(ints(16, *a), ints(16, *b)) for a, b in BIN])
add("logical_not", oar.logical_not, np.logical_not, (randn(3, 4) > 0,))
add("bitwise_not", oar.bitwise_not, np.invert, (ints(9, 3, 4),))
add("isclose", oar.isclose, np.isclose, (randn(3, 4), randn(3, 4)), grad=False)
add("allclose", lambda x, y: oar.allclose(x, x + y * 1e-9), lambda x, y: np.array(np.allclose(x, x + y * 1e-9)),
    (randn(3, 4), randn(3, 4)), grad=False)
add("all", lambda x: oar.all(x, axis=1), lambda x: np.all(x, axis=1), (randn(3, 4) > -1,))
add("any", lambda x: oar.any(x), lambda x: np.array(np.any(x)), (randn(3, 4) > 1,))

# ---- creation (no tensor inputs, or a `like` input) ------------------------------------------------------------
add("zeros", lambda: oar.zeros([2, 3]), lambda: np.zeros((2, 3), np.float32), ())
add("ones_int", lambda: oar.ones([3], dtype="int32"), lambda: np.ones(3, np.int32), ())
add("full", lambda: oar.full([2, 2], 7), lambda: np.full((2, 2), 7, np.float32), ())  # Paddle 2.x: float32
add("full_int", lambda: oar.full([2, 2], 7, "int64"), lambda: np.full((2, 2), 7, np.int64), ())
add("full_bool", lambda: oar.full([3], True, "bool"), lambda: np.full(3, True), ())
add("full_float", lambda: oar.full([2], 1.5, "float64"), lambda: np.full(2, 1.5), ())
add("empty", lambda: oar.empty([0, 3]), lambda: np.zeros((0, 3), np.float32), ())
add("arange", lambda: oar.arange(5), lambda: np.arange(5), ())
add("arange_float", lambda: oar.arange(0.0, 1.0, 0.25), lambda: np.arange(0, 1, 0.25, dtype=np.float32), ())
add("linspace", lambda: oar.linspace(0, 1, 5), lambda: np.linspace(0, 1, 5, dtype=np.float32), ())
add("eye", lambda: oar.eye(2, 3), lambda: np.eye(2, 3, dtype=np.float32), ())
add("zeros_like", oar.zeros_like, np.zeros_like, (randn(2, 3),), grad=False)
add("ones_like", lambda x: oar.ones_like(x, dtype="int64"), lambda x: np.ones(x.shape, np.int64), (randn(2, 3),))
add("full_like", lambda x: oar.full_like(x, 4.0), lambda x: np.full_like(x, 4.0), (randn(2, 3),), grad=False)
add("empty_like", oar.empty_like, np.zeros_like, (randn(3),), grad=False)

# ---- reductions -------------------------------------------------------------------------------------------------
RED = [((3, 4), None, False), ((3, 4), 1, False), ((2, 3, 4), [0, 2], True), ((2, 3, 4), -1, True), ((), None, False)]


def reduction(name, fn, ref, gen=randn, **kw):
    for shape, axis, keep in RED:
        ax = tuple(axis) if isinstance(axis, list) else axis
        add(name, (lambda a, k: lambda x: fn(x, axis=a, keepdim=k))(axis, keep),
            (lambda a, k: lambda x: np.asarray(ref(x, axis=a, keepdims=k)))(ax, keep), (gen(*shape),), **kw)


reduction("sum", oar.sum, np.sum)
reduction("mean", oar.mean, np.mean)
reduction("max", oar.max, np.max, gen=distinct)
reduction("min", oar.min, np.min, gen=distinct)
reduction("prod", oar.prod, np.prod, gen=pos)
reduction("logsumexp", oar.logsumexp, lambda x, axis, keepdims: np.log(np.sum(np.exp(x), axis=axis,
                                                                              keepdims=keepdims)))
add("std", lambda x: oar.std(x, axis=1), lambda x: np.std(x, axis=1, ddof=1), (randn(3, 4),))
add("var", lambda x: oar.var(x, unbiased=False, keepdim=True), lambda x: np.var(x, keepdims=True).reshape(1, 1),
    (randn(3, 4),))
add("norm_fro", lambda x: oar.norm(x), lambda x: np.array(np.linalg.norm(x)), (randn(3, 4),))
add("norm_1", lambda x: oar.norm(x, p=1, axis=1), lambda x: np.abs(x).sum(1), (randn(3, 4),))
add("norm_3", lambda x: oar.norm(x, p=3, axis=0), lambda x: (np.abs(x) ** 3).sum(0) ** (1 / 3), (randn(3, 4),))
add("norm_inf", lambda x: oar.norm(x, p=float("inf")), lambda x: np.array(np.abs(x).max()), (distinct(3, 4),))
add("cumsum", lambda x: oar.cumsum(x, axis=1), lambda x: np.cumsum(x, axis=1), (randn(3, 4),))
add("cumsum_flat", lambda x: oar.cumsum(x), lambda x: np.cumsum(x), (randn(3, 4),))
add("cumsum_0d", lambda x: oar.cumsum(x, axis=0), lambda x: x.copy(), (randn(),))
add("cumsum_0d_flat", oar.cumsum, lambda x: x.reshape(1), (randn(),))
add("cumprod_0d", lambda x: oar.cumprod(x, dim=-1), lambda x: x.copy(), (pos(),))
add("matmul_broadcast_batch", oar.matmul, np.matmul, (randn(2, 1, 3, 4), randn(1, 5, 4, 2)))
add("cumprod", lambda x: oar.cumprod(x, dim=0), lambda x: np.cumprod(x, axis=0), (pos(3, 4),))
for _n, _r in [("argmax", np.argmax), ("argmin", np.argmin)]:
    add(_n, (lambda f: lambda x: f(x, axis=1))(getattr(oar, _n)), (lambda r: lambda x: r(x, axis=1))(_r),
        (distinct(3, 4),))
    add(_n + "_flat", getattr(oar, _n), (lambda r: lambda x: np.asarray(r(x)))(_r), (distinct(2, 3, 4),))
    add(_n + "_keepdim", (lambda f: lambda x: f(x, axis=-1, keepdim=True))(getattr(oar, _n)),
        (lambda r: lambda x: r(x, axis=-1, keepdims=True))(_r), (distinct(2, 3, 4),))

# ---- linear algebra ---------------------------------------------------------------------------------------------
add("matmul", oar.matmul, np.matmul, (randn(3, 4), randn(4, 5)), (randn(2, 3, 4), randn(4, 5)),
    (randn(2, 1, 3, 4), randn(3, 4, 2)), (randn(4), randn(4, 5)), (randn(3, 4), randn(4)), (randn(4), randn(4)))
add("matmul_tx", lambda x, y: oar.matmul(x, y, transpose_x=True), lambda x, y: np.swapaxes(x, -1, -2) @ y,
    (randn(4, 3), randn(4, 5)), (randn(2, 4, 3), randn(2, 4, 5)))
add("matmul_ty", lambda x, y: oar.matmul(x, y, transpose_y=True), lambda x, y: x @ np.swapaxes(y, -1, -2),
    (randn(3, 4), randn(5, 4)), (randn(2, 3, 4), randn(5, 4)))
add("matmul_txy", lambda x, y: oar.matmul(x, y, True, True), lambda x, y: x.T @ y.T, (randn(4, 3), randn(5, 4)))
add("mm", oar.mm, np.matmul, (randn(3, 4), randn(4, 2)))
add("bmm", oar.bmm, np.matmul, (randn(2, 3, 4), randn(2, 4, 2)))
add("dot", oar.dot, lambda x, y: np.sum(x * y, -1), (randn(4), randn(4)), (randn(3, 4), randn(3, 4)))
add("outer", oar.outer, np.outer, (randn(3), randn(4)))
add("t", oar.t, np.transpose, (randn(3, 4),), (randn(3),))
add("inverse", oar.inverse, np.linalg.inv, (randn(3, 3) + 3 * np.eye(3),), (randn(2, 3, 3) + 3 * np.eye(3),),
    rtol=1e-6)
add("einsum_mm", lambda x, y: oar.einsum("ij,jk->ik", x, y), lambda x, y: np.einsum("ij,jk->ik", x, y),
    (randn(3, 4), randn(4, 5)))
add("einsum_batch", lambda x, y: oar.einsum("bij,bjk->bik", x, y), lambda x, y: np.einsum("bij,bjk->bik", x, y),
    (randn(2, 3, 4), randn(2, 4, 5)))
add("einsum_trace_out", lambda x: oar.einsum("ij->j", x), lambda x: np.einsum("ij->j", x), (randn(3, 4),))
add("einsum_implicit", lambda x, y: oar.einsum("ij,kj", x, y), lambda x, y: np.einsum("ij,kj", x, y),
    (randn(3, 4), randn(5, 4)))

# ---- shape --------------------------------------------------------------------------------------------------------
add("reshape", lambda x: oar.reshape(x, [4, -1]), lambda x: x.reshape(4, -1), (randn(2, 3, 4),))
add("reshape_0", lambda x: oar.reshape(x, [0, -1]), lambda x: x.reshape(2, -1), (randn(2, 3, 4),))
add("reshape_scalar", lambda x: oar.reshape(x, [1, 1]), lambda x: x.reshape(1, 1), (randn(),))
add("transpose", lambda x: oar.transpose(x, [2, 0, 1]), lambda x: x.transpose(2, 0, 1), (randn(2, 3, 4),))
add("T", lambda x: x.T, lambda x: x.T, (randn(2, 3, 4),))
add("flatten", lambda x: oar.flatten(x, 1, 2), lambda x: x.reshape(2, 12, 5), (randn(2, 3, 4, 5),))
add("squeeze", lambda x: oar.squeeze(x, 1), lambda x: x.squeeze(1), (randn(3, 1, 4),))
add("squeeze_all", oar.squeeze, np.squeeze, (randn(1, 3, 1),))
add("unsqueeze", lambda x: oar.unsqueeze(x, [0, -1]), lambda x: x[None, ..., None], (randn(3, 4),), (randn(),))
add("expand", lambda x: oar.expand(x, [2, 3, 4]), lambda x: np.broadcast_to(x, (2, 3, 4)), (randn(3, 1),))
add("broadcast_to", lambda x: oar.broadcast_to(x, [3, 4]), lambda x: np.broadcast_to(x, (3, 4)), (randn(4),),
    (randn(),))
add("expand_as", oar.expand_as, lambda x, y: np.broadcast_to(x, y.shape), (randn(1, 4), randn(3, 4)), diff=(0,))
add("tile", lambda x: oar.tile(x, [2, 1, 3]), lambda x: np.tile(x, (2, 1, 3)), (randn(3, 4),))
add("concat", lambda x, y: oar.concat([x, y], axis=1), lambda x, y: np.concatenate([x, y], 1),
    (randn(3, 2), randn(3, 4)))
add("concat_neg_axis", lambda x, y, z: oar.concat([x, y, z], axis=-1), lambda *a: np.concatenate(a, -1),
    (randn(2, 1), randn(2, 2), randn(2, 3)))
add("stack", lambda x, y: oar.stack([x, y], axis=1), lambda x, y: np.stack([x, y], 1), (randn(3, 4), randn(3, 4)))
add("stack_0d", lambda x, y: oar.stack([x, y]), lambda x, y: np.stack([x, y]), (randn(), randn()))
add("stack_neg_axis", lambda x, y, z: oar.stack([x, y, z], axis=-2), lambda *a: np.stack(a, -2),
    (randn(2, 3), randn(2, 3), randn(2, 3)))
add("split", lambda x: oar.split(x, 2, axis=1), lambda x: tuple(np.split(x, 2, 1)), (randn(3, 4),))
add("split_sections", lambda x: oar.split(x, [1, -1, 2], axis=0), lambda x: tuple(np.split(x, [1, 4], 0)),
    (randn(6, 2),))
add("chunk", lambda x: oar.chunk(x, 3, axis=-1), lambda x: tuple(np.split(x, 3, -1)), (randn(2, 6),))
add("unbind", lambda x: oar.unbind(x, 1), lambda x: tuple(x[:, i] for i in range(3)), (randn(2, 3),))
add("unstack", lambda x: oar.unstack(x), lambda x: tuple(x), (randn(2, 3),))
add("unstack_neg_axis", lambda x: oar.unstack(x, axis=-1), lambda x: tuple(np.moveaxis(x, -1, 0)), (randn(2, 3, 4),))
add("flip", lambda x: oar.flip(x, [0, 2]), lambda x: np.flip(x, (0, 2)), (randn(2, 3, 4),))
add("roll", lambda x: oar.roll(x, [1, -2], [0, 1]), lambda x: np.roll(x, (1, -2), (0, 1)), (randn(3, 4),))
add("roll_flat", lambda x: oar.roll(x, 5), lambda x: np.roll(x, 5), (randn(3, 4),))
add("rot90", lambda x: oar.rot90(x), lambda x: np.rot90(x), (randn(3, 4),))
add("rot90_k3", lambda x: oar.rot90(x, 3), lambda x: np.rot90(x, 3), (randn(3, 4),))
add("pad_constant", lambda x: oar.pad(x, [1, 2, 0, 1], value=0.5),
    lambda x: np.pad(x, [(0, 0), (0, 0), (0, 1), (1, 2)], constant_values=0.5), (randn(1, 2, 3, 4),))
add("pad_full", lambda x: oar.pad(x, [1, 0, 0, 2]), lambda x: np.pad(x, [(1, 0), (0, 2)]), (randn(3, 4),))
add("pad_reflect", lambda x: oar.pad(x, [2, 1], mode="reflect"), lambda x: np.pad(x, [(0, 0), (0, 0), (2, 1)],
                                                                                  mode="reflect"), (randn(2, 3, 4),))
add("pad_replicate", lambda x: oar.pad(x, [1, 2, 2, 0], mode="replicate"),
    lambda x: np.pad(x, [(0, 0), (0, 0), (2, 0), (1, 2)], mode="edge"), (randn(1, 2, 3, 4),))
add("pad_circular", lambda x: oar.pad(x, [1, 2], mode="circular"), lambda x: np.pad(x, [(0, 0), (0, 0), (1, 2)],
                                                                                   mode="wrap"), (randn(1, 2, 4),))
add("repeat_interleave", lambda x: oar.repeat_interleave(x, 2, axis=1), lambda x: np.repeat(x, 2, 1),
    (randn(3, 4),))
add("repeat_interleave_flat", lambda x: oar.repeat_interleave(x, 3), lambda x: np.repeat(x, 3), (randn(2, 2),))
add("repeat_interleave_tensor", lambda x, r: oar.repeat_interleave(x, r, axis=0), lambda x, r: np.repeat(x, r, 0),
    (randn(3, 2), np.array([1, 0, 2])))
add("shape", oar.shape, lambda x: np.array(x.shape, np.int64), (randn(2, 3),), (randn(),))
add("numel", oar.numel, lambda x: np.array(x.size, np.int64), (randn(2, 3),))
add("assign", oar.assign, np.copy, (randn(2, 3),))
add("clone", lambda x: x.clone(), np.copy, (randn(2, 3),))
add("add_n", lambda x, y, z: oar.add_n([x, y, z]), lambda x, y, z: x + y + z, (randn(2, 3), randn(2, 3),
                                                                                randn(2, 3)))
add("one_hot", lambda x: oar.one_hot(x, 5), lambda x: np.eye(5, dtype=np.float32)[x], (ints(5, 3, 2),),
    (ints(5),))

# ---- indexing -------------------------------------------------------------------------------------------------------
add("getitem_basic", lambda x: x[1, :, ::2], lambda x: x[1, :, ::2], (randn(3, 4, 5),))
add("getitem_none_ellipsis", lambda x: x[None, ..., 1], lambda x: x[None, ..., 1], (randn(3, 4, 5),))
add("getitem_negative_step", lambda x: x[::-1, -2:], lambda x: x[::-1, -2:], (randn(3, 4),))
add("getitem_bool", lambda x, m: x[m], lambda x, m: x[m], (randn(3, 4), randn(3, 4) > 0))
add("getitem_int_array", lambda x, i: x[i], lambda x, i: x[i], (randn(5, 3), np.array([4, 0, 4, 1])))
add("getitem_int_array_2", lambda x, i, j: x[i, j], lambda x, i, j: x[i, j],
    (randn(5, 3), np.array([4, 0, 4]), np.array([2, 2, 1])))
add("getitem_list", lambda x: x[[0, 2]], lambda x: x[[0, 2]], (randn(3, 4),))
add("setitem", lambda x, v: _set(x, (slice(None), 1), v), lambda x, v: _set_np(x, (slice(None), 1), v),
    (randn(3, 4), randn(3)))
add("setitem_scalar", lambda x: _set(x, (0, 0), 5.0), lambda x: _set_np(x, (0, 0), 5.0), (randn(3, 4),))
add("setitem_bool", lambda x, m, v: _set(x, m, v), lambda x, m, v: _set_np(x, m, v),
    (randn(3, 4), randn(3, 4) > 0, randn()), diff=(0, 2))
add("slice", lambda x: oar.slice(x, [0, 2], [1, -3], [3, 100]), lambda x: x[1:3, :, -3:], (randn(4, 3, 5),))
add("strided_slice", lambda x: oar.strided_slice(x, [1], [4], [0], [-2]), lambda x: x[:, 4:0:-2], (randn(2, 6),))
add("gather", lambda x, i: oar.gather(x, i), lambda x, i: x[i], (randn(5, 3), np.array([4, 0, 4])))
add("gather_axis", lambda x, i: oar.gather(x, i, axis=1), lambda x, i: np.take(x, i, 1),
    (randn(2, 5, 3), np.array([1, 3])), (randn(2, 5), np.array(3)))
add("index_select", lambda x, i: oar.index_select(x, i, axis=-1), lambda x, i: np.take(x, i, -1),
    (randn(3, 4), np.array([3, 3, 0])))
add("index_add", lambda x, i, v: oar.index_add(x, i, 0, v), lambda x, i, v: _np_at(x, i, v),
    (randn(4, 3), np.array([0, 2, 0]), randn(3, 3)))
add("gather_nd", oar.gather_nd, lambda x, i: x[tuple(np.moveaxis(i, -1, 0))],
    (randn(3, 4, 2), np.array([[0, 1], [2, 3], [0, 1]])), (randn(3, 4), np.array([[2], [0]])))
add("scatter_nd_add", oar.scatter_nd_add, lambda x, i, u: _np_nd_add(x, i, u),
    (randn(3, 4), np.array([[0, 1], [2, 3], [0, 1]]), randn(3)), (randn(3, 4), np.array([[2], [2]]), randn(2, 4)))
add("scatter_nd", lambda i, u: oar.scatter_nd(i, u, [3, 4]), lambda i, u: _np_nd_add(np.zeros((3, 4)), i, u),
    (np.array([[0, 1], [2, 3]]), randn(2)))
add("scatter", lambda x, i, u: oar.scatter(x, i, u), lambda x, i, u: _np_scatter(x, i, u, True),
    (randn(4, 3), np.array([2, 0]), randn(2, 3)))
add("scatter_accumulate", lambda x, i, u: oar.scatter(x, i, u, overwrite=False),
    lambda x, i, u: _np_scatter(x, i, u, False), (randn(4, 3), np.array([2, 0, 2]), randn(3, 3)))
add("take_along_axis", lambda x, i: oar.take_along_axis(x, i, 1), lambda x, i: np.take_along_axis(x, i, 1),
    (randn(3, 4), ints(4, 3, 2)), (randn(3, 4), ints(4, 1, 5)))
add("put_along_axis", lambda x, i, v: oar.put_along_axis(x, i, v, 1),
    lambda x, i, v: _np_put(x, i, v, 1, "assign"), (randn(3, 4), np.array([[1], [0], [3]]), randn(3, 1)))
add("put_along_axis_add", lambda x, i, v: oar.put_along_axis(x, i, v, 0, reduce="add"),
    lambda x, i, v: _np_put(x, i, v, 0, "add"), (randn(3, 4), ints(3, 2, 4), randn(2, 4)))
add("masked_select", oar.masked_select, lambda x, m: np.broadcast_to(x, m.shape)[m],
    (randn(3, 4), randn(3, 4) > 0), (randn(1, 4), randn(3, 4) > 0), tags=("dynamic_shape",))
add("masked_fill", lambda x, m: oar.masked_fill(x, m, 2.0), lambda x, m: np.where(m, 2.0, x),
    (randn(3, 4), randn(4) > 0))
add("nonzero", oar.nonzero, lambda x: np.argwhere(x), (randn(3, 4) > 0,), (np.array([0.0, 1.0, 0.0, 3.0]),),
    tags=("dynamic_shape",))

# ---- sorting ------------------------------------------------------------------------------------------------------
add("sort", lambda x: oar.sort(x, axis=1), lambda x: np.sort(x, 1), (distinct(3, 4),), (distinct(2, 3, 4),))
add("sort_desc", lambda x: oar.sort(x, axis=0, descending=True), lambda x: -np.sort(-x, 0), (distinct(3, 4),))
add("argsort", lambda x: oar.argsort(x), lambda x: np.argsort(x, -1, kind="stable"), (distinct(3, 4),))
add("argsort_desc", lambda x: oar.argsort(x, descending=True, axis=0), lambda x: np.argsort(-x, 0, kind="stable"),
    (distinct(3, 4),))
add("topk", lambda x: oar.topk(x, 2), lambda x: (-np.sort(-x, -1)[..., :2], np.argsort(-x, -1)[..., :2]),
    (distinct(3, 4),))
add("topk_smallest", lambda x: oar.topk(x, 3, axis=0, largest=False),
    lambda x: (np.sort(x, 0)[:3], np.argsort(x, 0)[:3]), (distinct(4, 2),))
add("kthvalue", lambda x: oar.kthvalue(x, 2, axis=1), lambda x: (np.sort(x, 1)[:, 1], np.argsort(x, 1)[:, 1]),
    (distinct(3, 4),))
add("unique", oar.unique, np.unique, (ints(4, 3, 4),), tags=("dynamic_shape",))
add("unique_all", lambda x: oar.unique(x, return_index=True, return_inverse=True, return_counts=True),
    lambda x: np.unique(x, return_index=True, return_inverse=True, return_counts=True), (ints(4, 10),),
    tags=("dynamic_shape",))
add("searchsorted", oar.searchsorted, np.searchsorted, (np.sort(randn(6)), randn(4)))


def _np_gather_tree(ids, parents):
    out, beam = ids.copy(), np.broadcast_to(np.arange(ids.shape[2]), ids.shape[1:])
    for t in range(ids.shape[0] - 1, -1, -1):
        out[t] = np.take_along_axis(ids[t], beam, axis=1)
        beam = np.take_along_axis(parents[t], beam, axis=1)
    return out


add("gather_tree", oar.nn.functional.gather_tree, _np_gather_tree, (ints(9, 5, 2, 3), ints(3, 5, 2, 3)),
    (ints(9, 1, 3, 2), ints(2, 1, 3, 2)))

# ---- quantization (QDQ) -------------------------------------------------------------------------------------------
def _np_quant(x, s, z, axis=-1):
    shape = [-1 if d == axis else 1 for d in range(x.ndim)] if axis >= 0 else []
    s, zi = (s.reshape(shape), z.astype(np.int64).reshape(shape)) if shape else (s, z.astype(np.int64))
    lo, hi = (-128, 127) if z.dtype == np.int8 else (0, 255)
    return np.clip(np.round(x / s) + zi, lo, hi).astype(z.dtype)  # np.round: half to even, as ONNX


def _np_dequant(q, s, z, axis=-1):
    shape = [-1 if d == axis else 1 for d in range(q.ndim)] if axis >= 0 else []
    s, zi = (s.reshape(shape), z.astype(np.int64).reshape(shape)) if shape else (s, z.astype(np.int64))
    return ((q.astype(np.int64) - zi) * s).astype(s.dtype)


_F32 = np.float32
add("quantize_linear", oar.quantization.quantize_linear, _np_quant,
    (randn(3, 4).astype(_F32), np.array(0.02, _F32), np.array(3, np.int8)),
    (np.array([0.5, 1.5, 2.5, -0.5, 300.0], _F32), np.array(1.0, _F32), np.array(0, np.int8)),  # ties, clipping
    (randn(3, 4).astype(_F32), np.array(0.01, _F32), np.array(128, np.uint8)), grad=False)
add("quantize_linear_per_channel", lambda x, s, z: oar.quantization.quantize_linear(x, s, z, quant_axis=1),
    lambda x, s, z: _np_quant(x, s, z, 1),
    (randn(2, 3, 4).astype(_F32), np.array([0.01, 0.02, 0.05], _F32), np.array([0, 1, -2], np.int8)), grad=False)
add("dequantize_linear", oar.quantization.dequantize_linear, _np_dequant,
    (ints(100, 3, 4).astype(np.int8), np.array(0.02, _F32), np.array(3, np.int8)),
    (ints(255, 3, 4).astype(np.uint8), np.array(0.5, _F32), np.array(128, np.uint8)), grad=False)
add("dequantize_linear_per_channel", lambda q, s, z: oar.quantization.dequantize_linear(q, s, z, quant_axis=0),
    lambda q, s, z: _np_dequant(q, s, z, 0),
    (ints(1000, 3, 4).astype(np.int32), np.array([0.01, 0.02, 0.05], _F32), np.zeros(3, np.int32)), grad=False)


from oar.ops.quant import fake_quantize_dequantize  # noqa: E402


def _np_fake_qdq(x, s):
    """Paddle's abs-max fake quantization, 8 bits: ties away from zero, clipped to [-s, s]."""
    s = s.reshape(())
    v = np.clip(x, -s, s) * (127.0 / s)
    return (np.copysign(np.floor(np.abs(v) + 0.5), v) * (s / 127.0)).astype(x.dtype)


# its gradient is the straight-through identity, not the derivative of the rounding: tests/quantization/test_qat.py
add("fake_quantize_dequantize_abs_max", fake_quantize_dequantize, _np_fake_qdq,
    ((randn(3, 4) * 2).astype(_F32), np.array([1.5], _F32)),
    (np.array([0.5, 1.5, 2.5, -2.5, 126.5, 300.0], _F32), np.array([127.0], _F32)), grad=False)

import op_table_linalg  # noqa: E402,F401  (more families' rows, each in its own file)
import op_table_fft  # noqa: E402,F401
import op_table_signal  # noqa: E402,F401
import op_table_sparse  # noqa: E402,F401
import op_table_nn  # noqa: E402,F401
import op_table_rnn  # noqa: E402,F401


# ---- metric: the auc op (the kernel of paddle.static.auc; no eager public function, so called through apply) ---
def _auc_op(slide_steps):
    from oar.ops.metric import AUC
    from oar.ops.registry import apply
    return lambda p, y, sp, sn, w: apply(AUC, (p, y, sp, sn, w), {"curve": "ROC", "num_thresholds": 8,
                                                                  "slide_steps": slide_steps})


def _np_auc(slide_steps):
    def ref(p, y, sp, sn, w):
        n, sp, sn = 9, sp.copy(), sn.copy()
        hist = [[0] * n, [0] * n]   # neg, pos
        for prob, lab in zip(p[:, -1], y):
            if lab >= 0 and w.flat[0] != 0:
                hist[int(lab > 0)][int(prob * 8)] += 1
        tables = []
        for flat, h in ((sp.reshape(-1), hist[1]), (sn.reshape(-1), hist[0])):
            if slide_steps == 0:
                flat[:n] += h
                tables.append(flat[:n])
                continue
            cur, tot = int(flat[(slide_steps + 1) * n]) % slide_steps, slide_steps * n
            flat[tot:tot + n] += np.array(h) - flat[cur * n:(cur + 1) * n]
            flat[cur * n:(cur + 1) * n] = h
            flat[(slide_steps + 1) * n] += 1
            tables.append(flat[tot:tot + n])
        pos, neg = tables
        area = tp = fp = 0.0
        for b in range(n - 1, -1, -1):   # trapezoids from the highest score bin down
            area += neg[b] * (2 * tp + pos[b]) / 2.0
            tp, fp = tp + pos[b], fp + neg[b]
        return np.array(area / tp / fp if tp > 0 and fp > 0 else 0.0), sp, sn
    return ref


_AUC_P = np.stack([1 - R.uniform(0, 1, 12), R.uniform(0, 1, 12)], 1).astype(np.float32)
_AUC_Y = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, -1], np.int64)
add("auc_op", _auc_op(0), _np_auc(0),
    (_AUC_P, _AUC_Y, ints(3, 1, 9), ints(3, 1, 9), np.ones([1, 1], np.float32)),
    (_AUC_P, _AUC_Y, ints(3, 1, 9), ints(3, 1, 9), np.zeros([1, 1], np.float32)), grad=False)


def _auc_window_state(counter):
    """Two batches' histograms, their sum and the batch counter: a consistent sliding-window state."""
    h = ints(3, 2, 9)
    return np.r_[h.reshape(-1), h.sum(0), counter]


add("auc_op_window", _auc_op(2), _np_auc(2),
    (_AUC_P, _AUC_Y, _auc_window_state(5), _auc_window_state(5), np.ones([1, 1], np.float32)),
    (_AUC_P, _AUC_Y, _auc_window_state(4), _auc_window_state(4), np.zeros([1, 1], np.float32)), grad=False)

from op_table_breadth import *  # noqa: E402,F401,F403  (rows of the Paddle 2.x breadth families)
from op_table_vision import *  # noqa: E402,F401,F403  (rows of oar.vision.ops)

BY_NAME = {c.name: c for c in CASES}
