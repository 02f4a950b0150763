"""Vision models: shapes, Paddle's parameter names and counts, pretrained=True refused where Paddle publishes no
weights, eager training works."""
import numpy as np
import pytest

import oar
from oar.vision import models as M


def n_params(model):
    """Trainable parameters (Paddle's BatchNorm keeps its running statistics as non-trainable parameters)."""
    return sum(int(np.prod(p.shape)) for p in model.parameters() if not p.stop_gradient)


def test_lenet_trains():
    oar.seed(0)
    model = M.LeNet()
    x = oar.to_tensor(np.random.default_rng(0).random((8, 1, 28, 28), dtype=np.float32))
    y = oar.to_tensor(np.arange(8).reshape(8, 1) % 10)
    assert model(x).shape == [8, 10]
    opt = oar.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    loss_fn = oar.nn.CrossEntropyLoss()
    losses = []
    for _ in range(8):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0] * 0.7
    assert M.LeNet(num_classes=0)(x).shape == [8, 16, 5, 5]


@pytest.mark.parametrize("build,count", [(M.resnet18, 11689512), (M.resnet34, 21797672), (M.resnet50, 25557032),
                                         (M.mobilenet_v2, 3504872)])
def test_parameter_counts_match_the_reference_architectures(build, count):
    assert n_params(build()) == count


@pytest.mark.parametrize("build,count", [(M.resnet101, 44549160), (M.resnet152, 60192808)])
def test_deep_resnets_count_and_forward_shape(build, count):
    model = build(num_classes=1000)
    assert n_params(model) == count
    model.eval()
    assert model(oar.randn([1, 3, 32, 32])).shape == [1, 1000]


def test_forward_shapes_with_default_heads():
    """Default heads (1000 classes); adaptive pooling lets small inputs through."""
    for build, size in [(M.resnet34, 32), (M.mobilenet_v2, 64)]:
        model = build()
        model.eval()
        assert model(oar.randn([2, 3, size, size])).shape == [2, 1000], build.__name__
    vgg = M.vgg16(num_classes=10)
    vgg.eval()
    assert vgg(oar.randn([1, 3, 32, 32])).shape == [1, 10]
    assert vgg.classifier[0].weight.shape == [512 * 7 * 7, 4096]  # AdaptiveAvgPool2D(7) before the head


def test_vgg16_features():
    model = M.vgg16(num_classes=0, with_pool=False)
    assert n_params(model) == 14714688        # the 13 convolutions of VGG-16
    out = model(oar.randn([1, 3, 32, 32]))
    assert out.shape == [1, 512, 1, 1]


def test_resnet_names_and_shapes():
    model = M.resnet18(num_classes=10)
    keys = list(model.state_dict())
    for k in ("conv1.weight", "bn1.weight", "bn1._mean", "bn1._variance", "layer1.0.conv1.weight",
              "layer2.0.downsample.0.weight", "layer4.1.bn2.bias", "fc.weight", "fc.bias"):
        assert k in keys, k
    model.eval()
    assert model(oar.randn([2, 3, 32, 32])).shape == [2, 10]
    assert M.resnet18(num_classes=0, with_pool=False)(oar.randn([1, 3, 64, 64])).shape == [1, 512, 2, 2]


def test_resnet50_eager_training_step():
    oar.seed(1)
    model = M.resnet50(num_classes=4)
    opt = oar.optimizer.Momentum(learning_rate=0.01, parameters=model.parameters())
    x = oar.randn([2, 3, 32, 32])
    y = oar.to_tensor(np.array([[1], [3]]))
    before = model.fc.weight.numpy().copy()
    loss = oar.nn.CrossEntropyLoss()(model(x), y)
    loss.backward()
    assert model.conv1.weight.grad is not None
    opt.step()
    opt.clear_grad()
    assert np.isfinite(float(loss)) and not np.allclose(before, model.fc.weight.numpy())


def test_mobilenet_v2_forward():
    model = M.mobilenet_v2(scale=0.5, num_classes=7)
    model.eval()
    assert model(oar.randn([1, 3, 32, 32])).shape == [1, 7]


@pytest.mark.parametrize("build", [lambda **k: M.mobilenet_v2(scale=0.5, **k), M.vgg11])
def test_pretrained_without_published_weights_is_refused_clearly(build):
    # (published weights are fetched on request: tests/vision/test_pretrained.py)
    with pytest.raises(ValueError, match="no published pretrained weights"):
        build(pretrained=True)


def test_wide_resnet_is_wide_and_basic_block_refuses_a_width():
    """Issue 25: ResNet(BasicBlock, 18, width=128) built a plain resnet18."""
    import oar
    from oar.vision.models import BasicBlock, ResNet, wide_resnet50_2
    model = wide_resnet50_2(num_classes=10)
    assert model.layer1[0].conv1.weight.shape == [128, 64, 1, 1]
    assert sum(p.size for p in model.parameters()) == 66922954  # Paddle 3.3.1's wide_resnet50_2(num_classes=10)
    with pytest.raises(ValueError, match="BasicBlock supports only groups=1 and width 64"):
        ResNet(BasicBlock, 18, width=128)
    assert oar.vision.models.wide_resnet101_2 is not None
