"""`oar.lite`: run a saved inference model with nothing but NumPy, safetensors and the executor.

Paddle Lite's role beside Paddle Inference: a deployment process that loads the files `oar.jit.save` wrote and
runs them, without the training framework. Importing `oar.lite` loads the op kernels, the program IR, the model
file reader and the executor; `oar.nn`, `oar.jit`, autograd and the optimizers are never imported (tested in a
fresh interpreter), and the only third-party packages are numpy and safetensors (``pip install oar-dl``; see
docs/lite.md). The names follow Paddle Lite's Python API (`MobileConfig`, `create_paddle_predictor`,
``get_input(i).from_numpy``, ``get_output(i).numpy()``); `load` is the one-line form.

Example:
    >>> from oar.static import InputSpec
    >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net', input_spec=[InputSpec([None, 4], 'float32', 'x')])
    >>> import oar.lite
    >>> predictor = oar.lite.load('model/net')
    >>> out, = predictor.run([np.ones([3, 4], 'float32')])
    >>> out.shape
    (3, 2)
"""
import os

from .inference.config import Config
from .inference.predictor import Predictor
from .ops import nn as _nn_ops  # noqa: F401  (registers the layer ops a saved model may use: conv, pool, norm)

__all__ = ["MobileConfig", "LitePredictor", "create_paddle_predictor", "load"]


class MobileConfig:
    """Where the model is and how many math threads to use (Paddle Lite's ``MobileConfig``).

    Example:
        >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net',
        ...              input_spec=[oar.static.InputSpec([None, 4], 'float32', 'x')])
        >>> config = oar.lite.MobileConfig()
        >>> config.set_model_from_file('model/net')        # the prefix or the .pdmodel file
        >>> predictor = oar.lite.create_paddle_predictor(config)
    """

    def __init__(self):
        self._path = None
        self._threads = None
        self._optimize = True

    def set_model_from_file(self, path):
        """The model: the prefix given to `oar.jit.save` (``model/net``) or its ``.pdmodel`` file."""
        self._path = os.fspath(path)

    def model_from_file(self):
        return self._path

    def set_threads(self, n):
        """Math library (BLAS) threads; needs the optional `threadpoolctl`, as the predictor's setting."""
        self._threads = int(n)

    def threads(self):
        return self._threads

    def set_optimize(self, on=True):
        """Apply the inference passes at load time (on by default; off runs the program exactly as saved)."""
        self._optimize = bool(on)


class _Handle:
    """Input or output `i` of a `LitePredictor`: ``from_numpy`` / ``numpy()`` / ``shape()``."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def name(self):
        return self._tensor.name

    def from_numpy(self, array):
        self._tensor.copy_from_cpu(array)

    def numpy(self):
        return self._tensor.copy_to_cpu()

    def shape(self):
        return self._tensor.shape()


class LitePredictor:
    """Runs one saved model. `run(arrays)` returns the outputs; or set inputs by index and call `run()`.

    Example:
        >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net',
        ...              input_spec=[oar.static.InputSpec([None, 4], 'float32', 'x')])
        >>> predictor = oar.lite.load('model/net')
        >>> predictor.get_input(0).from_numpy(np.ones([3, 4], 'float32'))
        >>> predictor.run()
        >>> predictor.get_output(0).numpy().shape
        (3, 2)
    """

    def __init__(self, config):
        if config.model_from_file() is None:
            raise ValueError("MobileConfig has no model: call set_model_from_file(prefix) first")
        inner = Config(config.model_from_file())
        inner.switch_ir_optim(config._optimize)
        if config.threads() is not None:
            inner.set_cpu_math_library_num_threads(config.threads())
        self._predictor = Predictor(inner)
        self.inputs, self.outputs = self._predictor.inputs, self._predictor.outputs

    def get_input_names(self):
        return self._predictor.get_input_names()

    def get_output_names(self):
        return self._predictor.get_output_names()

    def get_input(self, i):
        return _Handle(self._predictor.get_input_handle(self._predictor.get_input_names()[i]))

    def get_output(self, i):
        return _Handle(self._predictor.get_output_handle(self._predictor.get_output_names()[i]))

    def run(self, inputs=None):
        """With `inputs` (arrays in input order) returns the output arrays; without, runs on the inputs set by
        ``get_input(i).from_numpy`` (read the results with ``get_output(i).numpy()``)."""
        if inputs is not None:
            return self._predictor.run(inputs)
        self._predictor.run()
        return None


def create_paddle_predictor(config):
    """A `LitePredictor` for `config` (a `MobileConfig`).

    Example:
        >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net',
        ...              input_spec=[oar.static.InputSpec([None, 4], 'float32', 'x')])
        >>> config = oar.lite.MobileConfig()
        >>> config.set_model_from_file('model/net.pdmodel')
        >>> oar.lite.create_paddle_predictor(config).get_input_names()
        ['x']
    """
    return LitePredictor(config)


def load(path, optimize=True):
    """A `LitePredictor` for the model saved at `path` (a prefix or ``.pdmodel`` file).

    Example:
        >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net',
        ...              input_spec=[oar.static.InputSpec([None, 4], 'float32', 'x')])
        >>> oar.lite.load('model/net').get_input_names()
        ['x']
    """
    config = MobileConfig()
    config.set_model_from_file(path)
    config.set_optimize(optimize)
    return LitePredictor(config)
