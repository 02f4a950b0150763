"""`Tensor.detach()` of a parameter inside a converted function reads the parameter at each run (it was a
constant frozen at trace time: stale once an optimizer replaced the parameter's values)."""
import numpy as np

import oar


def test_detached_parameter_follows_optimizer_updates():
    lin = oar.nn.Linear(2, 2)
    opt = oar.optimizer.SGD(0.5, parameters=lin.parameters())

    @oar.jit.to_static
    def f(x):
        return lin.weight.detach().sum() + x.sum()

    x = oar.ones([1])
    for _ in range(2):
        np.testing.assert_allclose(float(f(x)), float(lin.weight.sum()) + 1, rtol=1e-6)
        lin(oar.ones([1, 2])).sum().backward()
        opt.step()
        opt.clear_grad()
    y = f(x)
    np.testing.assert_allclose(float(y), float(lin.weight.sum()) + 1, rtol=1e-6)
