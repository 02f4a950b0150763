"""`oar inspect PATH` prints the program, inputs/outputs, parameter count and size, and format version."""
import os
import subprocess
import sys

import numpy as np

import oar
from oar.cli import main
from oar.graph.model_files import MODEL_FORMAT_VERSION
from oar.static import InputSpec
from oar.graph.serialize import FORMAT_VERSION
from oar.jit.save_load import records_from_concrete, save_records

from fake_concrete import FakeConcrete, param


def test_inspect(tmp_path, capsys):
    w = param([4, 3])
    cp = FakeConcrete(lambda x: oar.matmul(x, w), [("x", [-1, 4], "float32")])
    prefix = str(tmp_path / "m")
    save_records(prefix, *records_from_concrete([("forward", cp)]))
    assert main(["inspect", prefix]) == 0
    out = capsys.readouterr().out
    assert "program JSON v1" in out and "x : float32[-1, 4]" in out
    assert "parameters: 1 tensors, 12 values, 48 B" in out
    assert "= matmul(x=x" in out
    assert main(["inspect", prefix + ".pdmodel"]) == 0


def test_inspect_missing(tmp_path, capsys):
    assert main(["inspect", str(tmp_path / "nope")]) == 1
    assert "model file not found" in capsys.readouterr().err


def test_inspect_a_params_file(tmp_path, capsys):
    """A .pdparams / .pdopt file (oar.save / paddle.save) is printed as its tensors, not looked up as PATH.pdmodel."""
    net = oar.nn.Linear(4, 3)
    path = str(tmp_path / "net.pdparams")
    oar.save(net.state_dict(), path)
    assert main(["inspect", path]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:4] == [f"file: {path} (written by oar.save / paddle.save; a state dict, not a model: "
                                    "no program)", "tensors: 2, 15 values, 60 B",
                                    "  weight : float32[4, 3]", "  bias : float32[3]"]
    opt = str(tmp_path / "adam.pdopt")
    oar.save({"step": 7, "moments": [np.ones(2, "float32")]}, opt)
    assert main(["inspect", opt]) == 0
    assert "  step = 7\n  moments[0] : float32[2]\n" in capsys.readouterr().out
    assert main(["inspect", str(tmp_path / "missing.pdparams")]) == 1
    assert capsys.readouterr().err.strip() == f"oar inspect: {tmp_path / 'missing.pdparams'}: no such file"
    junk = tmp_path / "junk.pdparams"
    junk.write_text("not a checkpoint")
    assert main(["inspect", str(junk)]) == 1
    assert "not readable as a file written by oar.save / paddle.save" in capsys.readouterr().err


def test_inspect_accepts_the_pdiparams_file(tmp_path, capsys):
    net = oar.nn.Linear(4, 2)
    prefix = str(tmp_path / "m")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    assert main(["inspect", prefix + ".pdiparams"]) == 0
    assert f"model: {prefix}\n" in capsys.readouterr().out


def console_script():
    """The `oar` command that ``pip install -e .`` puts next to this interpreter (pyproject [project.scripts])."""
    path = os.path.join(os.path.dirname(sys.executable), "oar")
    assert os.path.isfile(path), f"{path} is missing: run `pip install -e .` to install the console script"
    return path


def test_console_script_inspects_a_saved_layer(tmp_path):
    net = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.ReLU(), oar.nn.Linear(8, 2))
    net.eval()
    prefix = str(tmp_path / "mlp")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    r = subprocess.run([console_script(), "inspect", prefix], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert f"model: {prefix}\nformat: oar.model v{MODEL_FORMAT_VERSION}, program JSON v{FORMAT_VERSION}\n" in out
    assert "== method forward (saved in eval mode) ==" in out
    assert "inputs:\n  x : float32[-1, 4]\n" in out
    assert "outputs:\n" in out and ": float32[-1, 2]" in out
    assert "parameters: 4 tensors, 58 values, 232 B" in out  # 4*8 + 8 + 8*2 + 2 float32 values
    assert "matmul(" in out and "relu(" in out


def test_console_script_reports_bad_files(tmp_path):
    bad = tmp_path / "bad.pdmodel"
    bad.write_text("{not json")
    r = subprocess.run([console_script(), "inspect", str(bad)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "bad.pdmodel: not a valid model" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([console_script(), "inspect", str(tmp_path / "nope")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "model file not found" in r.stderr


def test_inspect_special_files_and_os_errors_are_one_line(tmp_path, capsys, monkeypatch):
    os.mkfifo(tmp_path / "fifo.pdmodel")
    os.symlink("/dev/zero", tmp_path / "zero.pdmodel")
    for name in ("fifo", "zero"):
        assert main(["inspect", str(tmp_path / name)]) == 1
        err = capsys.readouterr().err
        assert "is not a regular file" in err and err.count("\n") == 1
    from oar.jit import save_load

    def denied(path):
        raise PermissionError(13, "Permission denied", path + ".pdmodel")
    monkeypatch.setattr(save_load, "saved_methods", denied)
    assert main(["inspect", str(tmp_path / "m")]) == 1
    err = capsys.readouterr().err
    assert err == f"oar inspect: {tmp_path / 'm'}.pdmodel: Permission denied\n"


def test_console_script_into_a_closed_pipe_stops_quietly(tmp_path):
    """`oar inspect m | head -1`: the reader closes the pipe; no BrokenPipe message or traceback on stderr."""
    net = oar.nn.Sequential(*[oar.nn.Linear(4, 4) for _ in range(200)])  # ~150 kB: more than a pipe holds
    prefix = str(tmp_path / "deep")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    p = subprocess.Popen([console_script(), "inspect", prefix], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = p.stdout.readline()
    p.stdout.close()  # the reader leaves after one line, as `head -1` does
    err = p.stderr.read().decode()
    p.wait(timeout=120)
    assert first.startswith(b"model: ")
    assert err == "", err
