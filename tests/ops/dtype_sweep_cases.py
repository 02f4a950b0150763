"""The op calls of the dtype sweep (`test_dtype_sweep.py`), written against a module `p` that is either oar or
Paddle: `tools/paddle_refs/dtype_sweep.py` runs them under Paddle 3.3.1 to write `dtype_sweep_ref.json`, the test
runs them under oar and compares. This file imports neither framework.

`DTYPE_CASES`: name -> ``f(p, x)`` applied to a 1-D tensor ``x`` of each dtype in `DTYPES` (values 1, 2, 4, or
True, False, True). `VALUE_CASES`: name -> ``f(p)`` whose value (NaN/inf/empty inputs, rounding) is compared too;
the edge cases by topic are in `value_sweep_cases.py` and `value_sweep_cases2.py`.
"""

from value_sweep_cases import CAST_CASES, INT_CASES, NAN_CASES, ROUND_CASES
from value_sweep_cases2 import (INPLACE_CASES, MISC_CASES, MORE_CASES, P3_CASES, RANGE_CASES, REDUCE_CASES,
                                SCALAR_CASES, WHERE_INDEX_CASES)

DTYPES = ("bool", "int32", "int64", "float16", "float32", "float64")
VALUES = {"bool": [True, False, True]}  # every other dtype: [1, 2, 4]

_UNARY = ("exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square", "abs", "sign", "neg",
          "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "erf", "sigmoid", "floor", "ceil",
          "round", "trunc", "reciprocal", "isnan", "isinf", "isfinite")


def _method(name):
    return lambda p, x: getattr(p, name)(x)


DTYPE_CASES = {name: _method(name) for name in _UNARY}
DTYPE_CASES.update({
    "nn.functional.sigmoid": lambda p, x: p.nn.functional.sigmoid(x),
    "nn.functional.relu": lambda p, x: p.nn.functional.relu(x),
    "nn.functional.gelu": lambda p, x: p.nn.functional.gelu(x),
    "nn.functional.softmax": lambda p, x: p.nn.functional.softmax(x), "logsumexp": lambda p, x: p.logsumexp(x),
    "sum": lambda p, x: p.sum(x), "prod": lambda p, x: p.prod(x), "mean": lambda p, x: p.mean(x),
    "max": lambda p, x: p.max(x), "cumsum": lambda p, x: p.cumsum(x), "cumprod": lambda p, x: p.cumprod(x, dim=0),
    "argmax": lambda p, x: p.argmax(x), "std": lambda p, x: p.std(x), "var": lambda p, x: p.var(x),
    "clip[1.5,2.5]": lambda p, x: p.clip(x, 1.5, 2.5), "clip[1,2]": lambda p, x: p.clip(x, 1, 2),
    "ones_like": lambda p, x: p.ones_like(x), "zeros_like": lambda p, x: p.zeros_like(x),
    "full_like[1]": lambda p, x: p.full_like(x, 1), "x*1.5": lambda p, x: x * 1.5, "x/2": lambda p, x: x / 2,
    "x+1": lambda p, x: x + 1, "x*x": lambda p, x: x * x, "divide(x,x)": lambda p, x: p.divide(x, x),
    "x//2": lambda p, x: x // 2, "x**2": lambda p, x: x ** 2, "x>1": lambda p, x: x > 1,
    "cast_float": lambda p, x: x.astype("float32"), "assign": lambda p, x: p.assign(x),
    "median": lambda p, x: p.median(x), "median[min]": lambda p, x: p.median(x, axis=0, mode="min")[0],
    "sort": lambda p, x: p.sort(x), "nan_to_num": lambda p, x: p.nan_to_num(x),
    "x%2": lambda p, x: x % 2, "remainder(x,x)": lambda p, x: p.remainder(x, x), "x**-1.0": lambda p, x: x ** -1.0,
    "maximum(x,x)": lambda p, x: p.maximum(x, x), "amax": lambda p, x: p.amax(x), "min": lambda p, x: p.min(x),
    "argsort": lambda p, x: p.argsort(x), "topk": lambda p, x: p.topk(x, 2)[0], "nansum": lambda p, x: p.nansum(x),
    "nanmean": lambda p, x: p.nanmean(x), "cummax": lambda p, x: p.cummax(x)[0], "diff": lambda p, x: p.diff(x),
    "quantile": lambda p, x: p.quantile(x, 0.5), "kthvalue": lambda p, x: p.kthvalue(x, 1)[0],
    "mode": lambda p, x: p.mode(x)[0], "unique": lambda p, x: p.unique(x), "flip": lambda p, x: p.flip(x, 0),
    "count_nonzero": lambda p, x: p.count_nonzero(x), "all": lambda p, x: p.all(x), "any": lambda p, x: p.any(x),
    "bincount": lambda p, x: p.bincount(x), "x==1.5": lambda p, x: x == 1.5, "x*True": lambda p, x: x * True,
    "x+True": lambda p, x: x + True, "2-x": lambda p, x: 2 - x, "2.5/x": lambda p, x: 2.5 / x,
    "atan2(x,x)": lambda p, x: p.atan2(x, x), "lerp": lambda p, x: p.lerp(x, x, 0.5),
    "logit": lambda p, x: p.logit(x), "frac": lambda p, x: p.frac(x), "digamma": lambda p, x: p.digamma(x),
    "masked_fill[2.5]": lambda p, x: p.masked_fill(x, x == x, 2.5),
    "full_like[2.5]": lambda p, x: p.full_like(x, 2.5),
    "where(x>1,x,0)": lambda p, x: p.where(x > 1, x, p.zeros_like(x)), "trace2d": lambda p, x: p.trace(p.diag(x)),
    "matmul": lambda p, x: p.matmul(x, x), "dot": lambda p, x: p.dot(x, x),
    "linalg.norm": lambda p, x: p.linalg.norm(x),
})

_NAN = "float('nan')"
VALUE_CASES = {
    "round[.5]": lambda p: p.round(p.to_tensor([0.5, 1.5, 2.5, -0.5, -2.5])),
    "assign[list float]": lambda p: p.assign([1.5, 2.0]),
    "assign[list int]": lambda p: p.assign([1, 2]),
    "std[one]": lambda p: p.std(p.to_tensor([1.0])), "var[one]": lambda p: p.var(p.to_tensor([1.0])),
    "cummin[nan]": lambda p: p.cummin(p.to_tensor([1.0, float("nan"), 0.5, 3.0]))[0],
    "cummin[nan].idx": lambda p: p.cummin(p.to_tensor([1.0, float("nan"), 0.5, 3.0]))[1],
    "cummax[nan]": lambda p: p.cummax(p.to_tensor([1.0, float("nan"), 0.5, 3.0]))[0],
    "cummax[nan].idx": lambda p: p.cummax(p.to_tensor([1.0, float("nan"), 0.5, 3.0]))[1],
    "argmax[nan]": lambda p: p.argmax(p.to_tensor([1.0, float("nan"), 0.5, 3.0])),
    "argmin[nan]": lambda p: p.argmin(p.to_tensor([1.0, float("nan"), 0.5, 3.0])),
    "max[nan]": lambda p: p.max(p.to_tensor([1.0, float("nan"), 0.5, 3.0])),
    "sort[nan]": lambda p: p.sort(p.to_tensor([1.0, float("nan"), 0.5, 3.0])),
    "sort[nan,desc]": lambda p: p.sort(p.to_tensor([1.0, float("nan"), 0.5, 3.0]), descending=True),
    "argsort[nan,desc]": lambda p: p.argsort(p.to_tensor([1.0, float("nan"), 0.5, 3.0]), descending=True),
    "topk[nan]": lambda p: p.topk(p.to_tensor([1.0, float("nan"), 0.5, 3.0]), 2)[0],
    "sum[inf]": lambda p: p.sum(p.to_tensor([float("inf"), 1.0])),
    "sum[inf-inf]": lambda p: p.sum(p.to_tensor([float("inf"), -float("inf")])),
    "exp[inf]": lambda p: p.exp(p.to_tensor([float("inf"), -float("inf")])),
    "log[0,-1]": lambda p: p.log(p.to_tensor([0.0, -1.0])),
    "sum[empty]": lambda p: p.sum(p.zeros([0])), "mean[empty]": lambda p: p.mean(p.zeros([0])),
    "prod[empty]": lambda p: p.prod(p.zeros([0])), "exp[empty]": lambda p: p.exp(p.zeros([0])),
    "clip[int,float]": lambda p: p.clip(p.to_tensor([1, 2, 3]), 1.5, 2.5),
    "norm[p2,axis01]": lambda p: p.linalg.norm(p.to_tensor([[1.0, 2.0], [3.0, 4.0]]), p=2, axis=[0, 1]),
    "median[min]": lambda p: p.median(p.to_tensor([[1, 3, 2, 4]]), axis=1, mode="min")[0],
    "median[min].idx": lambda p: p.median(p.to_tensor([[1, 3, 2, 4]]), axis=1, mode="min")[1],
    "median[avg,int]": lambda p: p.median(p.to_tensor([1, 3, 2, 4])),
    "hsplit[2,-1].1": lambda p: p.hsplit(p.arange(12).reshape([2, 6]), [2, -1])[1],
    "split[2,-1].1": lambda p: p.split(p.arange(12).reshape([2, 6]), [2, -1], axis=1)[1],
    "reciprocal[int]": lambda p: p.reciprocal(p.to_tensor([2, 4])),
    "erf[int]": lambda p: p.erf(p.to_tensor([1, 2])),
}
for _group in (NAN_CASES, INT_CASES, CAST_CASES, ROUND_CASES, REDUCE_CASES, SCALAR_CASES, INPLACE_CASES, RANGE_CASES,
               WHERE_INDEX_CASES, MISC_CASES, MORE_CASES, P3_CASES):
    assert not set(_group) & set(VALUE_CASES), set(_group) & set(VALUE_CASES)
    VALUE_CASES.update(_group)
