"""The one safetensors writer/reader (oar.core.safetensors_file) behind oar.save and .pdiparams."""
import json
import types

import ml_dtypes
import numpy as np
import pytest

import oar
from oar.core import dtype as D
from oar.core import safetensors_file as SF
from oar.graph.model_files import read_weights


def _header(path):
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    return json.loads(raw[8:8 + n])


def test_round_trip_with_metadata_and_bfloat16_as_BF16(tmp_path):
    path = str(tmp_path / "w.safetensors")
    arrays = {"f": np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::2],   # not contiguous
              "b": (np.arange(4, dtype=np.float32) + 0.5).astype(ml_dtypes.bfloat16),
              "s": np.array(3, np.int64), "m": np.array([True, False])}
    SF.write(path, arrays, metadata={"by": "oar"})
    h = _header(path)
    assert h["__metadata__"] == {"by": "oar"}
    assert {k: h[k]["dtype"] for k in arrays} == {"f": "F32", "b": "BF16", "s": "I64", "m": "BOOL"}
    got = SF.read_all(path)
    for k, a in arrays.items():
        assert got[k].dtype == a.dtype and got[k].shape == a.shape and got[k].flags.writeable
        np.testing.assert_array_equal(got[k].astype(np.float64), a.astype(np.float64))


def test_bfloat16_read_without_safetensors_numpy_support_matches(tmp_path):
    path = str(tmp_path / "w.safetensors")
    b = (np.arange(12, dtype=np.float32) / 7).astype(ml_dtypes.bfloat16).reshape(3, 4)
    SF.write(path, {"x": np.ones(3, np.float32), "b": b})
    with SF.SafetensorsFile(path) as f:
        assert f.dtype("b") == "bfloat16" and f.shape("b") == [3, 4]
        raw = f.get("b")
    assert raw.dtype == b.dtype
    np.testing.assert_array_equal(raw.view(np.uint16), b.view(np.uint16))


def test_unsupported_dtype_and_damage_are_clear(tmp_path):
    with pytest.raises(TypeError, match="'o' has dtype object"):
        SF.encode({"o": np.array([object()])})
    path = tmp_path / "bad.safetensors"
    path.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}")
    with pytest.raises(ValueError, match="bad.safetensors: corrupted or truncated"):
        SF.read_all(str(path))


def test_oar_save_writes_BF16(tmp_path):
    path = str(tmp_path / "ckpt.pdparams")
    oar.save({"w": oar.to_tensor(np.ones(3, ml_dtypes.bfloat16))}, path)
    assert [v["dtype"] for k, v in _header(path).items() if k != "__metadata__"] == ["BF16"]
    assert oar.load(path)["w"].numpy().dtype == ml_dtypes.bfloat16


def test_pdiparams_bfloat16_and_files_of_older_oar(tmp_path):
    var = types.SimpleNamespace(dtype=D.bfloat16, shape=[2])
    b = np.array([1.5, -2.0], ml_dtypes.bfloat16)
    new, old = str(tmp_path / "new.pdiparams"), str(tmp_path / "old.pdiparams")
    SF.write(new, {"w": b})
    SF.write(old, {"w": b.view(np.uint16)})           # how oar stored bfloat16 before: its raw bits as U16
    for path in (new, old):
        got = read_weights(path, {"w": var})["w"]
        assert got.dtype == ml_dtypes.bfloat16
        np.testing.assert_array_equal(got.view(np.uint16), b.view(np.uint16))
    with pytest.raises(ValueError, match="has dtype bfloat16 but the program declares float32"):
        read_weights(new, {"w": types.SimpleNamespace(dtype=D.float32, shape=[2])})
