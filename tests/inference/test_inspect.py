"""`oar inspect PATH` prints the program, inputs/outputs, parameter count and size, and format version."""
import subprocess
import sys

import oar
from oar.cli import main
from oar.jit.save_load import records_from_concrete, save_records

from inference_helpers import FakeConcrete, param


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


def test_console_entry_point_runs(tmp_path):
    r = subprocess.run([sys.executable, "-m", "oar.cli", "inspect", str(tmp_path / "nope")], capture_output=True,
                       text=True)
    assert r.returncode == 1 and "model file not found" in r.stderr
