"""A saved model loads in a fresh process that only ran ``import oar``, even when its program holds ops that
register only when some submodule is imported (dynamic-shape ops, tensor-array ops of dy2static, fused ops of
oar.passes)."""
import json
import os
import subprocess
import sys

import numpy as np

import oar
from oar.static import InputSpec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fresh_python(code):
    """Runs `code` in a new interpreter (only what it imports is loaded); returns its stdout."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_every_op_is_known_to_the_validator_after_import_oar():
    all_ops = json.loads(fresh_python(
        "import importlib, json, pkgutil, oar\n"
        "for m in pkgutil.walk_packages(oar.__path__, 'oar.'):\n"
        "    importlib.import_module(m.name)\n"
        "from oar.ops.registry import REGISTRY\nprint(json.dumps(sorted(REGISTRY)))"))
    known = json.loads(fresh_python(
        "import json, oar\nfrom oar.graph.op_schema import schema_for\nprint(json.dumps(sorted(schema_for())))"))
    assert set(all_ops) - set(known) == set()


@oar.jit.to_static
def dynamic_and_arrays(x):
    n = x.shape[0]
    y = oar.reshape(x, [n, -1]) * 2.0  # reshape_dynamic
    parts = []
    i = oar.zeros([1], "int64")
    while i < 3:  # a list built in a tensor-dependent loop: tensor-array ops
        parts.append(y + i.astype("float32"))
        i = i + 1
    last = parts.pop()  # array_popped / array_delete (oar.jit.array_ops)
    return oar.nn.functional.relu(last + y)


def test_program_with_lazily_registered_ops_loads_in_fresh_process(tmp_path):
    prefix = str(tmp_path / "dyn")
    oar.jit.save(dynamic_and_arrays, prefix, input_spec=[InputSpec([None, 2, 3], "float32", "x")])
    types = {op.type for b in oar.jit.load(prefix).program().blocks for op in b.ops}
    assert "reshape_dynamic" in types and types & {"array_popped", "array_delete"}, types
    x = np.random.default_rng(0).standard_normal([4, 2, 3]).astype("float32")
    np.save(tmp_path / "x.npy", x)
    want = dynamic_and_arrays(oar.to_tensor(x)).numpy()
    got = fresh_python(
        "import json, numpy as np, oar\n"
        f"m = oar.jit.load({prefix!r})\n"
        f"x = np.load({str(tmp_path / 'x.npy')!r})\n"
        "print(json.dumps(m(oar.to_tensor(x)).numpy().tolist()))")
    np.testing.assert_allclose(np.array(json.loads(got), np.float32), want, rtol=1e-6)


def test_fused_ops_from_passes_load_in_fresh_process(tmp_path):
    from oar.jit.save_load import load, records_from_concrete, save_records
    from oar.passes import apply_passes
    from fake_concrete import FakeConcrete, param
    w, b = param([4, 3], 1), param([3], 2)
    cp = FakeConcrete(lambda x: oar.nn.functional.relu(oar.matmul(x, w) + b), [("x", [-1, 4], "float32")])
    records, tensors, info = records_from_concrete([("forward", cp)])
    rec = records["forward"]
    fused = apply_passes(rec.program, ["fuse_elewise_add_act"], keep=rec.output_names)
    assert "fused_elemwise_add_act" in [op.type for op in fused.global_block().ops]
    rec.program = rec.infer_program = fused
    prefix = str(tmp_path / "fused")
    save_records(prefix, records, tensors, info)
    x = np.ones([2, 4], np.float32)
    want = load(prefix)(oar.to_tensor(x)).numpy()
    np.testing.assert_allclose(want, np.maximum(x @ w.numpy() + b.numpy(), 0), rtol=1e-6)
    got = fresh_python(
        "import json, numpy as np, oar\n"
        f"m = oar.jit.load({prefix!r})\n"
        "print(json.dumps(m(oar.ones([2, 4])).numpy().tolist()))")
    np.testing.assert_allclose(np.array(json.loads(got), np.float32), want, rtol=1e-6)
