"""Missing, truncated, corrupted and hostile model files give clear ValueErrors naming the file; a fixed-seed
fuzzer mutates saved files (byte flips, truncation, JSON field mutation) and loading never crashes otherwise."""
import json
import os
import random
import shutil
import signal
import tracemalloc

import numpy as np
import pytest

import oar
from oar.jit.save_load import load, load_state_dict_from_prefix

from test_save_load_files import mlp_concrete, save

OK_ERRORS = (ValueError, RuntimeError)


@pytest.fixture
def prefix(tmp_path):
    cp, _ = mlp_concrete()
    return save(tmp_path, cp)


def edit_json(path, fn):
    d = json.load(open(path))
    fn(d)
    with open(path, "w") as f:
        json.dump(d, f)


def prog_ops(d):
    return d["program"]["blocks"][0]["ops"]


def test_missing_files(prefix):
    with pytest.raises(ValueError, match=r"nothere\.pdmodel: model file not found"):
        load(os.path.dirname(prefix) + "/nothere")
    os.remove(prefix + ".pdiparams")
    with pytest.raises(ValueError, match=r"m\.pdiparams: parameters file not found"):
        load(prefix)


def test_truncated_files(prefix):
    data = open(prefix + ".pdmodel", "rb").read()
    open(prefix + ".pdmodel", "wb").write(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"m\.pdmodel: not a valid model"):
        load(prefix)


def test_truncated_weights(prefix):
    data = open(prefix + ".pdiparams", "rb").read()
    open(prefix + ".pdiparams", "wb").write(data[:-10])
    with pytest.raises(ValueError, match=r"m\.pdiparams: corrupted or truncated"):
        load(prefix)


@pytest.mark.parametrize("mutate,match", [
    (lambda d: prog_ops(d)[0].__setitem__("type", "os_system"), "unknown op type 'os_system'"),
    (lambda d: d.__setitem__("inputs", "x"), "'inputs' must be a list"),
    (lambda d: d["inputs"][0].__setitem__("shape", [10 ** 12, 10 ** 12]), "more than"),
    (lambda d: d["inputs"][0].__setitem__("name", "nope"), "does not declare"),
    (lambda d: d.__setitem__("params", ["ghost"]), "not a persistable variable"),
    (lambda d: d.__setitem__("output_structure", [7]), "output_structure"),
    (lambda d: d.__setitem__("version", 999), "version 999 is not supported"),
    (lambda d: d.__setitem__("format", "pickle"), "not an oar model file"),
    (lambda d: d["program"]["blocks"][0]["vars"][1].__setitem__("shape", [5, 5]), "has shape"),
    (lambda d: prog_ops(d)[0]["inputs"].__setitem__("x", ["ghost"]), "dangling"),
])
def test_hostile_model_json(prefix, mutate, match):
    edit_json(prefix + ".pdmodel", mutate)
    with pytest.raises(ValueError, match=match) as e:
        load(prefix)
    assert "m.pdmodel" in str(e.value) or "m.pdiparams" in str(e.value)


def test_weight_dtype_mismatch(prefix, tmp_path):
    from safetensors.numpy import load_file, save_file
    w = load_file(prefix + ".pdiparams")
    w["fc_0.w_0"] = w["fc_0.w_0"].astype("float64")
    save_file(w, prefix + ".pdiparams")
    with pytest.raises(ValueError, match="dtype float64 but the program declares float32"):
        load(prefix)


def test_hostile_info(prefix):
    open(prefix + ".pdiparams.info", "w").write('{"format": "oar.params_info", "version": 1, "params": [1]}')
    with pytest.raises(ValueError, match=r"m\.pdiparams\.info: not an oar parameter info"):
        load(prefix)
    with pytest.raises(ValueError, match=r"pdiparams\.info"):
        load_state_dict_from_prefix(prefix)


def test_deeply_nested_json(prefix):
    open(prefix + ".pdmodel", "w").write("[" * 100000 + "]" * 100000)
    with pytest.raises(ValueError, match="m.pdmodel"):
        load(prefix)


def _mutate_json_value(rng, d, depth=0):
    """Replaces one random field somewhere in `d` with a value of a wrong or odd type."""
    odd = [None, -1, 2 ** 62, "x", [], {}, 1.5, True, [[[]]], {"a": 1}, "float32", [-1, 3]]
    node = d
    for _ in range(12):
        if isinstance(node, dict) and node:
            k = rng.choice(sorted(node))
            if rng.random() < 0.35 or not isinstance(node[k], (dict, list)) or not node[k]:
                node[k] = rng.choice(odd)
                return
            node = node[k]
        elif isinstance(node, list) and node:
            i = rng.randrange(len(node))
            if rng.random() < 0.35 or not isinstance(node[i], (dict, list)) or not node[i]:
                node[i] = rng.choice(odd)
                return
            node = node[i]
        else:
            return


def _try_load(prefix):
    """Loads (and, when it loads, runs) a possibly damaged model; returns 'rejected' or 'ran'. Any error other
    than ValueError/RuntimeError fails the test, as does a trial that runs long or allocates a lot."""
    try:
        m = load(prefix)
    except OK_ERRORS as e:
        assert os.path.basename(prefix) in str(e) or "invalid program" in str(e), str(e)
        return "rejected"
    m.eval()
    try:  # a model that loads must run or fail with a clear error
        m(oar.to_tensor(np.ones([2, 4], np.float32)))
    except OK_ERRORS:
        return "rejected"
    return "ran"


class _TooSlow(Exception):
    pass


def _alarm(signum, frame):
    raise _TooSlow("one fuzz trial ran over 20 s (a hang)")


def test_fuzz_saved_files(prefix, tmp_path):
    rng = random.Random(1234)
    good = str(tmp_path / "good")
    os.makedirs(good)
    for s in (".pdmodel", ".pdiparams", ".pdiparams.info"):
        shutil.copy(prefix + s, os.path.join(good, "m" + s))
    outcomes = {"rejected": 0, "ran": 0}
    old = signal.signal(signal.SIGALRM, _alarm)
    tracemalloc.start()
    try:
        for trial in range(200):
            for s in (".pdmodel", ".pdiparams", ".pdiparams.info"):
                shutil.copy(os.path.join(good, "m" + s), prefix + s)
            target = prefix + rng.choice([".pdmodel", ".pdmodel", ".pdiparams", ".pdiparams.info"])
            kind = rng.choice(["flip", "truncate", "json"])
            original = open(target, "rb").read()
            data = bytearray(original)
            if kind == "flip":
                for _ in range(rng.randint(1, 8)):
                    i = rng.randrange(len(data))
                    data[i] ^= 1 << rng.randrange(8)
                new = bytes(data)
            elif kind == "truncate":
                new = bytes(data[: rng.randrange(len(data))])
            elif target.endswith(".pdiparams"):
                continue
            else:
                d = json.loads(data)
                _mutate_json_value(rng, d)
                new = json.dumps(d).encode()
            if new == original:
                continue
            open(target, "wb").write(new)
            tracemalloc.reset_peak()
            signal.alarm(20)
            try:
                outcomes[_try_load(prefix)] += 1
            finally:
                signal.alarm(0)
            peak = tracemalloc.get_traced_memory()[1]
            assert peak < 64 << 20, f"trial {trial} ({kind} {target}) allocated {peak} bytes"
    finally:
        tracemalloc.stop()
        signal.signal(signal.SIGALRM, old)
    assert outcomes["rejected"] > 100, outcomes  # the mutations really damage the files


def test_huge_shape_in_a_program_attribute_is_rejected_before_allocation(prefix):
    def grow(d):
        ops = prog_ops(d)
        ops.insert(0, {"type": "full", "inputs": {}, "outputs": {"out": ["fc_0.w_0"]},
                       "attrs": {"shape": [2 ** 17, 2 ** 17], "value": 0.0, "dtype": "float32"}, "loc": None})
    edit_json(prefix + ".pdmodel", grow)
    with pytest.raises(ValueError, match=r"m\.pdmodel.*attr 'shape'.*more than"):
        load(prefix)


def test_unknown_attribute_is_rejected(prefix):
    edit_json(prefix + ".pdmodel", lambda d: prog_ops(d)[0]["attrs"].__setitem__("__class__", "os.system"))
    with pytest.raises(ValueError, match=r"m\.pdmodel.*attribute '__class__' is not one of"):
        load(prefix)


def test_oversized_model_file_rejected_before_reading(prefix, monkeypatch):
    from oar.graph import model_files
    monkeypatch.setattr(model_files, "MAX_JSON_BYTES", 100)
    with pytest.raises(ValueError, match=r"m\.pdmodel: model \(\.pdmodel\) file is \d+ bytes, over the 100-byte"):
        load(prefix)
