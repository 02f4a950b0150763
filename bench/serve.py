"""Load test of `oar serve` over loopback: latency and throughput without and with dynamic batching.

Two 3-layer MLPs are saved and served: 256 -> 512 -> 512 -> 10, where HTTP costs far more than the model, and
1024 -> 2048 -> 2048 -> 10, where a batch-1 run streams 25 MB of weights and batching pays. Each is served by
`oar serve` in a child process three times: without batching, and with ``--max-batch-size 32`` and a batch
window of 0 ms (requests join only while the worker is busy) or 2 ms (a request waits up to 2 ms for others).
Eight client threads (tritonclient.http, binary tensors) send 2,000 batch-1 requests in all, each with its own
random input; every answer is checked against the in-process predictor, so a lost, failed or wrong answer is
counted (and makes the exit status 1). Printed: p50 / p99 latency, throughput, and the ratios batched / unbatched
measured in the same run, plus the in-process predictor's batch-1 throughput on one thread as the reference a
server adds HTTP to. Bounded: every request has a 30 s timeout, each phase at most --deadline seconds, and the
server is always stopped.

    .venv/bin/python bench/serve.py [--requests 2000] [--clients 8]
"""
import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, os.environ.get("OAR_BENCH_THREADS", "1"))

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import oar  # noqa: E402
from oar import inference  # noqa: E402
from oar.static import InputSpec  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(prefix, port, extra):
    cmd = [sys.executable, "-m", "oar.cli", "serve", prefix, "--name", "mlp", "--port", str(port),
           "--log-level", "info", *extra]
    log = tempfile.TemporaryFile("w+")
    proc = subprocess.Popen(cmd, env=dict(os.environ, PYTHONPATH=ROOT), stdout=log, stderr=log, text=True)
    import tritonclient.http as httpclient
    client = httpclient.InferenceServerClient(f"127.0.0.1:{port}", connection_timeout=5, network_timeout=30)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if client.is_model_ready("mlp"):
                client.close()
                return proc, log
        except Exception:  # noqa: BLE001  (not listening yet)
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    stop_server(proc)
    log.seek(0)
    raise RuntimeError(f"oar serve did not start:\n{log.read()}")


def stop_server(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def load(port, xs, refs, clients, deadline):
    """Sends every xs[i] once from `clients` threads; returns (latencies of right answers, lost count, seconds)."""
    import tritonclient.http as httpclient
    lat, lock, nxt = [], threading.Lock(), iter(range(len(xs)))
    stop_at = time.monotonic() + deadline

    def worker():
        c = httpclient.InferenceServerClient(f"127.0.0.1:{port}", connection_timeout=30, network_timeout=30)
        try:
            while time.monotonic() < stop_at:
                with lock:
                    i = next(nxt, None)
                if i is None:
                    return
                inp = httpclient.InferInput("x", list(xs[i].shape), "FP32")
                inp.set_data_from_numpy(xs[i])
                t = time.perf_counter()
                try:
                    r = c.infer("mlp", [inp])
                    out = r.as_numpy(r.get_response()["outputs"][0]["name"])
                    ok = out is not None and np.allclose(out, refs[i], rtol=1e-4, atol=1e-5)
                except Exception:  # noqa: BLE001  (counted as lost)
                    ok = False
                dt = time.perf_counter() - t
                if ok:
                    with lock:
                        lat.append(dt)
        finally:
            c.close()

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(deadline + 60)
    return lat, len(xs) - len(lat), time.perf_counter() - t0


def run_model(width_in, hidden, args):
    """Both phases for one MLP; returns True when a request was lost or answered wrongly."""
    oar.seed(0)
    net = oar.nn.Sequential(oar.nn.Linear(width_in, hidden), oar.nn.ReLU(), oar.nn.Linear(hidden, hidden),
                            oar.nn.ReLU(), oar.nn.Linear(hidden, 10))
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal([1, width_in]).astype("float32") for _ in range(args.requests)]
    failed = False
    with tempfile.TemporaryDirectory() as d:
        prefix = os.path.join(d, "mlp")
        oar.jit.save(net, prefix, input_spec=[InputSpec([None, width_in], "float32", "x")])
        pred = inference.create_predictor(inference.Config(prefix))
        refs = [pred.run([x])[0] for x in xs]
        t = time.perf_counter()
        for x in xs[:200]:
            pred.run([x])
        local = 200 / (time.perf_counter() - t)
        print(f"\nmodel: MLP {width_in}-{hidden}-{hidden}-10, batch-1 requests: {args.requests} from {args.clients} "
              "clients, loopback")
        print(f"in-process predictor, one thread: {local:,.0f} runs/s (reference)")
        results = {}
        for label, extra in (("no batching", []),
                             ("batch, 0 ms", ["--max-batch-size", "32", "--batch-timeout-ms", "0"]),
                             ("batch, 2 ms", ["--max-batch-size", "32", "--batch-timeout-ms", "2"])):
            port = free_port()
            proc, log = start_server(prefix, port, extra)
            try:
                lat, lost, secs = load(port, xs, refs, args.clients, args.deadline)
            finally:
                stop_server(proc)
            log.seek(0)
            stats = re.search(r"(\d+) batched runs, ([\d.]+) rows", log.read())
            lat_ms = np.array(lat) * 1000 if lat else np.array([float("nan")])
            rps = len(lat) / secs
            results[label] = rps
            batches = f", {stats.group(1)} batched runs of {stats.group(2)} rows on average" if stats else ""
            print(f"{label:12s}: p50 {np.percentile(lat_ms, 50):6.2f} ms  p99 {np.percentile(lat_ms, 99):6.2f} ms  "
                  f"{rps:7,.0f} req/s  ({rps / local:.2f}x in-process)  ok {len(lat)}/{len(xs)}, lost {lost}"
                  f"{batches}")
            failed |= lost > 0
        for label in ("batch, 0 ms", "batch, 2 ms"):
            print(f"throughput {label} / no batching: {results[label] / results['no batching']:.2f}x")
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--deadline", type=float, default=240.0, help="seconds allowed per phase")
    args = ap.parse_args()
    failed = False
    for width_in, hidden in ((256, 512), (1024, 2048)):
        failed |= run_model(width_in, hidden, args)
    if failed:
        print("FAILED: requests were lost or answered wrongly")
        sys.exit(1)


if __name__ == "__main__":
    main()
