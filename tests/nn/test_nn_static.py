"""The nn functionals build static programs whose forward and backward match eager mode."""
import numpy as np

import oar
import oar.nn as nn
import oar.nn.functional as F
from oar.graph import builder
from oar.static import Program

rng = np.random.default_rng(5)


def lenet():
    return nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2), nn.Conv2D(4, 6, 3),
                         nn.BatchNorm2D(6), nn.Sigmoid(), nn.AdaptiveAvgPool2D(1), nn.Flatten(), nn.Linear(6, 3))


def test_eager_layer_in_static_program_matches_eager():
    """A layer built eagerly (as dy2static does) binds its parameters into the program."""
    static_mod = oar.static
    oar.seed(0)
    model = lenet()
    model.eval()
    x = rng.normal(size=(2, 1, 8, 8)).astype(np.float32)
    lab = np.array([[1], [2]])
    eager_loss = F.cross_entropy(model(oar.to_tensor(x)), oar.to_tensor(lab))
    eager_loss.backward()
    main = Program()
    with builder.program_guard(main, Program()), builder.static_mode():
        xv = builder.data("x", [None, 1, 8, 8])
        yv = builder.data("y", [None, 1], "int64")
        loss = F.cross_entropy(model(xv), yv)
        grads = static_mod.gradients([loss], [main.global_block().var(model[0].weight.name)])
    exe = static_mod.Executor()
    out = exe.run(main, feed={"x": x, "y": lab}, fetch_list=[loss] + list(grads))
    np.testing.assert_allclose(out[0], eager_loss.numpy(), rtol=1e-5)
    np.testing.assert_allclose(out[1], model[0].weight.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_static_shapes_with_unknown_batch():
    main = Program()
    with builder.program_guard(main, Program()), builder.static_mode():
        x = builder.data("x", [None, 3, 9, 9])
        y = F.conv2d(x, oar.ones([4, 3, 3, 3]), stride=2, padding="same")
        assert y.shape == [-1, 4, 5, 5]
        assert F.max_pool2d(y, 2, ceil_mode=True).shape == [-1, 4, 3, 3]
        assert F.adaptive_avg_pool2d(y, [2, 3]).shape == [-1, 4, 2, 3]
        assert F.conv2d_transpose(y, oar.ones([4, 2, 3, 3]), stride=2).shape == [-1, 2, 11, 11]
        assert F.interpolate(y, size=[7, 7], mode="bilinear").shape == [-1, 4, 7, 7]
        seq = builder.data("s", [None, 6], "int64")
        assert F.embedding(seq, oar.ones([10, 8])).shape == [-1, 6, 8]
