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
    out = VALUE_CASES[case](oar)
    a = out._data
    assert str(a.dtype) == ref["dtype"]
    np.testing.assert_allclose(a.astype(np.float64), np.asarray(_decode(ref["value"]), np.float64),
                               rtol=1e-6, atol=1e-7, equal_nan=True)
    if a.dtype.kind == "f":  # the sign of zero too (round(-0.5) is -0.0); a NaN's sign bit means nothing
        want = np.asarray(_decode(ref["value"]), np.float64)
        keep = ~np.isnan(want)
        assert np.array_equal(np.signbit(a)[keep], np.signbit(want)[keep])


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
