"""The predictor: a saved inference program, optimized by the inference passes, run by the static executor."""
import numpy as np

from ..framework import dtype as D
from ..jit.model_files import load_files
from ..kernels.threads import set_blas_threads
from ..static.budget import applied, naming_source, swap
from ..static.executor import compile_program
from ..tensor.tensor import Tensor as _EagerTensor


class Tensor:
    """An input or output handle of a predictor (Paddle's ``paddle.inference.Tensor``).

    Example:
        >>> from oar.static import InputSpec
        >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net', input_spec=[InputSpec([None, 4], 'float32', 'x')])
        >>> predictor = oar.inference.create_predictor(oar.inference.Config('model/net'))
        >>> h = predictor.get_input_handle('x')
        >>> h.copy_from_cpu(np.zeros([5, 4], 'float32'))
        >>> h.name, h.shape()
        ('x', [5, 4])
    """

    def __init__(self, name, spec):
        self.name, self._spec, self._data = name, spec, None
        self._np = D.np_dtype(spec["dtype"])
        self._shape = list(spec["shape"])

    def reshape(self, shape):
        """Declares the shape of the next input (checked against the saved spec)."""
        shape = [int(d) for d in shape]
        want = self._spec["shape"]
        if len(shape) != len(want) or any(w >= 0 and w != s for w, s in zip(want, shape)):
            raise ValueError(f"input '{self.name}' has shape {want} (-1 is any size); cannot reshape to {shape}")
        self._shape = shape

    def copy_from_cpu(self, data):
        """Sets the input from a NumPy array (copied, cast to the saved dtype when it differs only in width)."""
        a = np.array(getattr(data, "_data", data), copy=True)
        want = self._np
        if a.dtype != want:
            if a.dtype.kind != want.kind:
                raise TypeError(f"input '{self.name}' expects {want.name}, got {a.dtype.name}")
            a = a.astype(want)
        self._data = a
        self._shape = list(a.shape)

    def copy_to_cpu(self):
        """The output as a NumPy array (a copy)."""
        if self._data is None:
            raise RuntimeError(f"'{self.name}' has no value yet: call predictor.run() first")
        return np.array(self._data, copy=True)

    def shape(self):
        return list(self._data.shape) if self._data is not None else list(self._shape)

    def type(self):
        return D.convert_dtype(self._spec["dtype"])

    def lod(self):
        return []


class Predictor:
    """Runs a saved model. Create it with `create_predictor(config)`; `clone()` gives one per thread.

    Example:
        >>> from oar.static import InputSpec
        >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net', input_spec=[InputSpec([None, 4], 'float32', 'x')])
        >>> predictor = oar.inference.create_predictor(oar.inference.Config('model/net'))
        >>> predictor.get_input_handle('x').copy_from_cpu(np.ones([3, 4], 'float32'))
        >>> predictor.run()
        True
        >>> predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu().shape
        (3, 2)
        >>> isinstance(predictor.clone(), oar.inference.Predictor)
        True
    """

    def __init__(self, config, _shared=None):
        from .. import passes
        self.config = config
        if getattr(config, "cpu_threads_set", False):
            set_blas_threads(config.cpu_threads)
        self._budget = config.budget()
        try:
            with applied(self._budget):
                self._load(config, _shared, passes)
        except Exception as e:
            new = naming_source(e, self._budget)
            if new is e:
                raise
            raise new from None

    def _load(self, config, shared, passes):
        if shared is None:
            rec, weights = load_files(config.prog_file(), config.params_file(), self._budget)
            prog = no_history(rec.infer_program)
            gb = prog.global_block()
            prog.bound = {n: _EagerTensor(a, name=n) for n, a in weights.items() if n in gb.vars}
            self.inputs, self.outputs = rec.inputs, rec.outputs
            fetch = [o["name"] for o in self.outputs]
            if config.ir_optim:
                names = [n for n in (config.passes or passes.INFERENCE_PASSES) if n not in config.deleted_passes]
                prog = passes.apply_passes(prog, names, keep=fetch)
            self.program = prog
        else:
            self.program, self.inputs, self.outputs = shared
        self._in_names = [i["name"] for i in self.inputs]
        self._out_names = [o["name"] for o in self.outputs]
        self._compiled = compile_program(self.program, self._in_names, self._out_names)
        self._in = {i["name"]: Tensor(i["name"], i) for i in self.inputs}
        self._out = {o["name"]: Tensor(o["name"], o) for o in self.outputs}
        self._in_list = [self._in[n] for n in self._in_names]
        self._out_list = [self._out[n] for n in self._out_names]

    def get_input_names(self):
        return list(self._in_names)

    def get_output_names(self):
        return list(self._out_names)

    def get_input_handle(self, name):
        try:
            return self._in[name]
        except KeyError:
            raise ValueError(f"no input named {name!r}; inputs are {self._in_names}") from None

    def get_output_handle(self, name):
        try:
            return self._out[name]
        except KeyError:
            raise ValueError(f"no output named {name!r}; outputs are {self._out_names}") from None

    def run(self, inputs=None):
        """Runs the model. With `inputs` (arrays in input order) returns the outputs as arrays; without, reads
        the input handles and fills the output handles (returns True)."""
        if inputs is not None:
            if len(inputs) != len(self._in_names):
                raise ValueError(f"run() got {len(inputs)} inputs, the model takes {len(self._in_names)}: "
                                 f"{self._in_names}")
            vals = list(inputs)
            for i, h in enumerate(self._in_list):
                a = vals[i]
                if type(a) is not np.ndarray or a.dtype != h._np:
                    h.copy_from_cpu(a)
                    a = vals[i] = h._data
                h._data = a  # the executor never writes its feeds: no copy needed
            outs = self._run(self._compiled.run_values, vals)
            for h, a in zip(self._out_list, outs):
                h._data = a
            return list(outs)
        feed = {}
        for n in self._in_names:
            h = self._in[n]
            if h._data is None:
                raise RuntimeError(f"input '{n}' has no data: call get_input_handle('{n}').copy_from_cpu(array)")
            feed[n] = h._data
        outs = self._run(self._compiled.run, feed)
        for n, a in zip(self._out_names, outs):
            self._out[n]._data = a
        return True

    def _run(self, fn, arg):
        prev = swap(self._budget)
        try:
            return fn(arg)
        except Exception as e:
            new = naming_source(e, self._budget)
            if new is e:
                raise
            raise new from None
        finally:
            swap(prev)

    def clone(self):
        """A predictor sharing this one's program and weights, with its own input/output handles."""
        return Predictor(self.config, _shared=(self.program, self.inputs, self.outputs))

    def get_input_tensor_shape(self):
        return {n: list(i["shape"]) for n, i in zip(self._in_names, self.inputs)}

    def try_shrink_memory(self):
        return 0

    def clear_intermediate_tensor(self):
        pass


def no_history(program):
    """`program` with every `while` switched off keeping per-iteration history (a file may ask for it; a predictor
    computes no gradient, so the history would only grow memory)."""
    ops = [op for b in program.blocks for op in b.ops if op.type == "while" and op.attrs.get("save_history")]
    if not ops:
        return program
    for op in ops:
        op.attrs["save_history"] = False
        op.outputs.pop("history", None)
    program._bump()
    return program


def create_predictor(config):
    """A `Predictor` for `config`'s model files.

    Example:
        >>> from oar.static import InputSpec
        >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net', input_spec=[InputSpec([None, 4], 'float32', 'x')])
        >>> predictor = oar.inference.create_predictor(oar.inference.Config('model/net'))
        >>> predictor.get_input_names()
        ['x']
    """
    return Predictor(config)
