"""Writes tests/ops/dtype_sweep_ref.json: what Paddle returns for the calls of tests/ops/dtype_sweep_cases.py.

Run with a Python that has paddlepaddle installed (3.3.1 for the committed file):
    /work/paddle_venv/bin/python tools/paddle_refs/dtype_sweep.py
Each entry is the output dtype name (or "error"), and for VALUE_CASES the values as a list (NaN as the string
"nan", infinities as "inf"/"-inf").
"""
import json
import math
import pathlib
import sys
import warnings

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "ops"))
from dtype_sweep_cases import DTYPE_CASES, DTYPES, VALUE_CASES, VALUES  # noqa: E402


def encode(v):
    if isinstance(v, list):
        return [encode(e) for e in v]
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def run(p, fn):
    try:
        out = fn()
    except Exception:  # a call the framework rejects
        return {"dtype": "error"}
    a = np.asarray(out._data if hasattr(out, "_data") and not hasattr(out, "place_") and
                   type(out).__module__.startswith("oar") else out.numpy())
    value = a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()
    return {"dtype": str(a.dtype), "shape": list(a.shape), "value": encode(value)}


def sweep(p):
    dtypes = {}
    for name, fn in DTYPE_CASES.items():
        row = dtypes[name] = {}
        for dt in DTYPES:
            row[dt] = run(p, lambda: fn(p, p.to_tensor(VALUES.get(dt, [1, 2, 4]), dtype=dt)))["dtype"]
    values = {name: run(p, lambda: fn(p)) for name, fn in VALUE_CASES.items()}
    return {"dtypes": dtypes, "values": values}


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    import paddle
    result = {"paddle": paddle.__version__, **sweep(paddle)}
    out = ROOT / "tests" / "ops" / "dtype_sweep_ref.json"
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out}")
