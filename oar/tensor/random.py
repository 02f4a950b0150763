"""`paddle.tensor.random` (Paddle's module path, which model code imports): the functions Paddle's module has
that oar has, the objects of `oar.tensor`."""
from .. import tensor as _tensor

NAMES = ["bernoulli", "gaussian", "multinomial", "normal", "poisson", "rand", "rand_like", "randint",
         "randint_like", "randn", "randn_like", "randperm", "standard_normal", "uniform"]
globals().update({n: getattr(_tensor, n) for n in NAMES})
