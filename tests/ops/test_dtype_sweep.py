"""oar's result dtypes and NaN/inf/empty/rounding values against Paddle 3.3.1's (the committed reference written by
tools/paddle_refs/dtype_sweep.py; no paddle needed here). The rules are written down in docs/numerics.md."""
import json
import math
import pathlib

import numpy as np
import pytest

import oar
from dtype_sweep_cases import DTYPE_CASES, DTYPES, VALUE_CASES, VALUES

REF = json.loads((pathlib.Path(__file__).parent / "dtype_sweep_ref.json").read_text())

# Where oar deliberately differs from Paddle 3.3.1 (docs/numerics.md, "Differences from Paddle"): (case, dtype)
DIFFERENT = {
    # Paddle's integer mean/var truncate to the input's integer dtype; oar returns the float32 mean/variance
    **{("mean", dt): "float32" for dt in ("bool", "int32", "int64")},
    **{("var", dt): "float32" for dt in ("int32", "int64")},
    ("neg", "bool"): "error",  # negating a bool is an error in NumPy; Paddle returns bool
    ("median", "float16"): "float16",  # Paddle's CPU median of float16 comes back as float32
}


_INF, _NAN = math.inf, math.nan
_MIXED = "mixed dtypes: Paddle raises TypeError, oar promotes as NumPy (docs/numerics.md)"
# VALUE_CASES where oar deliberately differs from Paddle 3.3.1: case -> (oar's dtype, oar's value, why), or
# ("error", None, why) where oar raises. Each is a row of docs/numerics.md, "Differences from Paddle".
VALUE_DIFFERENT = {
    "maximum[int,float]": ("float32", [2.5, 5.0], _MIXED),
    "maximum[int,scalar-like]": ("float32", [2.5, 5.0], _MIXED),
    "pow[float,int tensor]": ("float32", [4.0, 64.0], _MIXED),
    "f16*int32": ("float16", [3.0], _MIXED), "f32+int64": ("float32", [3.5], _MIXED),
    "int>float tensor": ("bool", [False, True], _MIXED), "bool+int32": ("int32", [3], _MIXED),
    "bool+f32": ("float32", [3.5], _MIXED), "add[int,float]": ("float32", [1.5, 2.5], _MIXED),
    "multiply[bool,int]": ("int64", [3, 0], _MIXED), "add_[int,float]": ("float32", [1.5, 2.5], _MIXED),
    "x.add_(2.5)[int]": ("float32", [3.5, 4.5], _MIXED), "where[int,float]": ("float32", [1.0, 0.5], _MIXED),
    "where[int,scalar float]": ("float32", [1.0, 2.5], _MIXED), "where[int32,int64]": ("int64", [1, 3], _MIXED),
    "logical_or[float,int]": ("bool", [False, True], _MIXED), "bitwise_and[bool,int]": ("int64", [0, 1], _MIXED),
    "x^1[int]": ("int64", [1, -2, 4], "Paddle's bitwise_xor refuses a Python int"),
    "logsumexp[-inf rows]": ("float32", [-_INF, 1.3132616, _INF], "Paddle gives NaN; log(0) is -inf, log(inf) inf"),
    "logcumsumexp[-inf]": ("float32", [-_INF, -_INF, 0.0, 0.0], "Paddle gives -3.4e38 for log(0)"),
    "isclose[nan]": ("bool", [True, False, True, False, True], "Paddle: -inf is close to inf"),
    "heaviside[nan,0]": ("float32", [_NAN, 0.5, 0.0, 1.0], "Paddle: heaviside(nan) is 0"),
    "topk[ties]": ("int64", [1, 2], "ties: Paddle's order comes from std::nth_element; oar's is stable"),
    "topk[ties,smallest]": ("int64", [0, 2], "ties: as above"),
    "remainder[-0]": ("float32", [0.0, -0.0, 0.0], "Python's float %: a zero takes the divisor's sign"),
    "pow[int,-2 tensor]": ("error", None, "Paddle truncates 1/4 to 0 (and hangs on a scalar exponent)"),
    "pow[int,2.5]": ("float32", [32.0], "Paddle truncates the exponent: 4 ** 2.5 gives 16"),
    "divide[bool]": ("float32", [1.0], "true division of bools is float (Paddle: bool)"),
    "sum[u8]": ("int64", 300, "Paddle wraps in uint8 (44)"), "sum[int8]": ("int64", 200, "Paddle wraps (-56)"),
    **{c: ("error", None, "a Python int out of the tensor's range: Paddle wraps it (u8 > -1 is False)")
       for c in ("int32+2**40", "int32>2**40", "u8>-1", "u8+300", "u8*-1")},
    "clip[int32,big bound]": ("int32", [1, 5], "Paddle wraps the bound 2**40 to 0 first (gives [0, 0])"),
    "scale[int]": ("int64", [2, 3], "Paddle truncates scale and bias to ints first"),
    "scale_[int]": ("int64", [1, 3, 4], "as scale[int]"),
    "clip_[int,float]": ("float32", [1.0, 1.5, 1.5], "Paddle's clip_ truncates float bounds (clip keeps them)"),
    "round[int,decimals=-1]": ("int64", [20, 20, 10], "Paddle leaves integers unrounded"),
    "arange[float end,int dtype]": ("int64", [0, 1, 2], "Paddle casts the end 2.5 to 2 first"),
    "int*np.float32": ("float32", [7.5], "Paddle truncates a NumPy float scalar to the int tensor's dtype"),
    "equal[int,1.5]": ("bool", [False, False], "paddle.equal truncates 1.5 to 1 (the == operator does not)"),
    "setitem[u8,300]": ("error", None, "Paddle wraps 300 to 44"),
    "matmul[int32]": ("int32", [[1]], "2**32 + 1 wraps to 1 as every int32 op does; Paddle gives -2**31"),
    "mean[bool]": ("float32", 0.5, "as mean of ints: Paddle's is bool True"),
    "x[[3]] of 3": ("error", None, "Paddle reads past the end (uninitialized memory)"),
    "log_softmax[big]": ("float32", [0.0, -1000.0], "Paddle gives -64 for log_softmax([1000, 0])[1]"),
    "relu[nan]": ("float32", [_NAN, 0.0, 2.0], "Paddle's relu(nan) is 0 (x > 0 ? x : 0); NaN propagates"),
    "max_pool1d[nan]": ("float32", [[[_NAN, _NAN]]], "Paddle's pooling skips a NaN after the first element"),
    "mse_loss[int]": ("float32", 0.5, "Paddle truncates the mean to int64 0"),
    "cross_entropy[-100 ignored]": ("float32", 0.9130153, "Paddle divides by all N for the default -100 (by the "
                                    "non-ignored count for other ignore_index values)"),
    "searchsorted[nan]": ("int64", [2, 1, 1], "NaN sorts last, so it goes before the NaN (NumPy); Paddle: after"),
    "isin[0-D test_x]": ("bool", [False, True], "Paddle reduces over all of x when test_x is 0-D (one bool)"),
}


def _dtype_of(fn):
    try:
        out = fn()
    except (TypeError, ValueError, RuntimeError):
        return "error"
    return str(out._data.dtype)


@pytest.mark.parametrize("case", sorted(DTYPE_CASES))
def test_result_dtype_matches_paddle(case):
    wrong = []
    for dt in DTYPES:
        want = REF["dtypes"][case][dt]
        got = _dtype_of(lambda: DTYPE_CASES[case](oar, oar.to_tensor(VALUES.get(dt, [1, 2, 4]), dtype=dt)))
        if (case, dt) in DIFFERENT:
            want = DIFFERENT[(case, dt)]
        elif want == "error":  # Paddle has no CPU kernel for this dtype: oar may compute it
            continue
        if got != want:
            wrong.append(f"{dt}: oar {got}, Paddle {want}")
    assert not wrong, f"{case}: " + "; ".join(wrong)


def _decode(v):
    if isinstance(v, list):
        return [_decode(e) for e in v]
    return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(v, v) if isinstance(v, str) else v


@pytest.mark.parametrize("case", sorted(VALUE_CASES))
def test_special_values_match_paddle(case):
    ref = REF["values"][case]
    if case in VALUE_DIFFERENT:
        dtype, value, _ = VALUE_DIFFERENT[case]
        ref = {"dtype": dtype, "value": value, "shape": list(np.shape(value))}
    if ref["dtype"] == "error":  # Paddle rejects the call: oar must not return something silently
        with pytest.raises((TypeError, ValueError, RuntimeError, IndexError, ArithmeticError)):
            VALUE_CASES[case](oar)
        return
    out = VALUE_CASES[case](oar)
    a = out._data
    assert str(a.dtype) == ref["dtype"]
    assert list(a.shape) == ref["shape"]
    want = np.asarray(_decode(ref["value"]), np.float64).reshape(ref["shape"])  # [] of shape [0, 3]
    np.testing.assert_allclose(a.astype(np.float64), want, rtol=1e-6, atol=1e-7, equal_nan=True)
    if a.dtype.kind == "f":  # the sign of zero too (round(-0.5) is -0.0); a NaN's sign bit means nothing
        keep = ~np.isnan(want)
        assert np.array_equal(np.signbit(a)[keep], np.signbit(want)[keep])


def test_documented_differences_still_differ_from_paddle():
    """Every entry of VALUE_DIFFERENT is a real difference from the reference (else it should be dropped)."""
    refs = REF["values"]
    same = [c for c, (dtype, value, _) in VALUE_DIFFERENT.items()
            if refs[c]["dtype"] == dtype and (dtype == "error" or str(refs[c]["value"]) == str(value))]
    assert not same, same


# ---- the whole op table at float32 ---------------------------------------------------------------------------------

# rows whose float64 result comes from the row itself, not the op: float64 NumPy constants added in the row
# (`oar.to_tensor(3 * I3)`, a float64 window), or an op whose output is float64 by definition (auc, as Paddle's)
_F64_BY_ROW = ("cholesky", "cholesky_upper", "cholesky_batch", "cholesky_complex", "cholesky_complex_upper",
               "eigh_complex", "istft", "auc_op", "auc_op_window")


def _float32_rows():
    from op_table import CASES
    return [c for c in CASES if any(a.dtype in (np.float64, np.complex128) for a in c.inputs)
            and c.name.split("[")[0] not in _F64_BY_ROW]


@pytest.mark.parametrize("case", _float32_rows(), ids=repr)
def test_op_table_keeps_float32(case):
    """Every op of the op table given float32 (complex64) inputs returns float32 (complex64), never NumPy's
    float64 (Paddle computes in the inputs' dtype)."""
    narrow = {np.dtype(np.float64): np.float32, np.dtype(np.complex128): np.complex64}
    r = case.fn(*[oar.to_tensor(a.astype(narrow.get(a.dtype, a.dtype))) for a in case.inputs])
    for o in (list(r) if isinstance(r, (tuple, list)) else [r]):
        if isinstance(o, oar.Tensor):
            assert o._data.dtype not in (np.float64, np.complex128), f"{case.name}: {o._data.dtype}"


# ---- the same calls in a static program ----------------------------------------------------------------------------

_NOT_STATIC = {
    "clip[tensor bounds]": "clip reads tensor bounds as Python floats: a clear StaticValueError while building",
    "narrow[tensor start]": "narrow reads a Tensor start as a Python int: a clear TypeError while building",
}


def _run_static(fn):
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            out = fn(oar)
        exe = oar.static.Executor()
        exe.run(startup)
        return np.asarray(exe.run(main, fetch_list=[out])[0])
    finally:
        oar.disable_static()


@pytest.mark.parametrize("case", sorted(set(VALUE_CASES) - set(_NOT_STATIC)))
def test_static_program_matches_eager(case):
    """A converted program gives what eager gives, dtype, shape, the sign of zero and errors included (static
    constants [0.0, -0.0] once became one `full` of 0.0; `cumsum_` of int32 became int64)."""
    try:
        eager = np.asarray(VALUE_CASES[case](oar)._data)
    except (TypeError, ValueError, RuntimeError, IndexError, ArithmeticError):
        with pytest.raises((TypeError, ValueError, RuntimeError, IndexError, ArithmeticError)):
            _run_static(VALUE_CASES[case])
        return
    got = _run_static(VALUE_CASES[case])
    assert (got.dtype, got.shape) == (eager.dtype, eager.shape)
    np.testing.assert_array_equal(got, eager)
    if got.dtype.kind == "f":
        assert np.array_equal(np.signbit(got), np.signbit(eager))


def test_linear_algebra_of_integers_is_float32():
    """Paddle has no integer kernels for these; oar computes them as float math, in float32 (NumPy's float64
    leaked out of det/inv/solve/svd; matrix_power gave float32 for n=0 and int64 for n=1)."""
    a = oar.to_tensor([[2, 1], [0, 4]])
    L = oar.linalg
    outs = {"det": L.det(a), "inv": L.inv(a), "slogdet": L.slogdet(a)[1], "pinv": L.pinv(a), "svd": L.svd(a)[1],
            "qr": L.qr(a)[1], "cond": L.cond(a), "cholesky": L.cholesky(a + a.T), "solve": L.solve(a, a),
            "lstsq": L.lstsq(a, a)[0], "eigh": L.eigh(a + a.T)[0], "triangular_solve": L.triangular_solve(a, a),
            **{f"matrix_power[{n}]": L.matrix_power(a, n) for n in (-1, 0, 1, 2)}}
    assert {k: v.dtype for k, v in outs.items() if v.dtype != oar.float32} == {}
    np.testing.assert_allclose(outs["det"].numpy(), 8.0)
    np.testing.assert_allclose(outs["matrix_power[2]"].numpy(), [[4, 6], [0, 16]])
    np.testing.assert_allclose(outs["inv"].numpy(), [[0.5, -0.125], [0.0, 0.25]])
