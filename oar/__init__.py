"""oar: write models as imperative Python, add `@oar.jit.to_static`, get a static graph that trains faster,
saves to files that run with no Python source, and exports to ONNX. The API follows PaddlePaddle 2.x."""
from .core.info import VERSION as __version__
from .core import dtype as _dtype
from .core.dtype import (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, complex64, complex128,
                         get_default_dtype, set_default_dtype, DType)
from .core.dtype import bool_ as bool  # noqa: A001  (Paddle names the dtype `paddle.bool`)
from .core.state import (seed, in_dynamic_mode, no_grad, enable_grad, set_grad_enabled, is_grad_enabled, CPUPlace,
                         CUDAPlace, set_device, get_device, is_compiled_with_cuda, get_rng_state, set_rng_state,
                         get_cuda_rng_state, set_cuda_rng_state, disable_signal_handler)
from .eager.printing import set_printoptions
from .core.tensor_methods import install as _install
from .tensor import method_table as _ops
from .tensor import *  # noqa: F401,F403  (every tensor function: paddle.tensor's names are paddle's too)
from .tensor import Tensor
from .ops import nn as _nn_ops  # noqa: F401  (registers the layer ops: conv, pool, norm, activations)
from .io.save_load import save, load
from . import io, regularizer  # noqa: E402
from .io.batch import batch  # noqa: E402
from . import metric  # noqa: E402


# The layers above the executor load on first use (PEP 562), so that `oar.lite` can run a saved model with only
# the ops, the executor and the model files imported. `import oar.nn` and `from oar import nn` work as usual.
_LAZY_MODULES = ("nn", "optimizer", "vision", "dataset", "fluid", "jit", "amp", "onnx", "hapi", "autograd",
                 "distributed", "callbacks", "device", "text", "quantization", "distribution", "linalg", "fft",
                 "signal", "sparse", "framework", "lite", "serving", "version", "base", "incubate", "geometric",
                 "audio")
_LAZY_NAMES = {"grad": "autograd", "ParamAttr": "nn.param_attr", "create_parameter": "nn.initializer", "Model": "hapi",
               "DataParallel": "distributed", "summary": "hapi", "flops": "hapi", "lazy": "jit.lazy",
               **{f"is_compiled_with_{k}": "device" for k in ("xpu", "rocm", "ipu", "cinn", "custom_device",
                                                               "distribute")}}
from .core.info import finfo, iinfo, get_flags, set_flags, LazyGuard, FLAGS as _FLAGS  # noqa: E402


def _set_lazy_flag(on):  # FLAGS_lazy switches oar.jit.lazy (imported on first use)
    from .jit.lazy import set_lazy_flag
    set_lazy_flag(on)


_FLAGS.on_set["FLAGS_lazy"] = _set_lazy_flag


# One lazy load at a time: the layers' packages import each other (oar.nn.layer <-> oar.nn.functional), and two
# threads importing them in different orders can each see the other's module half-initialized.
_LAZY_LOCK = __import__("threading").RLock()


def __getattr__(name):
    if name in _LAZY_MODULES or name in _LAZY_NAMES:
        import importlib
        with _LAZY_LOCK:
            mod = importlib.import_module(f".{_LAZY_NAMES.get(name, name)}", __name__)
        value = getattr(mod, name) if name in _LAZY_NAMES else mod
        globals()[name] = value
        return value
    if name == "data":  # Paddle 1.8's top-level placeholder, named by the seeds
        raise AttributeError("paddle.data moved to paddle.static.data in Paddle 2.0 (call paddle.enable_static() "
                             "first); under @paddle.jit.to_static use paddle.static.InputSpec")
    raise AttributeError(f"module 'oar' has no attribute {name!r}")

_install(_ops.METHODS)
from .eager import device as _device  # noqa: E402  (cpu, cuda, to, ... and the eager-only strides, data, ...)
_install(_device.SHARED)
for _k, _v in _device.METHODS.items():
    setattr(Tensor, _k, _v)

from . import static  # noqa: E402
from .graph import op_schema as _op_schema  # noqa: E402  (a model file's op types: the packages that define ops)
_op_schema.OP_PACKAGES[:] = ["oar.ops", "oar.eager", "oar.graph", "oar.passes", "oar.nn", "oar.jit", "oar.optimizer",
                             "oar.amp", "oar.vision", "oar.distributed", "oar.distribution"]
from .static import enable_static, disable_static  # noqa: E402
from . import inference  # noqa: E402
from . import utils  # noqa: E402

dtype = DType


# The layers' own folders are importable (`oar.graph.executor`) but are not Paddle's API, so `dir(oar)` leaves them out.
_INTERNAL = {"core", "eager", "graph", "ir", "kernels", "ops", "passes"}


def __dir__():
    return sorted((set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES)) - _INTERNAL)
