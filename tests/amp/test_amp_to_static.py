"""amp inside and around to_static: auto_cast in a converted function is traced into the program's casts, and
GradScaler training through a converted Layer gives the eager losses and weights."""
import numpy as np

import oar
import oar.nn as nn


def with_auto_cast_inside(x, w):
    with oar.amp.auto_cast():
        y = oar.matmul(x, w)   # white list: float16 inside the block
    return y, oar.matmul(x, w)  # float32 after it


def test_auto_cast_block_inside_converted_function():
    x, w = oar.ones([2, 4]), oar.ones([4, 3]) * 0.5
    sf = oar.jit.to_static(with_auto_cast_inside)
    (a, b), (ea, eb) = sf(x, w), with_auto_cast_inside(x, w)
    assert a.dtype == ea.dtype == oar.float16 and b.dtype == eb.dtype == oar.float32
    np.testing.assert_allclose(a.numpy(), ea.numpy())
    assert 'cast(x=x) {dtype="float16"}' in str(sf.concrete_program.main_program)


def _train(convert, steps=4):
    oar.seed(3)
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    if convert:
        net = oar.jit.to_static(net)
    opt = oar.optimizer.SGD(learning_rate=0.05, parameters=net.parameters())
    scaler = oar.amp.GradScaler(init_loss_scaling=256.0)
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        x = oar.to_tensor(rng.standard_normal([5, 4]).astype("float32"))
        with oar.amp.auto_cast():
            loss = (net(x).astype("float32") ** 2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.clear_grad()
        losses.append(float(loss))
    if convert:
        assert len(net.forward.program_cache) == 1   # ran as a (float16-casting) program
    return losses, [p.numpy().copy() for p in net.parameters()]


def test_grad_scaler_training_through_converted_layer_matches_eager():
    l1, w1 = _train(False)
    l2, w2 = _train(True)
    np.testing.assert_allclose(l1, l2, rtol=1e-3)
    for a, b in zip(w1, w2):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)
    assert l1[-1] < l1[0]
