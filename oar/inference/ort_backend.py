"""The ONNX Runtime backend of the predictor (`Config.enable_onnxruntime()`): the optimized inference program is
exported through `oar.onnx.program_to_onnx` and run in an ``onnxruntime.InferenceSession`` on the CPU with the
configured threads, behind the same `run` / `run_values` interface as the native executor's `Compiled` plan.

`ort_runner(program, inputs, outputs, config)` returns None (after a warning that names the reason: an op type
without an ONNX lowering, or onnxruntime not installed) when the model cannot run there; the predictor then
keeps the native executor.

Example:
    >>> config = oar.inference.Config('model/net'); config.enable_onnxruntime()
    >>> predictor = oar.inference.create_predictor(config)   # runs in ONNX Runtime
"""
import warnings

import numpy as np

from ..framework import dtype as D


class OrtRunner:
    """An ONNX Runtime session for one exported program; inputs in the predictor's input order."""

    def __init__(self, session, inputs, outputs):
        self.session = session
        self.feed_names = [i["name"] for i in inputs]
        self.fetch_names = [o["name"] for o in outputs]
        self._onnx_in = [i.name for i in session.get_inputs()]
        self._onnx_out = [o.name for o in session.get_outputs()]
        self._specs = [(i["name"], D.np_dtype(i["dtype"]), list(i["shape"])) for i in inputs]

    def run(self, feed):
        try:
            vals = [feed[n] for n in self.feed_names]
        except KeyError as e:
            raise ValueError(f"feed is missing variable {e}") from None
        return self.run_values(vals)

    def run_values(self, values):
        if len(values) != len(self._specs):
            raise ValueError(f"expected {len(self._specs)} inputs ({self.feed_names}), got {len(values)}")
        feed = {}
        for onnx_name, a, (name, dt, shape) in zip(self._onnx_in, values, self._specs):
            a = np.asarray(getattr(a, "_data", a))
            if a.dtype != dt:
                raise TypeError(f"input '{name}' must be {dt.name}, got {a.dtype.name}")
            if a.ndim != len(shape) or any(w >= 0 and w != s for w, s in zip(shape, a.shape)):
                raise ValueError(f"input '{name}' has shape {shape} (-1 is any size), got {list(a.shape)}")
            feed[onnx_name] = a
        return self.session.run(self._onnx_out, feed)


def ort_runner(program, inputs, outputs, config):
    """An `OrtRunner` for `program`, or None (with a warning saying why) when it cannot run in ONNX Runtime."""
    try:
        import onnxruntime as ort
        from ..onnx.exporter import program_to_onnx
        model = program_to_onnx(program, inputs, outputs)
    except ImportError as e:
        warnings.warn(f"Config.enable_onnxruntime(): {e}; running the native executor instead "
                      "(pip install 'oar[onnx]')", stacklevel=3)
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
