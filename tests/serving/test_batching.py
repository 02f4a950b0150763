"""Dynamic batching (concurrent requests joined along dim 0, outputs split back), the probe that keeps models
whose rows interact unbatched, several models at once, and graceful shutdown answering requests in flight."""
import threading

import numpy as np
import pytest
import tritonclient.http as httpclient

from oar.serving import ServedModel, Server

from serving_models import rand, reference


def _infer(port, model, x, name="x"):
    c = httpclient.InferenceServerClient(f"127.0.0.1:{port}", connection_timeout=30, network_timeout=30)
    try:
        i = httpclient.InferInput(name, list(x.shape), "FP32")
        i.set_data_from_numpy(x)
        r = c.infer(model, [i])
        return r.as_numpy(r.get_response()["outputs"][0]["name"])
    finally:
        c.close()


def _concurrently(n, fn):
    """Runs fn(k) for k < n on n threads released together; returns the results (re-raises the first error)."""
    start, results, errors = threading.Barrier(n), [None] * n, []

    def run(k):
        try:
            start.wait(30)
            results[k] = fn(k)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    if errors:
        raise errors[0]
    return results


def test_concurrent_requests_are_batched(saved):
    prefix, layer = saved["mlp"]
    model = ServedModel("mlp", prefix, workers=1, max_batch_size=64, batch_timeout_ms=1000)
    assert model.max_batch_size == 64
    xs = [rand([1 + k % 3, 4], seed=k) for k in range(8)]
    with Server({"mlp": model}) as server:
        outs = _concurrently(8, lambda k: _infer(server.port, "mlp", xs[k]))
    for x, out in zip(xs, outs):
        np.testing.assert_allclose(out, reference(layer, x)[0], rtol=1e-5, atol=1e-6)
    assert model.batches >= 1 and model.batched_rows >= 2  # at least two requests were joined into one run


def test_rows_that_interact_are_not_batched(saved):
    prefix, layer = saved["centered"]
    model = ServedModel("centered", prefix, max_batch_size=64, batch_timeout_ms=200)
    assert model.max_batch_size == 1  # the probe found that a batch changes the results
    xs = [rand([2, 4], seed=k) for k in range(4)]
    with Server({"centered": model}) as server:
        outs = _concurrently(4, lambda k: _infer(server.port, "centered", xs[k]))
    for x, out in zip(xs, outs):
        np.testing.assert_allclose(out, reference(layer, x)[0], rtol=1e-5, atol=1e-6)


def test_models_side_by_side_under_load(server, saved):
    """The shared server (several models, batching on): mixed concurrent traffic, every answer right."""
    cases = [("mlp", rand([1 + k % 4, 4], seed=20 + k)) if k % 2 else ("centered", rand([2, 4], seed=40 + k))
             for k in range(8)]
    outs = _concurrently(8, lambda k: _infer(server.port, cases[k][0], cases[k][1]))
    for (name, x), out in zip(cases, outs):
        np.testing.assert_allclose(out, reference(saved[name][1], x)[0], rtol=1e-5, atol=1e-6)


def test_graceful_shutdown_answers_requests_in_flight(saved):
    prefix, layer = saved["mlp"]
    model = ServedModel("mlp", prefix, max_batch_size=64, batch_timeout_ms=3000)
    server = Server({"mlp": model}).start()
    xs = [rand([2, 4], seed=60 + k) for k in range(4)]
    results = [None] * 4

    def run(k):
        try:
            results[k] = _infer(server.port, "mlp", xs[k])
        except Exception as e:  # noqa: BLE001
            results[k] = e

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    try:
        for t in threads:
            t.start()
        # wait (bounded) until the requests sit in the batcher, waiting for the batch window to close
        for _ in range(2000):
            if len(model._pending) == 4:
                break
            threading.Event().wait(0.005)
        assert len(model._pending) == 4
    finally:
        server.stop()
    for t in threads:
        t.join(30)
    for x, out in zip(xs, results):
        assert isinstance(out, np.ndarray), out
        np.testing.assert_allclose(out, reference(layer, x)[0], rtol=1e-5, atol=1e-6)
    with pytest.raises(Exception):  # noqa: B017  (no longer listening: the client's connection error)
        _infer(server.port, "mlp", xs[0])


def test_a_bad_request_fails_alone_in_its_batch(saved):
    """Ids out of the embedding's range pass the spec check but fail in the model: the joined run fails, each
    request then runs alone, and only the bad one gets an error (4xx)."""
    prefix, layer = saved["lookup"]
    model = ServedModel("lookup", prefix, max_batch_size=64, batch_timeout_ms=300)
    ids = [np.array([[k, k + 1]], dtype="int64") for k in range(3)] + [np.array([[50, 1]], dtype="int64")]

    def call(k):
        c = httpclient.InferenceServerClient(f"127.0.0.1:{server.port}", connection_timeout=30, network_timeout=30)
        try:
            i = httpclient.InferInput("ids", [1, 2], "INT64")
            i.set_data_from_numpy(ids[k])
            r = c.infer("lookup", [i])
            return r.as_numpy(r.get_response()["outputs"][0]["name"])
        except Exception as e:  # noqa: BLE001
            return e
        finally:
            c.close()

    with Server({"lookup": model}) as server:
        outs = _concurrently(4, call)
    for k in range(3):
        np.testing.assert_allclose(outs[k], reference(layer, ids[k])[0], rtol=1e-6)
    assert outs[3].status() == "400", outs[3]
    assert "rejected the inputs: embedding ids must be in [0, 10)" in str(outs[3])
    assert "conftest.py" not in str(outs[3])  # the op and source lines stay in the server log
