"""Damaged and hostile Paddle model files: every failure is a ValueError naming the file, found before memory is
allocated for what the file claims, within the load budget."""
import json
import os
import shutil
import struct

import numpy as np
import pytest

import oar
from oar.graph.budget import Budget
from oar.graph.model_files import load_files
from oar.graph.paddle_files import params, wire

HERE = os.path.join(os.path.dirname(__file__), "paddle_models")


def _copy(tmp_path, fmt, name="convnet"):
    ext = ".json" if fmt == "pir" else ".pdmodel"
    for e in (ext, ".pdiparams"):
        shutil.copy(os.path.join(HERE, fmt, name + e), tmp_path / (name + e))
    return str(tmp_path / name), str(tmp_path / (name + ext))


def _load(prefix):
    return oar.jit.load(prefix)


def test_truncated_legacy_model_files(tmp_path):
    prefix, model = _copy(tmp_path, "legacy")
    raw = open(model, "rb").read()
    for cut in range(1, len(raw), max(1, len(raw) // 60)):
        open(model, "wb").write(raw[:cut])
        with pytest.raises(ValueError, match="convnet.pdmodel"):
            _load(prefix)


def test_fuzzed_legacy_model_files_fail_cleanly(tmp_path):
    prefix, model = _copy(tmp_path, "legacy")
    raw = bytearray(open(model, "rb").read())
    rng = np.random.default_rng(0)
    for _ in range(150):
        data = bytearray(raw)
        for i in rng.integers(0, len(data), 4):
            data[i] = int(rng.integers(0, 256))
        open(model, "wb").write(bytes(data))
        try:
            _load(prefix)
        except ValueError as e:
            assert "convnet" in str(e)


def test_pir_files_with_wrong_structure(tmp_path):
    prefix, model = _copy(tmp_path, "pir")
    doc = json.load(open(model))
    variants = {
        "magic": dict(doc, base_code={"magic": "nope"}),
        "version": dict(doc, base_code={"magic": "pir", "version": 99}),
        "no ops": dict(doc, program={"regions": []}),
        "op not object": dict(doc, program={"regions": [{"blocks": [{"ops": [1]}]}]}),
    }
    expected = {"magic": "not a Paddle PIR", "version": "version 99", "no ops": "no program.regions",
                "op not object": "not an object"}
    for key, d in variants.items():
        json.dump(d, open(model, "w"))
        with pytest.raises(ValueError, match=expected[key]) as e:
            _load(prefix)
        assert "convnet.json" in str(e.value)
    open(model, "w").write("[" * 100000)
    with pytest.raises(ValueError, match="convnet.json"):
        _load(prefix)


def test_unknown_op_type_is_named(tmp_path):
    prefix, model = _copy(tmp_path, "pir")
    text = open(model).read().replace('"1.relu"', '"1.frobnicate"')
    open(model, "w").write(text)
    with pytest.raises(ValueError, match=r"convnet.json: op #\d+ 'frobnicate' has no oar translation"):
        _load(prefix)


def _header(dims, dtype_code=5):
    desc = b"\x08" + bytes([dtype_code]) + b"".join(b"\x10" + params._varint(d) for d in dims)
    return struct.pack("<IQI", 0, 0, 0) + struct.pack("<i", len(desc)) + desc


def test_parameter_files_that_do_not_match(tmp_path):
    prefix, _ = _copy(tmp_path, "legacy")
    pdiparams = prefix + ".pdiparams"
    raw = open(pdiparams, "rb").read()
    open(pdiparams, "wb").write(raw[:-3])
    with pytest.raises(ValueError, match="truncated parameters file"):
        _load(prefix)
    open(pdiparams, "wb").write(raw + b"\0" * 8)
    with pytest.raises(ValueError, match="bytes after the last parameter"):
        _load(prefix)
    # the first parameter (sorted by name) claims 2**40 elements: refused from the header, nothing allocated
    open(pdiparams, "wb").write(_header([1 << 40]) + raw[len(_header([8])):])
    with pytest.raises(ValueError, match="declares"):
        _load(prefix)
    open(pdiparams, "wb").write(_header([8], dtype_code=6) + raw[len(_header([8])):])
    with pytest.raises(ValueError, match="stored as float64"):
        _load(prefix)


def test_params_round_trip():
    a = {"b": np.arange(6, dtype=np.float32).reshape(2, 3), "a": np.array([1, 2], np.int64)}
    import io
    buf = io.BytesIO()
    params.write(buf, a)
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"oar_params_{os.getpid()}.pdiparams")
    try:
        open(path, "wb").write(buf.getvalue())
        got = params.read(path, ["a", "b"], {"a": ("int64", [2]), "b": ("float32", [2, 3])})
    finally:
        os.remove(path)
    assert all(np.array_equal(got[k], a[k]) and got[k].dtype == a[k].dtype for k in a)


def test_protobuf_field_count_is_bounded_by_the_budget(tmp_path):
    prefix, model = _copy(tmp_path, "legacy")
    # a block with 200,000 empty vars: tiny on disk, many Python objects once decoded
    block = b"\x08\x00\x10\x00" + b"\x1a\x00" * 200_000
    open(model, "wb").write(b"\x0a" + params._varint(len(block)) + block)
    with pytest.raises(ValueError, match="decode budget"):
        load_files(model, prefix + ".pdiparams", Budget(max_bytes=1 << 20))


def test_wire_reader_rejects_lengths_past_the_end():
    with pytest.raises(ValueError, match="past the end"):
        wire.decode(b"\x0a\xff\x01ab", {1: ("s", "str", False)})
    with pytest.raises(ValueError, match="varint"):
        wire.decode(b"\x08\xff\xff", {1: ("n", "int64", False)})
