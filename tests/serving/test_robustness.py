"""Issue 25, serving: a client that disconnects mid-body is one log line (no traceback); JSON data must be finite
numbers the datatype can hold (docs/serving.md, "Numbers in JSON"); the batching probe tolerates rounding
relative to the output's scale and still catches rows that interact."""
import json
import logging
import socket
import time
from types import SimpleNamespace

import numpy as np
import pytest

from oar.serving import ProtocolError, TensorSpec
from oar.serving.model import rows_agree
from oar.serving.protocol import decode_request, split_body

from test_protocol import assert_still_serving


def test_client_disconnecting_mid_body_is_one_log_line(server, client, saved, caplog):
    caplog.set_level(logging.INFO, logger="oar.serving")
    for _ in range(3):
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(b"POST /v2/models/mlp/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 1000\r\n\r\n{\"inputs\": [")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and sum("disconnected" in r.getMessage() for r in caplog.records) < 3:
        time.sleep(0.05)
    mine = [r for r in caplog.records if r.name == "oar.serving"]
    assert sum("disconnected while sending the body of /v2/models/mlp/infer (12 of 1000 bytes" in r.getMessage()
               for r in mine) == 3
    assert not any(r.exc_info or "internal error" in r.getMessage() for r in mine)
    assert_still_serving(client, saved)


def model_of(dtype, datatype):
    spec = TensorSpec({"name": "x", "shape": [-1], "dtype": dtype})
    assert spec.datatype == datatype
    return SimpleNamespace(name="m", inputs=[spec], input_names=["x"], input_index={"x": 0}, output_names=[],
                           output_index={})


@pytest.mark.parametrize("text, shown", [("NaN", "nan"), ("Infinity", "inf"), ("-Infinity", "-inf"),
                                         ("1e999", "inf"), ("-1e999", "-inf")])
def test_non_finite_json_numbers_are_refused(text, shown):
    body = f'{{"inputs": [{{"name": "x", "shape": [2], "datatype": "FP32", "data": [1.5, {text}]}}]}}'.encode()
    doc, tail = split_body(body, None)
    with pytest.raises(ProtocolError, match=f"input 'x': 'data' holds {shown} where FP32 needs a finite number"):
        decode_request(doc, tail, model_of("float32", "FP32"))


def test_json_numbers_beyond_the_datatype_are_refused_not_made_infinite():
    doc = {"inputs": [{"name": "x", "shape": [2], "datatype": "FP16", "data": [1.0, 70000.0]}]}
    with pytest.raises(ProtocolError, match="holds 70000.0 where FP16 needs a finite number"):
        decode_request(doc, b"", model_of("float16", "FP16"))
    doc["inputs"][0]["data"] = [1.0, 65504.0]  # the largest float16
    assert decode_request(doc, b"", model_of("float16", "FP16"))[0][0].tolist() == [1.0, 65504.0]


def test_binary_data_may_carry_non_finite_values():
    a = np.array([np.nan, np.inf], "float32")
    doc = {"inputs": [{"name": "x", "shape": [2], "datatype": "FP32", "parameters": {"binary_data_size": 8}}]}
    got = decode_request(json.loads(json.dumps(doc)), a.tobytes(), model_of("float32", "FP32"))[0][0]
    assert np.isnan(got[0]) and got[1] == np.inf


def test_batched_outputs_agree_up_to_rounding_relative_to_their_scale():
    rng = np.random.default_rng(0)
    logits = (rng.standard_normal([3, 1000]) * 40).astype("float32")
    logits[0, 0] = 183.0
    noisy = logits + rng.uniform(-9e-5, 9e-5, logits.shape).astype("float32")  # what resnet18's batched run does
    assert rows_agree(noisy, logits)
    assert not np.allclose(noisy, logits, rtol=1e-4, atol=1e-5)  # the old fixed tolerances turned batching off
    assert not rows_agree(logits - logits.mean(axis=0), logits)  # rows that interact (a batch statistic)
    assert not rows_agree(logits + 0.05, logits)
    assert not rows_agree(logits[:2], logits)
    with_nan = logits.copy()
    with_nan[1, 3] = np.nan
    assert rows_agree(with_nan, with_nan.copy()) and not rows_agree(with_nan, logits)
    assert rows_agree(np.array([1, 2]), np.array([1, 2])) and not rows_agree(np.array([1, 2]), np.array([1, 3]))
    half = logits.astype("float16")
    assert rows_agree(half + np.float16(0.05), half) and not rows_agree(half + np.float16(8), half)
