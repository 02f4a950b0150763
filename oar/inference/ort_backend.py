"""The ONNX Runtime backend of the predictor (`Config.enable_onnxruntime()`): the optimized inference program is
exported through `oar.onnx.program_to_onnx` and run in an ``onnxruntime.InferenceSession`` on the CPU with the
configured threads, behind the same `run` / `run_values` interface as the native executor's `Compiled` plan.

`ort_runner(program, inputs, outputs, config, scope)` returns None (after a warning that names the reason: an op type
without an ONNX lowering, or onnxruntime not installed) when the model cannot run there; the predictor then
keeps the native executor.

Example:
    >>> config = oar.inference.Config('model/net'); config.enable_onnxruntime()
    >>> predictor = oar.inference.create_predictor(config)   # runs in ONNX Runtime
"""
import warnings

import numpy as np

from ..core import dtype as D


class OrtRunner:
    """An ONNX Runtime session for one exported program; inputs in the predictor's input order."""

    def __init__(self, session, inputs, outputs):
        self.session = session
        self.feed_names = [i["name"] for i in inputs]
        self.fetch_names = [o["name"] for o in outputs]
        self._onnx_in = [i.name for i in session.get_inputs()]
        self._onnx_out = [o.name for o in session.get_outputs()]
        self._specs = [(i["name"], D.np_dtype(i["dtype"]), list(i["shape"])) for i in inputs]

    def run(self, feed, scope=None):
        try:
            vals = [np.asarray(getattr(feed[n], "_data", feed[n])) for n in self.feed_names]
        except KeyError as e:
            raise ValueError(f"feed is missing variable {e}") from None
        return self.run_values(vals)

    def run_values(self, values, scope=None):
        return self.bound_runner()(values)

    def bound_runner(self, scope=None, convert=None):
        """``run(values) -> outputs`` (the predictor's hot path, as `Compiled.bound_runner`): values that are not
        ndarrays of the saved dtype go through ``convert(list) -> list`` first; shapes are checked. The weights are
        the model's initializers (`scope` is accepted for the interface's sake)."""
        session, out_names, n_in = self.session, self._onnx_out, len(self._specs)
        specs = [(onnx_name, name, dt, len(shape), [(i, d) for i, d in enumerate(shape) if d >= 0])
                 for onnx_name, (name, dt, shape) in zip(self._onnx_in, self._specs)]

        def run(values):
            if len(values) != n_in:
                raise ValueError(f"expected {n_in} inputs ({self.feed_names}), got {len(values)}")
            feed = {}
            for a, (onnx_name, name, dt, rank, fixed) in zip(values, specs):
                if type(a) is not np.ndarray or a.dtype != dt:
                    if convert is None:
                        raise TypeError(f"input '{name}' must be a {dt.name} ndarray, got "
                                        f"{getattr(a, 'dtype', type(a).__name__)}")
                    return run(convert(list(values)))
                shape = a.shape
                if len(shape) != rank:
                    self._bad_shape(name, shape)
                for i, d in fixed:
                    if shape[i] != d:
                        self._bad_shape(name, shape)
                feed[onnx_name] = a
            return session.run(out_names, feed)
        return run

    def _bad_shape(self, name, got):
        want = next(shape for n, _, shape in self._specs if n == name)
        raise ValueError(f"input '{name}' has shape {want} (-1 is any size), got {list(got)}")


def ort_runner(program, inputs, outputs, config, scope=None):
    """An `OrtRunner` for `program` (its weights from `scope`), or None (with a warning saying why) when it cannot
    run in ONNX Runtime."""
    try:
        import onnxruntime as ort
        from ..onnx.exporter import program_to_onnx
        model = program_to_onnx(program, inputs, outputs, scope=scope)
    except ImportError as e:
        warnings.warn(f"Config.enable_onnxruntime(): {e}; running the native executor instead "
                      "(pip install 'oar-dl[onnx]')", stacklevel=3)
        return None
    except NotImplementedError as e:
        warnings.warn(f"Config.enable_onnxruntime(): the model cannot run in ONNX Runtime, running the native "
                      f"executor instead: {e}", stacklevel=3)
        return None
    so = ort.SessionOptions()
    so.intra_op_num_threads = int(config.cpu_threads)
    so.inter_op_num_threads = 1
    so.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if config.ort_optimization
                                   else ort.GraphOptimizationLevel.ORT_ENABLE_BASIC)
    session = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return OrtRunner(session, inputs, outputs)
