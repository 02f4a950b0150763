"""oar: write models as imperative Python, add `@oar.jit.to_static`, get a static graph that trains faster,
saves to files that run with no Python source, and exports to ONNX. The API follows PaddlePaddle 2.x."""
from .framework.info import VERSION as __version__
from .framework import dtype as _dtype
from .framework.dtype import (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, complex64,
                              complex128, get_default_dtype, set_default_dtype, DType)
from .framework.dtype import bool_ as bool  # noqa: A001  (Paddle names the dtype `paddle.bool`)
from .framework.state import (seed, in_dynamic_mode, no_grad, enable_grad, set_grad_enabled, is_grad_enabled,
                              CPUPlace, CUDAPlace, set_device, get_device, is_compiled_with_cuda,
                              get_rng_state, set_rng_state)
from .tensor import Tensor, Parameter, to_tensor, is_tensor
from .tensor.printing import set_printoptions
from .tensor.methods import install as _install
from .ops import method_table as _ops
from .ops.math import *  # noqa: F401,F403
from .ops.reduction import *  # noqa: F401,F403
from .ops.linalg import *  # noqa: F401,F403
from .ops.logic import *  # noqa: F401,F403
from .ops.creation import *  # noqa: F401,F403
from .ops.manipulation import *  # noqa: F401,F403
from .ops.search import *  # noqa: F401,F403
from .ops.indexing import *  # noqa: F401,F403
from .ops.random import *  # noqa: F401,F403
from .ops.special import *  # noqa: F401,F403
from .ops.complex import *  # noqa: F401,F403
from .ops.stat import *  # noqa: F401,F403
from .ops.matrix import *  # noqa: F401,F403
from .ops.rearrange import *  # noqa: F401,F403
from .ops.inplace import *  # noqa: F401,F403
from .ops.manipulation import flip as reverse  # noqa: F401
from .ops.linalg_decomp import *  # noqa: F401,F403
from .ops.linalg_solve import *  # noqa: F401,F403
from .ops.linalg_norm import *  # noqa: F401,F403
from .ops.math import abs, max, min, sum, pow, round  # noqa: F401  (shadow builtins on purpose)
from .ops.logic import all, any  # noqa: F401
from .ops import nn as _nn_ops  # noqa: F401  (registers the layer ops: conv, pool, norm, activations)
from .framework.io import save, load
from .framework.param_attr import ParamAttr
from . import io, regularizer  # noqa: E402
from .batch import batch  # noqa: E402
from . import metric  # noqa: E402


# The layers above the executor load on first use (PEP 562), so that `oar.lite` can run a saved model with only
# the ops, the executor and the model files imported. `import oar.nn` and `from oar import nn` work as usual.
_LAZY_MODULES = ("nn", "optimizer", "vision", "dataset", "fluid", "jit", "amp", "onnx", "hapi", "autograd",
                 "distributed", "callbacks", "device", "text", "quantization", "distribution", "linalg", "fft",
                 "signal", "sparse")
_LAZY_NAMES = {"grad": "autograd", "create_parameter": "nn.initializer", "Model": "hapi",
               "DataParallel": "distributed", "summary": "hapi", "flops": "hapi"}
from .framework.info import finfo, iinfo, get_flags, set_flags, LazyGuard  # noqa: E402


def __getattr__(name):
    if name in _LAZY_MODULES or name in _LAZY_NAMES:
        import importlib
        mod = importlib.import_module(f".{_LAZY_NAMES.get(name, name)}", __name__)
        value = getattr(mod, name) if name in _LAZY_NAMES else mod
        globals()[name] = value
        return value
    if name == "data":  # Paddle 1.8's top-level placeholder, named by the seeds
        raise AttributeError("paddle.data moved to paddle.static.data in Paddle 2.0 (call paddle.enable_static() "
                             "first); under @paddle.jit.to_static use paddle.static.InputSpec")
    raise AttributeError(f"module 'oar' has no attribute {name!r}")

_install(_ops.METHODS)
from .tensor import device as _device  # noqa: E402  (cpu, cuda, to, ... and the eager-only strides, data, ...)
_install(_device.SHARED)
for _k, _v in _device.METHODS.items():
    setattr(Tensor, _k, _v)

from . import static  # noqa: E402
from .static import op_schema as _op_schema  # noqa: E402  (a model file's op types: the packages that define ops)
_op_schema.OP_PACKAGES[:] = ["oar.ops", "oar.tensor", "oar.nn", "oar.optimizer", "oar.static", "oar.jit", "oar.passes",
                             "oar.amp", "oar.vision", "oar.distributed", "oar.distribution"]
from .static import enable_static, disable_static  # noqa: E402
from . import inference  # noqa: E402
from . import utils  # noqa: E402

dtype = DType


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))
