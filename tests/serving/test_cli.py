"""`oar serve` as a process: starts on a free port, answers tritonclient, stops cleanly on SIGTERM; a bad model
file or bad arguments exit with a message."""
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import tritonclient.http as httpclient

import oar
from oar.cli import main

from serving_models import rand, reference

REPO = os.path.dirname(os.path.dirname(oar.__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_oar_serve_process(saved, tmp_path):
    port = free_port()
    cmd = [sys.executable, "-m", "oar.cli", "serve", saved["mlp"][0], saved["two"][0], "--name", "a", "--name", "b",
           "--port", str(port), "--max-batch-size", "8", "--batch-timeout-ms", "1", "--workers", "2",
           "--log-level", "info"]
    proc = subprocess.Popen(cmd, env=dict(os.environ, PYTHONPATH=REPO), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        client = httpclient.InferenceServerClient(f"127.0.0.1:{port}", connection_timeout=5, network_timeout=30)
        deadline = time.monotonic() + 60
        while True:
            try:
                if client.is_server_ready():
                    break
            except Exception:  # noqa: BLE001  (not listening yet)
                pass
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "oar serve did not become ready within 60 s"
            time.sleep(0.1)
        assert client.is_model_ready("a") and client.is_model_ready("b") and not client.is_model_ready("mlp")
        x = rand([3, 4], seed=5)
        i = httpclient.InferInput("x", [3, 4], "FP32")
        i.set_data_from_numpy(x)
        r = client.infer("a", [i])
        np.testing.assert_allclose(r.as_numpy(r.get_response()["outputs"][0]["name"]),
                                   reference(saved["mlp"][1], x)[0], rtol=1e-5, atol=1e-6)
        client.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
    # uvicorn shuts down gracefully, then re-raises the signal it caught (so the exit status says SIGTERM)
    assert proc.returncode in (0, -signal.SIGTERM), err
    assert "Finished server process" in err, err
    assert "model 'a'" in err and "batches of up to 8 rows" in err


def test_oar_serve_errors(saved, tmp_path, capsys):
    assert main(["serve", str(tmp_path / "missing")]) == 1
    err = capsys.readouterr().err
    assert "missing.pdmodel" in err and "not found" in err
    assert main(["serve", saved["mlp"][0], saved["two"][0], "--name", "x"]) == 1
    assert "once per PREFIX" in capsys.readouterr().err
    assert main(["serve", saved["mlp"][0], saved["mlp"][0]]) == 1
    assert "repeat" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve"])
