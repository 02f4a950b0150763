"""The op table run on the fake device: each case's forward outputs and first-order gradients on `gpu:0` against
the CPU. `prove` runs every kernel on the device arrays (no fallback) and returns the ops proven device-ready:
`tools/device_ops.py` writes them to `oar/ops/device_ops.py`, `test_fake_device_ops.py` checks that list."""
import contextlib
import os

import numpy as np

import oar
from oar.core import devices
from oar.ops.device import FALLBACK
from oar.ops.device_ops import ALWAYS, DEVICE_OPS


# which backend the device tests use: the fake device (the CPU suite), or 'cuda' (tools/gpu_check.sh on a GPU)
BACKEND = os.environ.get("OAR_GPU_CHECK_BACKEND", "fake")
# float32 tolerance on a real GPU (other reduction orders, other libm); the fake computes with NumPy itself
RTOL, ATOL = (1e-5, 1e-6) if BACKEND == "fake" else (2e-4, 2e-5)


@contextlib.contextmanager
def fake_gpu():
    """The test backend (`BACKEND`: the fake device unless tools/gpu_check.sh chose CUDA) loaded and selected;
    the CPU (and no backend) afterwards."""
    old = os.environ.get(devices.ENV)
    os.environ[devices.ENV] = BACKEND
    devices.unload()
    devices.load()
    try:
        oar.set_device("gpu")
        yield
    finally:
        oar.set_device("cpu")
        devices.unload()
        if old is None:
            del os.environ[devices.ENV]
        else:
            os.environ[devices.ENV] = old


MIXED = "put both on one device"  # the text of the mixed-device error (oar/ops/device.py)


def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def run_case(case, place):
    """(forward outputs, gradients of the differentiable inputs) as host arrays, computed on `place` (the tensors
    made there, and `place` the current device for the tensors the op functions create)."""
    before = oar.get_device()
    oar.set_device(place)
    try:
        return _run_case(case, place)
    finally:
        oar.set_device(before)


def _run_case(case, place):
    ts = [oar.to_tensor(a, place=place, stop_gradient=i not in case.diff) for i, a in enumerate(case.inputs)]
    outs = _outs(case.fn(*ts))
    host = [o.numpy() for o in outs]
    floats = [o for o in outs if o.dtype.kind == "f" and not o.stop_gradient]
    grads = []
    if case.diff and floats:
        rng = np.random.default_rng(3)
        loss = None
        for o in floats:
            w = oar.to_tensor(rng.standard_normal(o.shape).astype(o.dtype.np), place=place)
            term = (o * w).sum()
            loss = term if loss is None else loss + term
        gs = oar.grad(loss, [ts[i] for i in case.diff], allow_unused=True)
        grads = [None if g is None else g.numpy() for g in gs]
    return host, grads


def mismatch(case, cpu, dev):
    """None when the device results equal the CPU's (float32 tolerance), else what differs."""
    for kind, a_list, b_list in (("output", cpu[0], dev[0]), ("gradient", cpu[1], dev[1])):
        if len(a_list) != len(b_list):
            return f"{len(b_list)} {kind}s on the device, {len(a_list)} on the CPU"
        for i, (a, b) in enumerate(zip(a_list, b_list)):
            if (a is None) != (b is None):
                return f"{kind} {i}: None on one device only"
            if a is None:
                continue
            if a.shape != b.shape or a.dtype != b.dtype:
                return f"{kind} {i}: {b.dtype}{list(b.shape)} on the device, {a.dtype}{list(a.shape)} on the CPU"
            try:
                np.testing.assert_allclose(b, a, rtol=RTOL, atol=ATOL, equal_nan=True)
            except AssertionError as e:
                return f"{kind} {i}: {str(e).strip().splitlines()[-1]}"
    return None


def _try(case, cpu, strict, listed):
    """(why the device run differs or raised, or None; the ops it ran on the device; whether a kernel raised)."""
    FALLBACK.strict, FALLBACK.ran, FALLBACK.listed = strict, [], listed
    raised = False
    try:
        dev = run_case(case, "gpu")
        why = mismatch(case, cpu, dev)
    except Exception as e:  # noqa: BLE001 - the failing kernel is the last one that ran
        why, raised = f"{type(e).__name__}: {e}", MIXED not in str(e)  # (mixed devices: before any kernel)
    finally:
        ran = FALLBACK.ran
        FALLBACK.strict, FALLBACK.ran, FALLBACK.listed = False, None, DEVICE_OPS
    return why, ran, raised


def prove(cases):
    """(ops proven device-ready, {case name: why it fails with them}). First every kernel runs on the device
    arrays: an op is a candidate when a passing case ran it and no case raised in it (a case with wrong values
    blames the ops no passing case ran). Then the cases run with only the candidates on the device (the others
    falling back, as users see it) until no case fails in a candidate: a failing case drops the last candidate it
    ran (the one that raised, or for wrong values the last device op before the result)."""
    used, blamed, suspects = set(), set(), set()
    cpus = [run_case(case, "cpu") for case in cases]  # (case names repeat across the table's files)
    for case, cpu in zip(cases, cpus):
        why, ran, raised = _try(case, cpu, True, DEVICE_OPS)
        if why is None:
            used.update(ran)
        elif raised:
            blamed.update(ran[-1:])
        else:
            suspects.update(ran)
    listed = frozenset(used - blamed - (suspects - used)) | ALWAYS
    while True:
        failures, drop = {}, set()
        for k, (case, cpu) in enumerate(zip(cases, cpus)):
            why, ran, _ = _try(case, cpu, False, listed)
            if why is not None:
                failures[f"{k}: {case.name}"] = why
                if MIXED not in why:  # (a mixed-device error fails whatever is listed)
                    drop.update([n for n in ran if n not in ALWAYS][-1:])
        if not drop:
            return set(listed), failures
        listed = listed - drop


class Scenario:
    """A case of the device table that is a whole step rather than one op (an optimizer update, AMP): `fn` takes
    the input tensors and returns the tensors to compare; no gradients are compared beyond what it returns."""

    def __init__(self, name, fn, inputs):
        self.name, self.fn, self.inputs, self.diff = name, fn, inputs, ()

    def __repr__(self):
        return self.name


def _steps(make_opt, amp=None):
    def fn(x, w, b):
        layer = oar.nn.Linear(4, 3)
        layer.weight.set_value(w)
        layer.bias.set_value(b)
        opt = make_opt(layer.parameters())
        scaler = oar.amp.GradScaler(init_loss_scaling=1024.0) if amp else None
        for _ in range(3):
            if amp:
                with oar.amp.auto_cast(level=amp, dtype="float16"):
                    loss = (layer(x) ** 2).mean()
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
            else:
                loss = (layer(x) ** 2).mean()
                loss.backward()
                opt.step()
            opt.clear_grad()
        if FALLBACK.ran is not None:  # the optimizer calls its update kernel directly, on the device arrays
            FALLBACK.ran.append(opt._op.name)
        return [layer.weight.detach(), layer.bias.detach()]
    return fn


_RNG = np.random.default_rng(11)
_STEP_INPUTS = [_RNG.standard_normal((5, 4)).astype("float32"), _RNG.standard_normal((4, 3)).astype("float32"),
                _RNG.standard_normal(3).astype("float32")]
_OPTIMIZERS = {
    "sgd": lambda p: oar.optimizer.SGD(0.1, parameters=p),
    "momentum": lambda p: oar.optimizer.Momentum(0.1, momentum=0.9, parameters=p, use_nesterov=True),
    "adam": lambda p: oar.optimizer.Adam(0.01, parameters=p),
    "adamw": lambda p: oar.optimizer.AdamW(0.01, parameters=p, weight_decay=0.1),
    "adamax": lambda p: oar.optimizer.Adamax(0.01, parameters=p),
    "lamb": lambda p: oar.optimizer.Lamb(0.01, parameters=p),
    "rmsprop": lambda p: oar.optimizer.RMSProp(0.01, parameters=p),
    "adagrad": lambda p: oar.optimizer.Adagrad(0.01, parameters=p),
    "adadelta": lambda p: oar.optimizer.Adadelta(1.0, parameters=p),
    "sgd_clip": lambda p: oar.optimizer.SGD(0.1, parameters=p, grad_clip=oar.nn.ClipGradByGlobalNorm(0.5)),
}
SCENARIOS = [Scenario(f"step_{name}", _steps(make), _STEP_INPUTS) for name, make in _OPTIMIZERS.items()]
SCENARIOS += [Scenario(f"amp_{level}_gradscaler", _steps(_OPTIMIZERS["adam"], amp=level), _STEP_INPUTS)
              for level in ("O1", "O2")]


def _model_step(make, x_of):
    """A model's forward and backward: its outputs and every parameter's gradient, for a training scenario."""
    def fn(x):
        with oar.base.unique_name.guard():
            model = make()
        out = model(x_of(x))
        out = out[0] if isinstance(out, (tuple, list)) else out
        w = oar.to_tensor(np.random.default_rng(5).standard_normal(out.shape).astype("float32"))
        (out * w).sum().backward()
        return [out.detach()] + [p.grad for p in model.parameters() if p.grad is not None]
    return fn


class _LSTMLM(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.embed, self.lstm, self.head = oar.nn.Embedding(40, 16), oar.nn.LSTM(16, 24), oar.nn.Linear(24, 40)

    def forward(self, ids):
        h, _ = self.lstm(self.embed(ids))
        return self.head(h)


def _seeded(make):
    def made():
        oar.seed(21)
        return make()
    return made


_R = np.random.default_rng(13)
SCENARIOS += [
    Scenario("model_lenet", _model_step(_seeded(lambda: oar.vision.models.LeNet(num_classes=10)), lambda x: x),
             [_R.standard_normal((2, 1, 28, 28)).astype("float32")]),
    Scenario("model_resnet18", _model_step(_seeded(lambda: oar.vision.models.resnet18(num_classes=10)),
                                           lambda x: x), [_R.standard_normal((2, 3, 32, 32)).astype("float32")]),
    Scenario("model_lstm_lm", _model_step(_seeded(_LSTMLM), lambda x: x), [_R.integers(0, 40, (2, 7))]),
    Scenario("model_transformer_layer", _model_step(
        _seeded(lambda: oar.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, activation="gelu")), lambda x: x),
        [_R.standard_normal((2, 5, 16)).astype("float32")]),
]


def _converted_steps(make_opt):
    """Two converted (`to_static`) training steps of a small classifier: the captured step's fused ops
    (multi-tensor updates, fused elementwise chains) and the loss's label count run in the executor."""
    def fn(x, labels):
        with oar.base.unique_name.guard():
            oar.seed(23)
            net = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.ReLU(), oar.nn.Linear(8, 3))
        opt = make_opt(net.parameters())

        @oar.jit.to_static
        def step(xb, yb):
            loss = oar.nn.functional.cross_entropy(net(xb), yb, ignore_index=2)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        losses = [step(x, labels) for _ in range(2)]
        return losses + [p.detach() for p in net.parameters()]
    return fn


SCENARIOS += [Scenario(f"converted_step_{name}", _converted_steps(_OPTIMIZERS[name]),
                       [_R.standard_normal((6, 4)).astype("float32"), np.arange(6) % 3])
              for name in ("momentum", "adam", "sgd")]


def _converted_layer(x):
    """A Layer converted by `to_static`, called eagerly: its program runs as one op (`run_program`) and its
    backward program as another (`run_program_grad`); outputs and parameter gradients."""
    with oar.base.unique_name.guard():
        oar.seed(29)
        net = oar.jit.to_static(oar.nn.Sequential(oar.nn.Conv2D(2, 3, 3, padding=1), oar.nn.BatchNorm2D(3),
                                                  oar.nn.ReLU(), oar.nn.Flatten(), oar.nn.Linear(3 * 4 * 4, 5)))
    out = net(x)
    (out * oar.to_tensor(np.linspace(-1.0, 1.0, 10 * 5).reshape(10, 5).astype("float32"))).sum().backward()
    return [out.detach()] + [p.grad for p in net.parameters() if not p.stop_gradient]


SCENARIOS += [Scenario("converted_layer", _converted_layer, [_R.standard_normal((10, 2, 4, 4)).astype("float32")])]


def _ops_with_gradient(fn):
    """`fn(x)`'s outputs and the gradient of their weighted sum with respect to `x` (a float input)."""
    def run(x):
        oar.seed(29)  # (dropout draws its mask from oar's generator on the host: the same on every device)
        x = x.detach()
        x.stop_gradient = False
        outs = [o for o in fn(x)]
        rng = np.random.default_rng(17)
        loss = None
        for o in outs:
            if o.dtype.kind == "f":
                w = oar.to_tensor(rng.standard_normal(o.shape).astype(o.dtype.np))
                loss = (o * w).sum() if loss is None else loss + (o * w).sum()
        return outs + list(oar.grad(loss, [x]))
    return run


_F = oar.nn.functional
_IMAGE = _R.standard_normal((2, 3, 6, 6)).astype("float32")
SCENARIOS += [
    Scenario("ops_views_and_triangles", _ops_with_gradient(lambda x: [
        oar.unsqueeze(x, 1), oar.squeeze(x[:, :1], 1), oar.tril(x[0, 0]), oar.triu(x[0, 0], 1),
        oar.topk(x.reshape([2, -1]), 3)[0], oar.tile(x[:, :1], [1, 2, 1, 1])]), [_IMAGE]),
    Scenario("ops_pooling_and_resampling", _ops_with_gradient(lambda x: [
        _F.avg_pool2d(x, 2), _F.adaptive_max_pool2d(x, 3), _F.interpolate(x, scale_factor=2, mode="bilinear"),
        _F.interpolate(x, size=[4, 4], mode="nearest")]), [_IMAGE]),
    Scenario("ops_dropout_train", _ops_with_gradient(lambda x: [_F.dropout(x, 0.5, training=True)]), [_IMAGE]),
]
