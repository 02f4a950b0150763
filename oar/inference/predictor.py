"""The predictor: a saved inference program, optimized by the inference passes, run by the static executor (or,
with `Config.enable_onnxruntime()`, by ONNX Runtime)."""
from collections import Counter

import numpy as np

from ..core import dtype as D
from ..graph.model_files import load_files
from ..kernels.threads import set_blas_threads
from ..graph.budget import applied, naming_source, swap
from ..graph.executor import Compiled
from ..graph.scope import Scope
from ..core.devices import to_device, to_host


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
        self._external = None  # a buffer given by share_external_data
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
        self._data, self._external = a, None
        self._shape = list(a.shape)

    def share_external_data(self, data):
        """Zero-copy input: the predictor reads `data` (a C-contiguous ndarray of the saved dtype) in place, so
        later changes to it are seen by the next run. On an output handle, runs write their result into `data`.

        Example:
            >>> buf = np.zeros([2, 4], 'float32')
            >>> predictor.get_input_handle('x').share_external_data(buf)   # doctest: +SKIP
        """
        a = getattr(data, "_data", data)
        if type(a) is not np.ndarray or a.dtype != self._np or not a.flags.c_contiguous:
            raise TypeError(f"share_external_data('{self.name}') needs a C-contiguous {self._np.name} ndarray, got "
                            f"{getattr(a, 'dtype', type(a).__name__)}")
        self._data = a
        self._shape = list(a.shape)
        self._external = a

    def _set_output(self, a):
        ext = self._external
        if ext is not None:
            if ext.shape != a.shape:
                raise ValueError(f"output '{self.name}' has shape {list(a.shape)}, the shared buffer has "
                                 f"{list(ext.shape)}")
            np.copyto(ext, a)
            a = ext
        self._data = a

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
        self.config = config
        if getattr(config, "cpu_threads_set", False):
            set_blas_threads(config.cpu_threads)
        self._budget = config.budget()
        try:
            with applied(self._budget):
                self._load(config, _shared)
        except Exception as e:
            new = naming_source(e, self._budget)
            if new is e:
                raise
            raise new from None

    def _load(self, config, shared):
        if shared is None:
            rec, weights = load_files(config.prog_file(), config.params_file(), self._budget)
            prog = no_history(rec.infer_program)
            gb = prog.global_block()
            self.scope = Scope({n: a for n, a in weights.items() if n in gb.vars})  # the model's values
            self.inputs, self.outputs = rec.inputs, rec.outputs
            self.program = self._optimize(prog, [o["name"] for o in self.outputs])
        else:
            self.program, self.scope, self.inputs, self.outputs = shared
        self._in_names = [i["name"] for i in self.inputs]
        self._out_names = [o["name"] for o in self.outputs]
        self.backend, self._compiled = "native", None
        self._gpu = config.gpu_id
        if self._gpu is not None and shared is None:  # the weights go to the GPU once
            if config.ort:
                raise ValueError("Config: enable_use_gpu() and enable_onnxruntime() exclude each other; oar runs "
                                 "ONNX Runtime on the CPU")
            self.scope = Scope({n: to_device(getattr(a, "_data", a), self._gpu) for n, a in self.scope.vars.items()})
        if config.ort:
            from .ort_backend import ort_runner
            self._compiled = ort_runner(self.program, self.inputs, self.outputs, config, self.scope)
            self.backend = "onnxruntime" if self._compiled is not None else "native"
        if self._compiled is None:
            # its own plan (not the program's cached one): planned buffers are never shared by two predictors
            self._compiled = Compiled(self.program, self._in_names, self._out_names)
        runner = getattr(self._compiled, "bound_runner", None)
        runner = runner(self.scope, self._converted) if runner is not None else None
        self._run_values = runner or (lambda vals: self._compiled.run_values(self._converted(vals), self.scope))
        if self._gpu is not None:  # inputs checked on the host, then to the GPU; outputs back to the host
            self._run_values = self._through_gpu
        self._copy_views = config.memory_optim and self.backend == "native"
        self._in = {i["name"]: Tensor(i["name"], i) for i in self.inputs}
        self._out = {o["name"]: Tensor(o["name"], o) for o in self.outputs}
        self._in_list = [self._in[n] for n in self._in_names]
        self._out_list = [self._out[n] for n in self._out_names]

    def _converted(self, values):
        """The inputs as ndarrays of the saved dtypes (cast when only the width differs), as `copy_from_cpu`."""
        vals = list(values)
        for i, h in enumerate(self._in_list):
            a = vals[i]
            if type(a) is not np.ndarray or a.dtype != h._np:
                h.copy_from_cpu(a)
                vals[i] = h._data
        return vals

    def _optimize(self, prog, fetch):
        """The program after the configured passes; records the passes and op counts for `Config.summary()`."""
        from .. import passes
        names = self.config.pass_names()
        before = Counter(op.type for op in prog.global_block().ops)
        for n in names:
            prog = passes.apply_passes(prog, [n], keep=fetch, scope=self.scope)
            if self.config.ir_debug:
                print(f"--- after {n} ---\n{prog}")
        after = Counter(op.type for op in prog.global_block().ops)
        counts = "\n".join(f"  {t:28s} {before.get(t, 0):5d} -> {after.get(t, 0):5d}" for t in sorted(before | after))
        self.config._report = ("applied:\n" + "\n".join("  " + line for line in prog.provenance[-len(names):])
                               if names else "applied: (none)") + \
            f"\nops: {sum(before.values())} -> {sum(after.values())}\n{counts}"
        return prog

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
            outs = self._run(self._run_values, inputs)
            if self._copy_views:
                outs = [_unshared(a) for a in outs]
            for h, a in zip(self._out_list, outs):
                if h._external is None:
                    h._data = a
                else:
                    h._set_output(a)
            return outs
        feed = {}
        for n in self._in_names:
            h = self._in[n]
            if h._data is None:
                raise RuntimeError(f"input '{n}' has no data: call get_input_handle('{n}').copy_from_cpu(array)")
            feed[n] = h._data
        outs = self._run(self._run_feed, feed)
        if self._copy_views:
            outs = [_unshared(a) for a in outs]
        for n, a in zip(self._out_names, outs):
            self._out[n]._set_output(a)
        return True

    def _through_gpu(self, values):
        on_gpu = [to_device(a, self._gpu) for a in self._converted(values)]
        return [to_host(a) for a in self._compiled.run_values(on_gpu, self.scope)]

    def _run_feed(self, feed):
        if self._gpu is not None:
            feed = {n: to_device(a, self._gpu) for n, a in feed.items()}
            return [to_host(a) for a in self._compiled.run(feed, self.scope)]
        return self._compiled.run(feed, self.scope)

    def _run(self, fn, arg):
        """`fn(arg)` under this predictor's budget; errors name the model file."""
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

    zero_copy_run = run  # Paddle 1.x name: handles already hand over arrays without copies

    def clone(self):
        """A predictor sharing this one's program and weights, with its own input/output handles."""
        return Predictor(self.config, _shared=(self.program, self.scope, self.inputs, self.outputs))

    def get_input_tensor_shape(self):
        return {n: list(i["shape"]) for n, i in zip(self._in_names, self.inputs)}

    def try_shrink_memory(self):
        return 0

    def clear_intermediate_tensor(self):
        pass


def _unshared(a):
    """`a`, copied when it is a view (of a buffer that planned ops reuse on the next run)."""
    return a.copy() if getattr(a, "base", None) is not None else a


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
