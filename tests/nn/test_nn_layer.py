"""Layer API: parameters, names, sublayers, buffers, state dicts, hooks, modes, containers, ParamAttr."""
import numpy as np
import pytest

import oar
import oar.nn as nn
from oar.nn import initializer as I


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1D(3)
        self.register_buffer("steps", oar.to_tensor(np.zeros([1], np.float32)))
        self.register_buffer("tmp", oar.to_tensor(np.ones([2], np.float32)), persistable=False)

    def forward(self, x):
        return self.bn(self._linear(x))


def test_parameters_and_names():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["_linear.weight", "_linear.bias", "bn.weight", "bn.bias", "bn._mean", "bn._variance"]
    w = net._linear.weight
    assert isinstance(w, oar.Parameter) and not w.stop_gradient
    assert w.name.startswith(net._linear.full_name() + ".w_")
    assert net._linear.bias.name.startswith(net._linear.full_name() + ".b_")
    assert net.bn._mean.stop_gradient  # running statistics are not trained
    assert [n for n, _ in net.named_sublayers()] == ["_linear", "bn"]
    assert net.children() == [net._linear, net.bn]
    assert net._linear.full_name().startswith("linear_")


def test_state_dict_round_trip_and_buffers():
    a, b = Net(), Net()
    sd = a.state_dict()
    assert "steps" in sd and "tmp" not in sd
    assert list(sd)[:3] == ["steps", "_linear.weight", "_linear.bias"]  # own entries first, as Paddle
    missing, unexpected = b.set_state_dict({k: v.numpy() * 2 for k, v in sd.items()})
    assert missing == [] and unexpected == []
    np.testing.assert_allclose(b._linear.weight.numpy(), a._linear.weight.numpy() * 2)
    # by the parameters' own names
    c = Net()
    by_name = {pc.name: pa for pc, pa in zip(c.parameters(), a.parameters())}
    c.set_state_dict(by_name, use_structured_name=False)
    np.testing.assert_allclose(c._linear.weight.numpy(), a._linear.weight.numpy())


def test_state_dict_name_map_and_errors():
    a, b = nn.Linear(2, 3), nn.Linear(2, 3)

    class Loaded(dict):
        pass
    st = Loaded({"saved_w": a.weight.numpy(), "saved_b": a.bias.numpy()})
    st.name_map = {"weight": "saved_w", "bias": "saved_b"}
    b.set_state_dict(st, use_structured_name=False)
    np.testing.assert_allclose(b.weight.numpy(), a.weight.numpy())
    with pytest.raises(ValueError, match=r"weight.*\[2, 3\].*\[3, 3\]"):
        b.set_state_dict({"weight": np.zeros([3, 3], np.float32)})
    missing, unexpected = b.set_state_dict({"weight": a.weight, "extra": a.bias})
    assert missing == ["bias"] and unexpected == ["extra"]


def test_hooks():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda layer, inp: (inp[0] * 0,))
    h2 = lin.register_forward_post_hook(lambda layer, inp, out: calls.append(out.shape) or out + 1)
    y = lin(oar.ones([1, 2]))
    np.testing.assert_allclose(y.numpy(), lin.bias.numpy()[None] + 1, rtol=1e-6)
    assert calls == [[1, 2]]
    h1.remove()
    h2.remove()
    y = lin(oar.ones([1, 2]))
    np.testing.assert_allclose(y.numpy(), np.ones([1, 2]) @ lin.weight.numpy() + lin.bias.numpy(), rtol=1e-6)


def test_hooks_registered_after_the_first_call_run():
    """A layer called once without hooks runs hooks registered later (no cached fast path), then stops again."""
    lin = nn.Linear(2, 2)
    x = oar.ones([1, 2])
    plain = lin(x).numpy()
    seen = []
    pre = lin.register_forward_pre_hook(lambda layer, inp: seen.append("pre") or (inp[0] * 2,))
    post = lin.register_forward_post_hook(lambda layer, inp, out: seen.append("post") or out * 0)
    np.testing.assert_array_equal(lin(x).numpy(), np.zeros([1, 2], np.float32))
    assert seen == ["pre", "post"]
    post.remove()
    np.testing.assert_allclose(lin(x).numpy(), (2 * np.ones([1, 2])) @ lin.weight.numpy() + lin.bias.numpy(),
                               rtol=1e-6)
    pre.remove()
    np.testing.assert_array_equal(lin(x).numpy(), plain)
    assert seen == ["pre", "post", "pre"]


def test_attribute_lookup_finds_parameters_sublayers_buffers_in_that_order():
    class Early(nn.Layer):
        def __init__(self):
            self.probe = hasattr(self, "weight")  # before Layer.__init__: no stores yet, AttributeError
            super().__init__()

    assert Early().probe is False
    net = Net()
    net.register_buffer("stat", oar.ones([1]))
    assert net._linear is net._sub_layers["_linear"] and net.stat is net._buffers["stat"]
    assert net._linear.weight is net._linear._parameters["weight"]
    net._linear.weight = None  # a removed parameter reads as None, not as missing
    assert net._linear.weight is None
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nothing'"):
        _ = net.nothing


def test_train_eval_apply_to_clear():
    net = Net()
    assert net.training and net.bn.training
    net.eval()
    assert not net.training and not net._linear.training
    net.train()
    seen = []
    net.apply(lambda l: seen.append(type(l).__name__))
    assert seen == ["Linear", "BatchNorm1D", "Net"]
    net.to(dtype="float64")
    assert net._linear.weight.dtype == oar.float64 and net.steps.dtype == oar.float64
    y = net(oar.ones([2, 4], dtype="float64"))
    y.sum().backward()
    assert net._linear.weight.grad is not None
    net.clear_gradients()
    assert float(np.abs(net._linear.weight.grad.numpy()).sum()) == 0.0
    assert "Linear(in_features=4, out_features=3" in repr(net)


def test_setattr_rules():
    net = Net()
    with pytest.raises(TypeError):
        net._linear = 3
    net.extra = nn.ReLU()
    assert "extra" in dict(net.named_children())
    del net.extra
    assert "extra" not in dict(net.named_children())
    p = net.create_parameter([2], is_bias=True)
    net.add_parameter("p", p)
    assert net.p is p and "p" in net.state_dict()

    class Bad(nn.Layer):
        def __init__(self):
            self.lin = nn.Linear(1, 1)
    with pytest.raises(RuntimeError, match="super"):
        Bad()


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[1], nn.ReLU) and isinstance(seq[-1], nn.Linear)
    assert seq(oar.ones([4, 2])).shape == [4, 1]
    assert len(seq[:2]) == 2
    named = nn.Sequential(("a", nn.Linear(2, 2)), ("b", nn.ReLU()))
    assert list(named.state_dict()) == ["a.weight", "a.bias"]
    ll = nn.LayerList([nn.Linear(2, 2) for _ in range(3)])
    ll.append(nn.Linear(2, 2))
    assert len(ll) == 4 and len(ll.parameters()) == 8
    ll.insert(0, nn.ReLU())
    assert isinstance(ll[0], nn.ReLU) and len(ll) == 5
    ld = nn.LayerDict({"x": nn.Linear(1, 1)})
    ld["y"] = nn.Linear(1, 2)
    assert list(ld.keys()) == ["x", "y"] and "y" in ld and len(ld.parameters()) == 4
    pl = nn.ParameterList([nn.Linear(1, 1).weight for _ in range(2)])
    assert len(pl) == 2 and len(pl.parameters()) == 2
    with pytest.raises(TypeError):
        pl.append(oar.ones([1]))


def test_param_attr():
    attr = oar.ParamAttr(name="my_w", initializer=I.Constant(0.5), learning_rate=0.1, trainable=True,
                         need_clip=False, regularizer="reg")
    lin = nn.Linear(3, 2, weight_attr=attr, bias_attr=False)
    assert lin.bias is None and lin.weight.name == "my_w"
    np.testing.assert_allclose(lin.weight.numpy(), 0.5)
    assert lin.weight.optimize_attr["learning_rate"] == 0.1
    assert lin.weight.need_clip is False and lin.weight.regularizer == "reg"
    frozen = nn.Linear(2, 2, weight_attr=oar.ParamAttr(trainable=False))
    assert frozen.weight.stop_gradient and not frozen.weight.trainable
    assert len(nn.Linear(2, 2, bias_attr=False).parameters()) == 1
    conv = nn.Conv2D(2, 4, 3, weight_attr=I.Constant(1.0), bias_attr=oar.ParamAttr(initializer=I.Constant(2.0)))
    np.testing.assert_allclose(conv.weight.numpy(), 1.0)
    np.testing.assert_allclose(conv.bias.numpy(), 2.0)


def test_initializers_defaults_and_seed():
    oar.seed(7)
    a = nn.Linear(64, 32)
    oar.seed(7)
    b = nn.Linear(64, 32)
    np.testing.assert_array_equal(a.weight.numpy(), b.weight.numpy())
    limit = np.sqrt(6.0 / (64 + 32))  # XavierUniform
    assert np.abs(a.weight.numpy()).max() <= limit and np.abs(a.weight.numpy()).max() > 0.8 * limit
    np.testing.assert_array_equal(a.bias.numpy(), 0)
    conv = nn.Conv2D(8, 16, 3)
    std = np.sqrt(2.0 / (8 * 9))
    assert abs(conv.weight.numpy().std() - std) < 0.15 * std
    p = oar.Parameter(np.zeros([2000, 50], np.float32))
    I.TruncatedNormal(0.0, 1.0)(p)
    assert np.abs(p.numpy()).max() <= 2.0 and abs(p.numpy().std() - 0.88) < 0.05
    I.KaimingUniform()(p)
    assert np.abs(p.numpy()).max() <= np.sqrt(6.0 / 2000)
    I.KaimingNormal()(p)
    assert abs(p.numpy().std() - np.sqrt(2.0 / 2000)) < 0.05 * np.sqrt(2.0 / 2000)
    I.XavierNormal()(p)
    assert abs(p.numpy().std() - np.sqrt(2.0 / 2050)) < 0.05 * np.sqrt(2.0 / 2050)
    I.Uniform(2, 3)(p)
    assert p.numpy().min() >= 2 and p.numpy().max() <= 3
    q = oar.Parameter(np.zeros([2, 2], np.float32))
    I.Assign(np.arange(4).reshape(2, 2))(q)
    np.testing.assert_array_equal(q.numpy(), [[0, 1], [2, 3]])


def test_static_parameters_go_to_programs():
    from oar.graph import builder
    from oar.static import Program
    main, startup = Program(), Program()
    with builder.program_guard(main, startup), builder.static_mode():
        lin = nn.Linear(4, 2, weight_attr=oar.ParamAttr(learning_rate=0.5))
        x = builder.data("x", [None, 4])
        y = lin(x)
    gb = main.global_block()
    w = gb.vars[lin.weight.name]
    assert w.is_parameter and w.persistable and w.attrs["optimize_attr"]["learning_rate"] == 0.5
    init_types = [op.type for op in startup.global_block().ops]
    assert init_types == ["uniform_random", "full"]
    assert startup.global_block().ops[0].outputs["out"] == [lin.weight.name]
    assert y.shape == [-1, 2]
    with builder.program_guard(main, startup), builder.static_mode():
        v = I.init_static_parameter([3], "float32", "extra_bias", None, is_bias=True)
    assert v.is_parameter and startup.global_block().ops[-1].type == "full"


def test_parameters_to_vector():
    lin = nn.Linear(2, 3)
    v = nn.utils.parameters_to_vector(lin.parameters())
    assert v.shape == [9]
    nn.utils.vector_to_parameters(oar.to_tensor(np.arange(9, dtype=np.float32)), lin.parameters())
    np.testing.assert_array_equal(lin.bias.numpy(), [6, 7, 8])
