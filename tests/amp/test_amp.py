"""oar.amp: auto_cast op lists (eager, static, to_static), GradScaler loss scaling, decorate for O2."""
import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F
from oar.core.state import STATE

R = np.random.default_rng(0)


def t(shape, grad=False):
    return oar.to_tensor(R.standard_normal(shape).astype("float32"), stop_gradient=not grad)


# ---- auto_cast ----------------------------------------------------------------------------------------------------

def test_lists_decide_dtypes():
    x, w = t([4, 8]), t([8, 3])
    conv = nn.Conv2D(3, 4, 3, padding=1)
    img = t([2, 3, 5, 5])
    with oar.amp.auto_cast():
        y = oar.matmul(x, w)
        assert y.dtype == oar.float16                      # white
        assert F.softmax(y).dtype == oar.float32           # black
        assert y.mean().dtype == oar.float32               # black reduction
        assert F.relu(y).dtype == oar.float16              # gray: follows its input
        assert (y + t([4, 3])).dtype == oar.float32        # gray, mixed: promoted (Paddle)
        assert conv(img).dtype == oar.float16              # conv + its bias: one white-list layer
        assert (x.astype("int64") + 1).dtype == oar.int64  # non-float untouched
    assert STATE.amp is None
    assert oar.matmul(x, w).dtype == oar.float32


def test_values_are_float16_rounded():
    x, w = t([5, 7]), t([7, 3])
    with oar.amp.auto_cast():
        y = oar.matmul(x, w)
    ref = (x.numpy().astype(np.float16).astype(np.float32) @ w.numpy().astype(np.float16).astype(np.float32))
    np.testing.assert_allclose(y.numpy(), ref.astype(np.float16), rtol=1e-3)


def test_custom_lists_enable_and_nesting():
    x, w = t([4, 8]), t([8, 3])
    with oar.amp.auto_cast(custom_black_list=["matmul_v2"]):   # Paddle's name
        assert oar.matmul(x, w).dtype == oar.float32
    with oar.amp.auto_cast(custom_white_list=["softmax"]):
        assert F.softmax(x).dtype == oar.float16
    with oar.amp.auto_cast():
        with oar.amp.auto_cast(enable=False):
            assert oar.matmul(x, w).dtype == oar.float32
        assert oar.matmul(x, w).dtype == oar.float16
    with pytest.raises(ValueError, match="both"):
        with oar.amp.auto_cast(custom_white_list=["exp"], custom_black_list=["exp"]):
            pass
    with pytest.raises(ValueError, match="level"):
        with oar.amp.auto_cast(level="O3"):
            pass


def test_bfloat16():
    x, w = t([4, 8]), t([8, 3])
    with oar.amp.auto_cast(dtype="bfloat16"):
        y = oar.matmul(x, w)
        assert y.dtype == oar.bfloat16
        assert F.relu(y).dtype == oar.bfloat16
        assert F.cross_entropy(y, oar.to_tensor([0, 1, 2, 0])).dtype == oar.float32
    np.testing.assert_allclose(y.numpy().astype(np.float32), x.numpy() @ w.numpy(), rtol=5e-2, atol=5e-2)


def test_gradients_reach_float32_weights():
    lin = nn.Linear(6, 4)
    x = t([3, 6])
    with oar.amp.auto_cast():
        loss = F.softmax(F.relu(lin(x))).sum()
    loss.backward()
    g16 = [p.grad.numpy() for p in (lin.weight, lin.bias)]
    assert all(g.dtype == np.float32 for g in g16)
    lin.clear_gradients()
    F.softmax(F.relu(lin(x))).sum().backward()
    for a, b in zip(g16, (lin.weight.grad.numpy(), lin.bias.grad.numpy())):
        np.testing.assert_allclose(a, b, rtol=2e-2, atol=2e-3)


def test_static_program_has_cast_ops():
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [None, 4])
            w = oar.static.data("w", [4, 2])
            with oar.amp.auto_cast():
                y = oar.matmul(x, w)
                s = F.softmax(y)
    finally:
        oar.disable_static()
    text = str(main)
    assert 'cast(x=x) {dtype="float16"}' in text and y.dtype == oar.float16 and s.dtype == oar.float32
    xv, wv = R.random((3, 4)).astype("float32"), R.random((4, 2)).astype("float32")
    yv, sv = oar.static.Executor().run(main, feed={"x": xv, "w": wv}, fetch_list=[y, s])
    assert yv.dtype == np.float16 and sv.dtype == np.float32
    np.testing.assert_allclose(yv, xv @ wv, rtol=2e-3, atol=2e-3)


class _Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(6, 8), nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def test_to_static_programs_keyed_by_auto_cast():
    net = _Net()
    st = oar.jit.to_static(_Net())
    st.set_state_dict(net.state_dict())
    x = t([2, 6])
    with oar.amp.auto_cast():
        a, b = net(x), st(x)
    assert a.dtype == b.dtype == oar.float16
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-3, atol=1e-3)
    c = st(x)                                   # outside auto_cast: another program, float32
    assert c.dtype == oar.float32
    np.testing.assert_allclose(c.numpy(), net(x).numpy(), rtol=1e-6)
    with oar.amp.auto_cast():
        assert st(x).dtype == oar.float16
    fwd = st.forward if hasattr(st, "forward") else st
    assert len(fwd.program_cache._programs) == 2


# ---- GradScaler ---------------------------------------------------------------------------------------------------

def _setup():
    lin = nn.Linear(3, 2)
    opt = oar.optimizer.SGD(learning_rate=0.1, parameters=lin.parameters())
    return lin, opt


def test_scale_unscale_step():
    lin, opt = _setup()
    x = t([4, 3])
    scaler = oar.amp.GradScaler(init_loss_scaling=8.0)
    loss = lin(x).sum()
    scaled = scaler.scale(loss)
    np.testing.assert_allclose(scaled.numpy(), loss.numpy() * 8, rtol=1e-6)
    scaled.backward()
    scaler.unscale_(opt)
    g = lin.weight.grad.numpy().copy()
    lin2 = nn.Linear(3, 2)
    lin2.set_state_dict(lin.state_dict())
    lin2(x).sum().backward()
    np.testing.assert_allclose(g, lin2.weight.grad.numpy(), rtol=1e-6)
    w0 = lin.weight.numpy().copy()
    scaler.step(opt)
    np.testing.assert_allclose(lin.weight.numpy(), w0 - 0.1 * g, rtol=1e-6)
    with pytest.raises(RuntimeError, match="already"):
        scaler.step(opt)
    scaler.update()
    assert scaler.get_loss_scaling() == 8.0


def test_overflow_skips_and_dynamic_scale():
    lin, opt = _setup()
    scaler = oar.amp.GradScaler(init_loss_scaling=1024.0, incr_every_n_steps=2, decr_every_n_nan_or_inf=2)
    x = t([4, 3])
    w0 = lin.weight.numpy().copy()
    for k in range(2):  # two overflowing steps: skipped; the scale halves after the second
        scaler.scale(lin(x).sum() * float("inf")).backward()
        scaler.minimize(opt, None)
        opt.clear_grad()
        np.testing.assert_array_equal(lin.weight.numpy(), w0)
    assert scaler.get_loss_scaling() == 512.0
    for k in range(2):  # two clean steps: applied; the scale doubles after the second
        scaler.scale(lin(x).sum()).backward()
        scaler.minimize(opt, None)
        opt.clear_grad()
    assert not np.array_equal(lin.weight.numpy(), w0)
    assert scaler.get_loss_scaling() == 1024.0
    state = scaler.state_dict()
    assert float(state["scale"]) == 1024.0 and state["incr_count"] == 0
    other = oar.amp.GradScaler()
    other.load_state_dict(state)
    assert other.get_loss_scaling() == 1024.0 and other.get_incr_every_n_steps() == 2


def test_fixed_scale_and_disabled():
    lin, opt = _setup()
    x = t([4, 3])
    fixed = oar.amp.GradScaler(init_loss_scaling=4.0, use_dynamic_loss_scaling=False, decr_every_n_nan_or_inf=1)
    fixed.scale(lin(x).sum() * float("nan")).backward()
    fixed.minimize(opt, None)
    assert fixed.get_loss_scaling() == 4.0
    opt.clear_grad()
    off = oar.amp.GradScaler(enable=False)
    loss = lin(x).sum()
    assert off.scale(loss) is loss and off.state_dict() == {}


# ---- decorate / O2 ------------------------------------------------------------------------------------------------

def test_decorate_o2_master_weights():
    net = _Net()
    opt = oar.optimizer.Adam(parameters=net.parameters())
    net2, opt2 = oar.amp.decorate(net, opt, level="O2")
    assert net2 is net and opt2 is opt
    assert all(p.dtype == oar.float32 for p in net.parameters())
    x = t([2, 6])
    with oar.amp.auto_cast(level="O2", use_promote=False):
        h = x + 1.0
        assert h.dtype == oar.float16                   # gray op at O2 without promotion
        out = net(x)
        loss = F.cross_entropy(out, oar.to_tensor([0, 2]))
    assert out.dtype == oar.float16 and loss.dtype == oar.float32
    scaler = oar.amp.GradScaler()
    scaler.scale(loss).backward()
    scaler.minimize(opt, None)
    assert all(p.dtype == oar.float32 for p in net.parameters())


def test_decorate_pure_float16_keeps_norms_float32():
    class N(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc, self.bn = nn.Linear(4, 4), nn.BatchNorm1D(4)

        def forward(self, x):
            return self.bn(self.fc(x))
    n = oar.amp.decorate(N(), level="O2", master_weight=False)
    assert n.fc.weight.dtype == oar.float16 and n.bn.weight.dtype == oar.float32
    with oar.amp.auto_cast(level="O2"):
        y = n(t([3, 4]))
    assert y.dtype == oar.float32  # batch_norm is black-listed


def test_decorate_unwraps_to_static_functions_and_bound_methods():
    for wrap in (lambda m: oar.jit.to_static(m.forward), lambda m: m.forward):
        net = nn.Linear(2, 2)
        wrapped = wrap(net)
        assert oar.amp.decorate(wrapped, level="O2", master_weight=False) is wrapped
        assert net.weight.dtype == oar.float16 and net._amp_level == "O2"
    with pytest.raises(TypeError, match="models must be Layers"):
        oar.amp.decorate(object(), level="O2")


def test_o2_use_promote_runs_an_op_meeting_float32_in_float32():
    """Paddle's rule (GetAmpDestDtype): at O2 with use_promote (the default) an op outside the white list with a
    float32 input runs in float32; white-list ops stay float16 (issue 25: use_promote was ignored)."""
    x, w = t([2, 6]), t([6, 3])
    with oar.amp.auto_cast(level="O2"):
        assert (x + 1.0).dtype == oar.float32
        m = oar.matmul(x, w)
        assert m.dtype == oar.float16
        assert (m * 2.0).dtype == oar.float16  # float16 only (a Python scalar is no float32 tensor)
        assert (m + x[:, :3]).dtype == oar.float32
    with oar.amp.auto_cast(level="O2", use_promote=False):
        assert (m + x[:, :3]).dtype == oar.float16
    with oar.amp.auto_cast(level="O1", use_promote=False):  # no effect at O1
        assert (x + 1.0).dtype == oar.float32
    lin = nn.Linear(6, 3)  # matmul then a float32 bias Parameter: parameters stand for Paddle's float16 ones
    with oar.amp.auto_cast(level="O2"):
        assert lin(x).dtype == oar.float16


def test_decorate_master_grad():
    net = nn.Linear(2, 2)
    opt = oar.optimizer.SGD(parameters=net.parameters())
    oar.amp.decorate(net, opt, level="O2", master_grad=True)  # float32 master weights: float32 gradients
    with oar.amp.auto_cast(level="O2"):
        net(t([3, 2])).astype("float32").sum().backward()
    assert net.weight.grad.dtype == oar.float32
    with pytest.raises(NotImplementedError, match="master_grad=True with master_weight=False"):
        oar.amp.decorate(nn.Linear(2, 2), level="O2", master_weight=False, master_grad=True)


def test_o1_promotion_follows_paddle():
    """Paddle's GetAmpDestDtype at O1: a gray op meeting float16 and float32 runs in float32; Linear is one white
    op (bias cast too); so is a Conv2D with its bias (the seed contract and Paddle AMP docs)."""
    lin, conv = nn.Linear(4, 3), nn.Conv2D(3, 2, 3)
    with oar.amp.auto_cast():
        h = lin(t([2, 4]))
        assert h.dtype == oar.float16
        assert (h + t([2, 3])).dtype == oar.float32           # a float32 residual promotes
        assert (h + h).dtype == oar.float16                   # float16 only: stays
        assert conv(t([1, 3, 5, 5])).dtype == oar.float16
    loss = h.astype("float32").sum()
    loss.backward()
    assert lin.bias.grad.dtype == oar.float32 and lin.weight.grad.dtype == oar.float32
