"""Saves leave no temporary files behind (and remove those of killed saves), oar.save is atomic, and oar.load
refuses special files and reads any nesting depth without recursion, with errors naming the file."""
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import oar
from oar.core import safe_files
from oar.core.safe_files import remove_stale_temps, write_files


def dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_stale_temporaries_of_killed_saves_are_removed(tmp_path):
    target = tmp_path / "net.pdmodel"
    stale = tmp_path / f".net.pdmodel.{dead_pid()}.tmp"
    live = tmp_path / f".net.pdmodel.{os.getppid()}.tmp"  # a save running in another live process: kept
    other = tmp_path / f".other.pdmodel.{dead_pid()}.tmp"
    for f in (stale, live, other):
        f.write_bytes(b"x" * 100)
    write_files({str(target): b"new"})
    assert target.read_bytes() == b"new"
    assert not stale.exists() and live.exists() and other.exists()
    assert remove_stale_temps(str(tmp_path / "other.pdmodel")) == 1


def test_jit_save_cleans_up_and_can_skip_fsync(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    prefix = str(tmp_path / "net")
    open(tmp_path / f".net.pdiparams.{dead_pid()}.tmp", "wb").write(b"partial")
    net = oar.nn.Linear(2, 2)
    oar.jit.save(net, prefix, input_spec=[oar.static.InputSpec([None, 2])], fsync=False)
    assert synced == []
    assert sorted(os.listdir(tmp_path)) == ["net.pdiparams", "net.pdiparams.info", "net.pdmodel"]
    oar.jit.save(net, prefix, input_spec=[oar.static.InputSpec([None, 2])])
    assert len(synced) >= 3  # each file, then the folder


def test_oar_save_is_atomic(tmp_path, monkeypatch):
    path = str(tmp_path / "ckpt.pdparams")
    oar.save({"w": oar.ones([2])}, path)

    def fail(path, data, fsync):
        raise OSError("disk full (simulated)")
    monkeypatch.setattr(safe_files, "_write_temp", fail)
    with pytest.raises(OSError, match="simulated"):
        oar.save({"w": oar.zeros([2])}, path)
    monkeypatch.undo()
    assert oar.load(path)["w"].numpy().tolist() == [1.0, 1.0]
    assert os.listdir(tmp_path) == ["ckpt.pdparams"]


def test_oar_load_refuses_special_files(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(ValueError, match="fifo: the oar.save file is not a regular file"):
        oar.load(str(tmp_path / "fifo"))


def _rewrite_structure(path, structure_text):
    """Replaces the oar_structure metadata of a safetensors file written by oar.save."""
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    header["__metadata__"]["oar_structure"] = structure_text
    new = json.dumps(header).encode()
    new += b" " * ((8 - len(new) % 8) % 8)
    open(path, "wb").write(struct.pack("<Q", len(new)) + new + data[8 + n:])


def test_oar_load_of_a_deep_structure_needs_no_recursion(tmp_path):
    path = str(tmp_path / "deep.pdparams")
    oar.save({"w": oar.ones([1])}, path)
    deep = "[" * 400 + '{"tensor": "t0", "kind": "ndarray"}' + "]" * 400
    _rewrite_structure(path, deep)
    obj = oar.load(path)
    for _ in range(400):
        obj = obj[0]
    assert obj.tolist() == [1.0]


@pytest.mark.parametrize("structure,match", [
    ('{"tensor": "t9", "kind": "tensor"}', "names no tensor"),
    ('{"tensor": ["t0"], "kind": "tensor"}', "names no tensor"),
    ('{"dict": [[["k"], 1]]}', "is not \\[key, value\\]"),
    ('{"dict": [1, 2]}', "is not \\[key, value\\]"),
    ("[" * 100000 + "]" * 100000, "RecursionError"),
    ("{nope", "JSONDecodeError"),
])
def test_oar_load_damaged_structure_names_the_file(tmp_path, structure, match):
    path = str(tmp_path / "bad.pdparams")
    oar.save({"w": oar.ones([1])}, path)
    _rewrite_structure(path, structure)
    with pytest.raises(ValueError, match=f"bad.pdparams' is damaged.*{match}"):
        oar.load(path)


def test_oar_load_wrong_metadata_types(tmp_path):
    path = str(tmp_path / "bad.pdparams")
    oar.save({"w": np.ones([1])}, path)
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    header["__metadata__"]["oar_format"] = "one"
    new = json.dumps(header).encode()
    open(path, "wb").write(struct.pack("<Q", len(new)) + new + data[8 + n:])
    with pytest.raises(ValueError, match="bad.pdparams.*format marker 'one' is not a version number"):
        oar.load(path)
