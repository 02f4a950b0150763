"""`paddle.quantization.PTQ` (observers, calibration, convert), `BaseQuanter` / `BaseObserver` and the `quanter`
decorator."""
import numpy as np
import pytest

import oar
from oar.quantization import PTQ, QAT, BaseObserver, BaseQuanter, QuantConfig, quanter
from oar.quantization.observers import AbsmaxObserver
from oar.static import InputSpec


def _net():
    oar.seed(0)
    return oar.nn.Sequential(oar.nn.Conv2D(1, 4, 3), oar.nn.ReLU(), oar.nn.Flatten(), oar.nn.Linear(64, 3))


def _batches():
    rng = np.random.RandomState(0)
    return [oar.to_tensor(rng.uniform(-2, 2, (2, 1, 6, 6)).astype("float32")) for _ in range(4)]


def test_observers_record_the_largest_magnitude_and_convert_freezes_it():
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
    net = _net().eval()
    model = ptq.quantize(net)
    xs = _batches()
    outs = [model(x).numpy() for x in xs]
    for x, o in zip(xs, outs):  # observers return their input: calibration runs the float model
        np.testing.assert_array_equal(o, net(x).numpy())
    conv = model[0]
    want = max(float(np.abs(x.numpy()).max()) for x in xs)
    assert float(conv.activation_quanter.scales()) == pytest.approx(want, rel=1e-7)
    assert float(conv.weight_quanter.scales()) == pytest.approx(float(np.abs(net[0].weight.numpy()).max()), rel=1e-7)
    converted = ptq.convert(model)
    assert converted[0].weight_int8.dtype == oar.int8
    assert float(converted[0].activation_quanter.scale) == pytest.approx(want / 127, rel=1e-6)
    ref, got = net(xs[0]).numpy(), converted(xs[0]).numpy()
    assert np.abs(got - ref).max() < 0.05 * np.abs(ref).max()  # int8 rounding, not a different model
    assert not np.array_equal(got, ref)


def test_ptq_needs_eval_mode_and_calibration():
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
    with pytest.raises(ValueError, match="eval mode"):
        ptq.quantize(_net())
    model = ptq.quantize(_net().eval())
    with pytest.raises(RuntimeError, match="no calibration data"):
        ptq.convert(model)


def test_ptq_model_saves_and_the_predictor_runs_it(tmp_path):
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
    model = ptq.quantize(_net().eval())
    xs = _batches()
    for x in xs:
        model(x)
    converted = ptq.convert(model)
    path = ptq.save_quantized_model(converted, str(tmp_path / "int8"), [InputSpec([None, 1, 6, 6], "float32", "x")])
    pred = oar.inference.create_predictor(oar.inference.Config(path[:-len(".pdmodel")]))
    out = pred.run([xs[1].numpy()])[0]
    # the QDQ file quantizes the conv and linear inputs only (not the leaf layers' inputs the converted model also
    # rounds, as QAT's export: docs/compression.md), so it is compared with the float model within int8 error
    ref = _net().eval()(xs[1]).numpy()
    assert np.abs(out - ref).max() < 0.05 * np.abs(ref).max()
    assert np.abs(out - converted(xs[1]).numpy()).max() < 0.05 * np.abs(ref).max()


@quanter("HalfStepQuanter")
class HalfStepQuanterLayer(BaseQuanter):
    """Rounds to multiples of `step` (a straight-through round)."""

    def __init__(self, layer, step=0.5):
        super().__init__()
        self.step = step

    def forward(self, x):
        return x + ((x / self.step).round() * self.step - x).detach()

    def scales(self):
        return oar.to_tensor([self.step * 127])

    def zero_points(self):
        return None

    def quant_axis(self):
        return -1

    def bit_length(self):
        return 8


def test_the_quanter_decorator_makes_a_factory_qat_uses():
    factory = HalfStepQuanter(step=0.25)  # noqa: F821 -- defined in this module by @quanter
    assert type(factory).__name__ == "HalfStepQuanter" and repr(factory) == "HalfStepQuanter(step=0.25)"
    qat = QAT(QuantConfig(activation=factory, weight=None))
    model = qat.quantize(oar.nn.Sequential(oar.nn.Linear(2, 1, bias_attr=False)))
    x = oar.to_tensor([[0.3, 0.6]])
    w = model[0].weight.numpy()
    np.testing.assert_allclose(model(x).numpy(), np.round(x.numpy() / 0.25) * 0.25 @ w, rtol=1e-6)
    assert isinstance(model[0].activation_quanter, HalfStepQuanterLayer)


def test_abstract_bases_refuse_incomplete_subclasses():
    class NoThresholds(BaseObserver):
        def forward(self, x):
            return x

        def scales(self):
            return None

        def zero_points(self):
            return None

        def quant_axis(self):
            return -1

        def bit_length(self):
            return 8

    with pytest.raises(TypeError, match="cal_thresholds"):
        NoThresholds()
    with pytest.raises(TypeError, match="subclass of BaseQuanter"):
        quanter("Bad")(object)
