"""InceptionV3 beyond the Paddle reference outputs (test_paddle_model_refs.py) and state-dict keys
(test_pretrained.py): the headless forms, Paddle's reshape head without pooling, to_static and jit.save/load equal
to eager, and a training step reaching the stem."""
import numpy as np

import oar
from oar.static import InputSpec
from oar.vision.models import InceptionV3, inception_v3


def test_headless_forms_and_smallest_input():
    """75x75 is the smallest side whose stem and two stride-2 reductions leave a 1x1 map."""
    x = oar.ones([2, 3, 75, 75])
    assert InceptionV3(num_classes=0, with_pool=False)(x).shape == [2, 2048, 1, 1]
    assert InceptionV3(num_classes=0)(oar.ones([1, 3, 139, 139])).shape == [1, 2048, 1, 1]
    model = inception_v3(num_classes=7)
    assert [k for k in model.state_dict() if not k.startswith("inception_")] == ["fc.weight", "fc.bias"]
    assert len(model.inception_block_list) == 11


def test_without_pool_the_head_reshapes_to_rows_of_2048_as_paddle():
    """Paddle reshapes the 3x3 map of a 139x139 input to [-1, 2048] (memory order: channels and positions mixed),
    giving [18, 10] for a batch of 2 in Paddle 3.3.1."""
    oar.seed(3)
    model = InceptionV3(num_classes=10, with_pool=False)
    model.eval()
    x = oar.to_tensor(np.random.default_rng(0).standard_normal((2, 3, 139, 139)).astype("float32"))
    out = model(x)
    assert out.shape == [18, 10]
    feats = model.inception_stem(x)
    for block in model.inception_block_list:
        feats = block(feats)
    assert feats.shape == [2, 2048, 3, 3]
    # eval-mode dropout in "downscale_in_infer" mode scales by 1 - p = 0.8
    want = 0.8 * feats.numpy().reshape(-1, 2048) @ model.fc.weight.numpy() + model.fc.bias.numpy()
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)


def test_to_static_and_jit_save_load_equal_eager(tmp_path):
    oar.seed(4)
    model = InceptionV3(num_classes=10)
    model.eval()
    x = oar.to_tensor(np.random.default_rng(1).standard_normal((2, 3, 75, 75)).astype("float32"))
    eager = model(x).numpy()
    spec = [InputSpec([None, 3, 75, 75], "float32", "image")]
    static = oar.jit.to_static(model, input_spec=spec)
    np.testing.assert_allclose(static(x).numpy(), eager, rtol=1e-5, atol=1e-6)
    oar.jit.save(static, str(tmp_path / "inception"), input_spec=spec)
    loaded = oar.jit.load(str(tmp_path / "inception"))
    np.testing.assert_allclose(loaded(x).numpy(), eager, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loaded(x[:1]).numpy(), eager[:1], rtol=1e-5, atol=1e-6)


def test_training_step_reaches_the_stem():
    oar.seed(5)
    model = InceptionV3(num_classes=3)
    x = oar.to_tensor(np.random.default_rng(2).standard_normal((2, 3, 75, 75)).astype("float32"))
    loss = oar.nn.CrossEntropyLoss()(model(x), oar.to_tensor(np.array([[0], [2]])))
    loss.backward()
    grad = model.inception_stem.conv_1a_3x3[0].weight.grad
    assert np.isfinite(float(loss)) and grad is not None and float(np.abs(grad.numpy()).sum()) > 0
