"""Batch-1 latency of the inference predictor, measured against references in the same run.

Models: a 3-layer MLP (256 -> 512 -> 512 -> 10) and resnet18 on a 3x64x64 image, saved with oar.jit.save (eval
mode). For each model:

- oar eager (the Layer under no_grad) and the native predictor (inference passes + enable_memory_optim());
- the MLP's forward hand-written in NumPy (three ``x @ W + b``, two ``np.maximum``): the floor for any executor
  computing with NumPy/OpenBLAS; for resnet18 the same floor is its GEMMs alone (``gemm floor``: every conv's
  ``W (O, C kh kw) @ columns`` with the real weights, in program order), so eager / floor is the highest speed-up a
  float32 NumPy predictor can reach;
- the predictor with ``Config.enable_onnxruntime()`` + ``enable_ort_optimization()``, and a raw
  ``onnxruntime.InferenceSession`` on the same exported ONNX file (same threads): the backend's overhead;
- resnet18 only: int8 (oar.quantization PTQ, abs_max, 4 random calibration images) natively and through ONNX
  Runtime's QDQ path, against ONNX Runtime float.

Targets (issue 13): resnet18 native >= 2.5x eager, ORT backend <= 1.15x raw ORT; MLP native <= 1.05x NumPy, ORT
backend <= 1.15x raw ORT; resnet18 ORT int8 >= 1.5x faster than ORT float. Every ratio is printed; the targets
line says which are met. Timings interleave the contenders and keep the best of `--repeat` rounds.

    .venv/bin/python bench/inference.py [--repeat N] [--skip-ort]
"""
import argparse
import os
import sys
import tempfile
import time
import warnings

# Both sides call the same OpenBLAS; on a small shared machine its thread pool makes mid-sized GEMM timings erratic,
# so BLAS (and ONNX Runtime) run on one thread unless OAR_BENCH_THREADS is set. Set before numpy loads.
THREADS = int(os.environ.get("OAR_BENCH_THREADS", "1"))
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, str(THREADS))

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import oar  # noqa: E402
from oar import inference, nn  # noqa: E402
from oar.static import InputSpec  # noqa: E402


def best_of(fns, repeat, inner):
    """{name: best seconds per call}, the contenders interleaved round by round (they see the same load)."""
    best = dict.fromkeys(fns, float("inf"))
    for fn in fns.values():
        fn()
    for _ in range(repeat):
        for name, fn in fns.items():
            t = time.perf_counter()
            for _ in range(inner):
                fn()
            best[name] = min(best[name], (time.perf_counter() - t) / inner)
    return best


def numpy_mlp(net, x):
    """The MLP's forward hand-written in NumPy on the same weights (the floor for the predictor)."""
    ws = [(m.weight.numpy(), m.bias.numpy()) for m in net if isinstance(m, nn.Linear)]

    def run():
        h = x
        for i, (w, b) in enumerate(ws):
            h = h @ w + b
            if i < len(ws) - 1:
                h = np.maximum(h, 0)
        return h
    return run


def gemm_floor(pred):
    """The GEMMs alone of the predictor's convolutions and linears (same weights, same shapes, batch 1, in program
    order): what any executor computing with NumPy/OpenBLAS in float32 must spend."""
    from oar.passes.graph import bound_value
    gb, mats = pred.program.global_block(), []
    for op in gb.ops:
        if op.type == "fused_conv2d":
            w = bound_value(pred.program, op.inputs["filter"][0], pred.scope)
            out = [1 if d < 0 else d for d in gb.vars[op.output_names()[0]].shape]
            mats.append((w.reshape(w.shape[0], -1), np.ones([w[0].size, out[2] * out[3]], w.dtype)))
        elif op.type == "fused_linear":
            w = bound_value(pred.program, op.inputs["w"][0], pred.scope)
            mats.append((np.ones([1, w.shape[0]], w.dtype), w))

    def run():
        for a, b in mats:
            np.matmul(a, b)
    return run


def predictor(prefix, ort=False, memory_optim=True):
    config = inference.Config(prefix)
    config.disable_glog_info()
    config.set_cpu_math_library_num_threads(THREADS)
    if memory_optim:
        config.enable_memory_optim()
    if ort:
        config.enable_onnxruntime()
        config.enable_ort_optimization()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fallback to native would make the ORT figures meaningless
        return inference.create_predictor(config)


def raw_ort(pred, path):
    """A plain onnxruntime session on the file the ORT-backed predictor runs, with the same threads."""
    import onnx
    import onnxruntime as ort
    from oar.onnx.exporter import program_to_onnx
    onnx.save(program_to_onnx(pred.program, pred.inputs, pred.outputs, scope=pred.scope), path)
    so = ort.SessionOptions()
    so.intra_op_num_threads, so.inter_op_num_threads = THREADS, 1
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    return lambda x: sess.run(None, {name: x})


def measure(name, net, shape, repeat, inner, tmp, use_ort, reference=None, int8=False):
    net.eval()
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    xt = oar.to_tensor(x)
    prefix = os.path.join(tmp, name)
    oar.jit.save(net, prefix, input_spec=[InputSpec([None] + list(shape[1:]), "float32", "x")])
    with oar.no_grad():
        want = net(xt).numpy()
    native = predictor(prefix)
    np.testing.assert_allclose(native.run([x])[0], want, rtol=1e-4, atol=1e-4)

    def eager():
        with oar.no_grad():
            net(xt)
    fns = {"eager": eager, "native": lambda: native.run([x])}
    if reference is None:
        fns["gemm floor"] = gemm_floor(native)
    if reference is not None:
        ref = reference(net, x)
        np.testing.assert_allclose(ref(), want, rtol=1e-4, atol=1e-4)
        fns["numpy"] = ref
    if use_ort:
        ort_pred = predictor(prefix, ort=True)
        np.testing.assert_allclose(ort_pred.run([x])[0], want, rtol=1e-4, atol=1e-4)
        raw = raw_ort(ort_pred, prefix + ".onnx")
        fns["ort backend"], fns["raw ort"] = (lambda: ort_pred.run([x])), (lambda: raw(x))
    if int8:
        from oar.quantization import PostTrainingQuantization
        calib = [np.random.default_rng(k).standard_normal(shape).astype("float32") for k in range(4)]
        ptq = PostTrainingQuantization(model_dir=prefix, data_loader=calib, algo="abs_max")
        ptq.quantize()
        ptq.save_quantized_model(prefix + "_int8")
        native8 = predictor(prefix + "_int8")
        fns["native int8"] = lambda: native8.run([x])
        if use_ort:
            ort8 = predictor(prefix + "_int8", ort=True)
            fns["ort int8"] = lambda: ort8.run([x])
            d = np.abs(ort8.run([x])[0] - want).max() / np.abs(want).max()
            print(f"{name}: int8 (ORT) output differs from float by {d:.1%} of its largest value")
    t = best_of(fns, repeat, inner)
    print(f"{name}: " + "   ".join(f"{k} {v * 1e6:.1f} us" for k, v in t.items()))
    r = {"native vs eager": t["eager"] / t["native"]}
    if "numpy" in t:
        r["native / numpy"] = t["native"] / t["numpy"]
    if "gemm floor" in t:
        r["native / gemm floor"] = t["native"] / t["gemm floor"]
        r["highest reachable native speed-up (eager / gemm floor)"] = t["eager"] / t["gemm floor"]
    if use_ort:
        r["ort backend / raw ort"] = t["ort backend"] / t["raw ort"]
        r["raw ort vs eager"] = t["eager"] / t["raw ort"]
    if int8:
        r["native int8 / native float"] = t["native int8"] / t["native"]
        if use_ort:
            r["ort int8 speed-up over ort float"] = t["ort backend"] / t["ort int8"]
    print("  " + "   ".join(f"{k} {v:.2f}x" for k, v in r.items()))
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-ort", action="store_true", help="do not time the ONNX Runtime backend")
    args = ap.parse_args()
    use_ort = not args.skip_ort
    if use_ort:
        try:
            import onnx  # noqa: F401
            import onnxruntime  # noqa: F401
        except ImportError:
            print("onnx / onnxruntime not installed: ONNX Runtime figures skipped (pip install 'oar-dl[onnx]')")
            use_ort = False
    oar.seed(0)
    tmp = tempfile.mkdtemp()
    mlp = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    m = measure("mlp", mlp, [1, 256], args.repeat, 200, tmp, use_ort, reference=numpy_mlp)
    from oar.vision.models import resnet18
    r = measure("resnet18", resnet18(), [1, 3, 64, 64], args.repeat, 5, tmp, use_ort, int8=True)
    checks = [("resnet18 native >= 2.5x eager", r["native vs eager"] >= 2.5),
              ("mlp native <= 1.05x numpy", m["native / numpy"] <= 1.05)]
    if use_ort:
        checks += [("resnet18 ort backend <= 1.15x raw ort", r["ort backend / raw ort"] <= 1.15),
                   ("mlp ort backend <= 1.15x raw ort", m["ort backend / raw ort"] <= 1.15),
                   ("resnet18 ort int8 >= 1.5x ort float", r["ort int8 speed-up over ort float"] >= 1.5)]
    print("targets: " + "; ".join(f"{k} ({'met' if ok else 'NOT met'})" for k, ok in checks))


if __name__ == "__main__":
    main()
