"""Knowledge distillation: the losses (values and gradients in float64), Distill eager == to_static == a
captured train step, the frozen teacher, refusals, and Distill in DataParallel across 2 MPI ranks."""
import copy
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import oar
from oar import nn
from oar.slim import Distill, l2_loss, soft_label_loss

rng = np.random.default_rng(32)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_soft_label_loss_value_and_gradient_float64():
    s, t = rng.standard_normal([3, 5]), rng.standard_normal([3, 5])
    ts, tt = 2.0, 3.0
    st = oar.to_tensor(s, stop_gradient=False)
    loss = soft_label_loss(st, oar.to_tensor(t), teacher_temperature=tt, student_temperature=ts)
    want = np.mean(-np.sum(softmax(t / tt) * np.log(softmax(s / ts)), -1))
    np.testing.assert_allclose(float(loss), want, rtol=1e-12)
    loss.backward()
    np.testing.assert_allclose(st.grad.numpy(), (softmax(s / ts) - softmax(t / tt)) / ts / 3, rtol=1e-10)
    # KL(teacher || student) = this loss - the teacher's entropy: equal at equal inputs to the entropy
    same = soft_label_loss(oar.to_tensor(t), oar.to_tensor(t))
    p = softmax(t)
    np.testing.assert_allclose(float(same), np.mean(-np.sum(p * np.log(p), -1)), rtol=1e-12)


def test_l2_loss_value_and_gradient():
    a, b = rng.standard_normal([2, 3, 4]), rng.standard_normal([2, 3, 4])
    at = oar.to_tensor(a, stop_gradient=False)
    loss = l2_loss(at, oar.to_tensor(b))
    np.testing.assert_allclose(float(loss), np.mean((a - b) ** 2), rtol=1e-12)
    loss.backward()
    np.testing.assert_allclose(at.grad.numpy(), 2 * (a - b) / a.size, rtol=1e-12)


def cnn(width, seed):
    oar.seed(seed)
    return nn.Sequential(nn.Conv2D(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2), nn.Flatten(),
                         nn.Linear(width * 16, 10))


CONFIG = [{"loss_function": "soft_label", "layers": [{"layers_name": ["4", "4"], "temperature": 2.0}]},
          {"loss_function": "l2", "layers": [{"layers_name": ["1", "1"], "weight": 0.5, "align_params": {
              "align_type": "1x1conv", "in_channel": 4, "out_channel": 8}}]}]


def test_distill_loss_is_the_weighted_sum_and_the_teacher_is_frozen():
    teacher, student = cnn(8, 1), cnn(4, 2)
    d = Distill(copy.deepcopy(CONFIG), student, teacher)
    x = oar.to_tensor(rng.standard_normal([2, 1, 8, 8]).astype("float32"))
    loss, s, t = d(x)
    feat_s = d.adapters[0](student[1](student[0](x)))
    feat_t = teacher[1](teacher[0](x))
    want = 4.0 * float(soft_label_loss(student(x), teacher(x), 2.0, 2.0)) + 0.5 * float(l2_loss(feat_s, feat_t))
    np.testing.assert_allclose(float(loss), want, rtol=1e-5)
    assert t.stop_gradient and not teacher.training
    names = {id(p) for p in d.parameters()}
    assert names == {id(p) for p in student.parameters()} | {id(p) for p in d.adapters.parameters()}
    assert not any(k.startswith("_teacher") or k.startswith("teacher") for k in d.state_dict())
    loss.backward()
    assert all(p.grad is None for p in teacher.parameters())


def test_eager_equals_to_static_and_captured_train_step():
    teacher = cnn(8, 1)
    ds = [Distill(copy.deepcopy(CONFIG), cnn(4, 2), teacher) for _ in range(3)]
    for d in ds[1:]:
        d.adapters[0].weight.set_value(ds[0].adapters[0].weight.numpy())
        d.adapters[0].bias.set_value(ds[0].adapters[0].bias.numpy())
    opts = [oar.optimizer.Adam(0.01, parameters=d.parameters()) for d in ds]
    fwd = oar.jit.to_static(ds[1].forward)

    def make_step(call, opt):
        def step(x, y):
            dl, s, _ = call(x)
            loss = dl + nn.functional.cross_entropy(s, y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        return step

    steps = [make_step(ds[0], opts[0]), make_step(fwd, opts[1]), oar.jit.to_static(make_step(ds[2], opts[2]))]
    for _ in range(3):
        x = oar.to_tensor(rng.standard_normal([4, 1, 8, 8]).astype("float32"))
        y = oar.to_tensor(rng.integers(0, 10, [4, 1]).astype("int64"))
        losses = [float(f(x, y)) for f in steps]
        np.testing.assert_allclose(losses[1:], [losses[0]] * 2, rtol=1e-5)
    for a, b in zip(ds[0].parameters(), ds[2].parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_bad_configs_are_refused():
    t, s = cnn(8, 1), cnn(4, 2)
    with pytest.raises(ValueError, match="no sublayer named"):
        Distill([{"loss_function": "l2", "layers": [{"layers_name": ["9", "1"]}]}], s, t)
    with pytest.raises(ValueError, match="loss_function"):
        Distill([{"loss_function": "fsp", "layers": [{"layers_name": ["1", "1"]}]}], s, t)
    with pytest.raises(ValueError, match="unsupported layer config"):
        Distill([{"loss_function": "l2", "layers": [{"layers_name": ["1", "1"], "io": ["input", "input"]}]}], s, t)


def test_data_parallel_distillation_on_two_mpi_ranks_equals_one_process(tmp_path):
    pytest.importorskip("mpi4py")
    from oar.distributed.launch import find_mpiexec
    try:
        mpiexec = find_mpiexec()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]),
               OAR_DISTRIBUTED_TIMEOUT="60")
    r = subprocess.run([mpiexec, "-n", "2", sys.executable, os.path.join(HERE, "distill_dp_job.py"), str(tmp_path)],
                       env=env, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    for k in range(2):
        res = json.load(open(tmp_path / f"result.{k}.json"))
        assert res["eager"] < 1e-9 and res["to_static"] < 1e-9, res
