"""The Open Inference Protocol endpoints through the official tritonclient HTTP client, and raw HTTP for the
requests a well-behaved client never sends: results equal the layer's, every bad request gets a 4xx JSON error
and the server keeps serving."""
import gzip
import http.client
import json

import numpy as np
import pytest
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from serving_models import rand, reference


def infer(client, model, arrays, names, datatypes, binary=True, outputs=None):
    inputs = []
    for a, n, dt in zip(arrays, names, datatypes):
        i = httpclient.InferInput(n, list(a.shape), dt)
        i.set_data_from_numpy(a, binary_data=binary)
        inputs.append(i)
    req = None if outputs is None else [httpclient.InferRequestedOutput(o, binary_data=binary) for o in outputs]
    return client.infer(model, inputs, outputs=req)


def raw(server, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.getheader("Content-Type"), r.read()
    finally:
        conn.close()


def assert_still_serving(client, saved):
    x = rand([2, 4], seed=9)
    r = infer(client, "mlp", [x], ["x"], ["FP32"])
    np.testing.assert_allclose(r.as_numpy(r.get_response()["outputs"][0]["name"]), reference(saved["mlp"][1], x)[0],
                               rtol=1e-5, atol=1e-6)


def test_health_and_metadata(client, server):
    assert client.is_server_live() and client.is_server_ready()
    assert client.is_model_ready("mlp") and not client.is_model_ready("nope")
    meta = client.get_model_metadata("two")
    assert meta["name"] == "two" and meta["platform"] == "oar"
    assert meta["inputs"] == [{"name": "x", "datatype": "FP32", "shape": [-1, 4]},
                              {"name": "y", "datatype": "FP32", "shape": [-1, 3]}]
    assert [o["shape"] for o in meta["outputs"]] == [[-1, 3], [-1, 3]]
    assert client.get_model_metadata("lookup")["inputs"][0]["datatype"] == "INT64"
    assert client.get_server_metadata()["name"] == "oar"
    status, _, body = raw(server, "GET", "/v2/models/mlp/versions/1")
    assert status == 200 and json.loads(body)["name"] == "mlp"


@pytest.mark.parametrize("binary", [True, False])
def test_infer_equals_layer(client, saved, binary):
    x, y = rand([3, 4], seed=1), rand([3, 3], seed=2)
    r = infer(client, "two", [x, y], ["x", "y"], ["FP32", "FP32"], binary=binary)
    want = reference(saved["two"][1], x, y)
    outs = r.get_response()["outputs"]
    assert [o["name"] for o in outs] == [o["name"] for o in client.get_model_metadata("two")["outputs"]]
    for o, w in zip(outs, want):
        np.testing.assert_allclose(r.as_numpy(o["name"]), w, rtol=1e-5, atol=1e-6)
    ids = np.array([[1, 2], [9, 0]], dtype="int64")
    r = infer(client, "lookup", [ids], ["ids"], ["INT64"], binary=binary)
    np.testing.assert_allclose(r.as_numpy(r.get_response()["outputs"][0]["name"]),
                               reference(saved["lookup"][1], ids)[0], rtol=1e-6)


def test_requested_outputs_and_id(client, server, saved):
    names = [o["name"] for o in client.get_model_metadata("two")["outputs"]]
    x, y = rand([2, 4], seed=3), rand([2, 3], seed=4)
    r = infer(client, "two", [x, y], ["x", "y"], ["FP32", "FP32"], binary=False, outputs=[names[1]])
    assert [o["name"] for o in r.get_response()["outputs"]] == [names[1]]
    np.testing.assert_allclose(r.as_numpy(names[1]), reference(saved["two"][1], x, y)[1], rtol=1e-5, atol=1e-6)
    doc = {"id": "req-7", "inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32", "data": [[1, 2, 3, 4]]}]}
    status, ctype, body = raw(server, "POST", "/v2/models/mlp/infer", json.dumps(doc))
    assert status == 200 and ctype.startswith("application/json")
    out = json.loads(body)
    assert out["id"] == "req-7" and out["model_name"] == "mlp" and out["outputs"][0]["shape"] == [1, 3]
    want = reference(saved["mlp"][1], np.array([[1, 2, 3, 4]], "float32"))[0]
    np.testing.assert_allclose(np.array(out["outputs"][0]["data"]).reshape(1, 3), want, rtol=1e-5, atol=1e-6)
    status, _, body = raw(server, "POST", "/v2/models/mlp/infer", gzip.compress(json.dumps(doc).encode()),
                          {"Content-Encoding": "gzip"})
    assert status == 200 and json.loads(body)["id"] == "req-7"


@pytest.mark.parametrize("arrays,names,dts,status,match", [
    ([rand([2, 5])], ["x"], ["FP32"], 400, "shape \\[2, 5\\] does not match"),
    ([rand([2, 4], "float64")], ["x"], ["FP64"], 400, "datatype 'FP64' does not match the model's FP32"),
    ([rand([2, 4])], ["z"], ["FP32"], 400, "unknown input 'z'"),
    ([rand([2, 4]), rand([2, 4])], ["x", "x"], ["FP32", "FP32"], 400, "given twice"),
])
def test_bad_requests_client(client, saved, arrays, names, dts, status, match):
    with pytest.raises(InferenceServerException, match=match) as e:
        infer(client, "mlp", arrays, names, dts)
    assert e.value.status() == str(status)
    assert_still_serving(client, saved)


def test_bad_requests_raw(client, server, saved):
    good = {"inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32", "data": [1, 2, 3, 4]}]}
    cases = [
        ("POST", "/v2/models/mlp/infer", b"{not json", {}, 400, "malformed JSON"),
        ("POST", "/v2/models/mlp/infer", b"[1, 2]", {}, 400, "JSON object"),
        ("POST", "/v2/models/mlp/infer", json.dumps({"inputs": []}).encode(), {}, 400, "needs inputs \\['x'\\]"),
        ("POST", "/v2/models/mlp/infer", json.dumps({"inputs": [dict(good["inputs"][0], data=[1, 2])]}).encode(),
         {}, 400, "must hold 4 numbers"),
        ("POST", "/v2/models/mlp/infer", json.dumps({"inputs": [dict(good["inputs"][0], data=["a"] * 4)]}).encode(),
         {}, 400, "numbers"),
        ("POST", "/v2/models/lookup/infer", json.dumps({"inputs": [{"name": "ids", "shape": [1, 2],
                                                                    "datatype": "INT64", "data": [0.5, 1]}]}).encode(),
         {}, 400, "not valid INT64"),
        ("POST", "/v2/models/lookup/infer", json.dumps({"inputs": [{"name": "ids", "shape": [1, 2],
                                                                    "datatype": "INT64",
                                                                    "data": [2 ** 63, 1]}]}).encode(),
         {}, 400, "not valid INT64|out of the range"),
        ("POST", "/v2/models/mlp/infer", json.dumps(good).encode() + b"\0" * 8,
         {"Inference-Header-Content-Length": str(len(json.dumps(good)))}, 400, "binary bytes that no input claims"),
        ("POST", "/v2/models/mlp/infer", json.dumps({"inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32",
                                                                 "parameters": {"binary_data_size": 16}}]}).encode(),
         {"Inference-Header-Content-Length": "999999"}, 400, "Inference-Header-Content-Length"),
        ("POST", "/v2/models/mlp/infer", b"x" * (1 << 17), {}, 413, "exceeds the 65536-byte limit"),
        ("POST", "/v2/models/mlp/infer", b"\x1f\x8b" + b"\0" * 20, {"Content-Encoding": "gzip"}, 400, "gzip"),
        ("POST", "/v2/models/mlp/infer", gzip.compress(b" " * (1 << 17)), {"Content-Encoding": "gzip"}, 413,
         "decompressed"),
        ("POST", "/v2/models/mlp/infer", b"{}", {"Content-Encoding": "br"}, 415, "Content-Encoding"),
        ("POST", "/v2/models/nope/infer", json.dumps(good).encode(), {}, 404, "unknown model 'nope'"),
        ("GET", "/v2/models/nope", None, {}, 404, "unknown model"),
        ("GET", "/v2/models/mlp/versions/7", None, {}, 404, "no version '7'"),
        ("GET", "/v2/models/mlp/infer", None, {}, 405, ""),
        ("GET", "/v3/whatever", None, {}, 404, ""),
    ]
    for method, path, body, headers, status, match in cases:
        got, ctype, text = raw(server, method, path, body, headers)
        assert got == status, (path, body[:40] if body else None, got, text[:200])
        assert ctype.startswith("application/json"), (path, ctype)
        err = json.loads(text)["error"]
        assert isinstance(err, str)
        if match:
            import re
            assert re.search(match, err), (match, err)
    assert_still_serving(client, saved)


def test_json_integers_out_of_range_are_rejected():
    from types import SimpleNamespace

    from oar.serving import ProtocolError, TensorSpec
    from oar.serving.protocol import decode_request
    spec = TensorSpec({"name": "b", "shape": [-1], "dtype": "uint8"})
    model = SimpleNamespace(name="m", inputs=[spec], input_names=["b"], input_index={"b": 0}, output_names=[],
                            output_index={})
    arrays, _, _ = decode_request({"inputs": [{"name": "b", "shape": [2], "datatype": "UINT8", "data": [0, 255]}]},
                                  b"", model)
    assert arrays[0].dtype == np.uint8 and arrays[0].tolist() == [0, 255]
    for bad in ([-1, 2], [0, 256]):
        with pytest.raises(ProtocolError, match="out of the range of UINT8"):
            decode_request({"inputs": [{"name": "b", "shape": [2], "datatype": "UINT8", "data": bad}]}, b"", model)


def test_oversized_chunked_body(server, client, saved):
    """No Content-Length (chunked transfer): the limit is enforced while the body streams in."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request("POST", "/v2/models/mlp/infer", body=iter([b" " * 40000] * 3), encode_chunked=True,
                     headers={"Transfer-Encoding": "chunked"})
        r = conn.getresponse()
        assert r.status == 413 and "exceeds the 65536-byte limit" in json.loads(r.read())["error"]
    finally:
        conn.close()
    assert_still_serving(client, saved)
