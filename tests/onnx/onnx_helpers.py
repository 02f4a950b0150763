"""Export a function or Layer, run it in onnxruntime, compare with oar eager."""
import os
import itertools
import tempfile

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import oar  # noqa: E402
from oar.onnx.exporter import inference_program  # noqa: E402
from oar.static import InputSpec  # noqa: E402


def specs_of(arrays, dynamic=False):
    return [InputSpec([None] + list(a.shape[1:]) if dynamic and a.ndim else list(a.shape), str(a.dtype), f"in{i}")
            for i, a in enumerate(arrays)]


# every exported model goes under one folder, removed when the test process exits (a folder per export was
# left in /tmp before: ~700 per run)
EXPORTS = tempfile.TemporaryDirectory(prefix="oar-onnx-tests-")
_count = itertools.count()


def export_model(fn, specs, **kw):
    """Exports and returns (path, checked ModelProto, InferenceSession)."""
    path = oar.onnx.export(fn, os.path.join(EXPORTS.name, f"m{next(_count)}"), input_spec=specs, **kw)
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return path, model, sess


def run(sess, arrays):
    return sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), arrays)})


def eager(fn, arrays):
    out = fn(*[oar.to_tensor(a) for a in arrays])
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [o.numpy() for o in outs]


def check(fn, *arrays, op=None, dynamic=False, rtol=1e-5, atol=1e-6, more=()):
    """`fn` exported on `arrays` equals eager; `op` (a type or list) must appear in the exported program;
    `more`: further input tuples run through the same model (other batch sizes)."""
    arrays = [np.asarray(a) for a in arrays]
    specs = specs_of(arrays, dynamic)
    if op is not None:
        prog = inference_program(oar.jit.to_static(fn, input_spec=specs), specs)[0]
        types = {o.type for b in prog.blocks for o in b.ops}
        for t in [op] if isinstance(op, str) else op:
            assert t in types, f"op {t} not in exported program: {sorted(types)}"
    _, model, sess = export_model(fn, specs)
    for inputs in [arrays] + [list(m) for m in more]:
        got = run(sess, inputs)
        want = eager(fn, inputs)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape, (g.shape, w.shape)
            assert g.dtype == w.dtype, (g.dtype, w.dtype)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return model
