"""`Config`: where the model files are and which optimizations the predictor applies."""
import enum
import os
import warnings

import numpy as np

from ..graph.budget import DEFAULT_MAX_BYTES, DEFAULT_MAX_LOOP_ITERATIONS, Budget


class PrecisionType(enum.IntEnum):
    """Inference precision of a `Config` (Paddle's ``paddle.inference.PrecisionType``).

    Example:
        >>> oar.inference.PrecisionType.Half, int(oar.inference.PrecisionType.Float32)
        (<PrecisionType.Half: 2>, 0)
    """
    Float32 = 0
    Int8 = 1
    Half = 2
    Bfloat16 = 3


class PlaceType(enum.IntEnum):
    """Device kind of a predictor tensor (Paddle's ``paddle.inference.PlaceType``).

    Example:
        >>> oar.inference.PlaceType.CPU
        <PlaceType.CPU: 0>
    """
    UNK = -1
    CPU = 0
    GPU = 1


class Config:
    """Model location and predictor switches.

    Args:
        prog_file: the ``.pdmodel`` file, or a path prefix (``model/net`` for ``model/net.pdmodel``).
        params_file: the ``.pdiparams`` file (default: next to ``prog_file``).

    Example:
        >>> config = oar.inference.Config('model/net')          # prefix form
        >>> config.switch_ir_optim(False)                       # run the program as saved
        >>> config.ir_optim(), config.mkldnn_enabled()
        (False, False)
        >>> config.enable_onnxruntime(); config.onnxruntime_enabled()   # run it in ONNX Runtime
        True
    """

    def __init__(self, prog_file=None, params_file=None):
        self._prog = self._params = None
        self._ir_optim = True
        self.memory_optim = False
        self.ir_debug = False
        self.ort = False            # run the exported program in ONNX Runtime (`enable_onnxruntime`)
        self.gpu_id = None          # run the native executor on this GPU (`enable_use_gpu`)
        self.ort_optimization = False
        self.glog_info = True
        self.cpu_threads = 1
        self.cpu_threads_set = False  # only an explicit setting changes the process's BLAS threads
        self.passes = None      # None: oar.passes.INFERENCE_PASSES
        self.deleted_passes = set()
        self.max_bytes = DEFAULT_MAX_BYTES
        self.max_loop_iterations = DEFAULT_MAX_LOOP_ITERATIONS
        if prog_file is not None:
            self.set_model(prog_file, params_file)

    def set_model(self, prog_file, params_file=None):
        """Sets the model files (or a prefix)."""
        prog_file = os.fspath(prog_file)
        if params_file is None:
            from ..graph.model_files import file_names
            stem = next((prog_file[:-len(s)] for s in (".pdmodel", ".json") if prog_file.endswith(s)), prog_file)
            if os.path.isdir(stem) and not os.path.isfile(stem + ".pdmodel"):
                stem = os.path.join(stem, "inference")
            prog_file, params_file = file_names(stem)  # (a Paddle 3 PIR model: stem.json)
        self._prog, self._params = prog_file, os.fspath(params_file)

    def set_prog_file(self, path):
        self._prog = os.fspath(path)

    def set_params_file(self, path):
        self._params = os.fspath(path)

    def prog_file(self):
        return self._prog

    def params_file(self):
        return self._params

    def model_dir(self):
        return os.path.dirname(self._prog) if self._prog else None

    def switch_ir_optim(self, x=True):
        """Apply the inference passes (`oar.passes.INFERENCE_PASSES`: constant folding, batch-norm folding,
        conv / linear / add+activation fusion, dead code); on by default."""
        self._ir_optim = bool(x)

    def ir_optim(self):
        """Whether the inference passes run (Paddle's ``Config.ir_optim()``)."""
        return self._ir_optim

    ir_optim_enabled = ir_optim

    def switch_ir_debug(self, x=True):
        """Print the program after each pass (to stdout) when the predictor is created."""
        self.ir_debug = bool(x)

    def enable_memory_optim(self, x=True):
        """Plan memory once per input shape: fused convolution / linear ops write into buffers allocated on the
        first run of a shape and reused after (the `memory_optimize` pass). Dead intermediates are released by
        the executor either way."""
        self.memory_optim = bool(x)

    def memory_optim_enabled(self):
        return self.memory_optim

    def enable_onnxruntime(self):
        """Run the model in an ONNX Runtime session (needs ``pip install 'oar-dl[onnx]'``): the predictor exports
        the program through `oar.onnx` and keeps the same handle API. An op without an ONNX lowering (or a
        missing onnxruntime) makes it fall back to the native executor with a warning naming the op."""
        self.ort = True

    def disable_onnxruntime(self):
        self.ort = False

    def onnxruntime_enabled(self):
        return self.ort

    use_onnxruntime = onnxruntime_enabled

    def enable_ort_optimization(self):
        """Let ONNX Runtime apply all its graph optimizations (fusions, QDQ -> int8 kernels); off, it runs the
        exported graph with its basic optimizations only."""
        self.ort_optimization = True

    def disable_glog_info(self):
        """Silence the predictor's informational log lines."""
        self.glog_info = False

    def set_cpu_math_library_num_threads(self, n):
        """Threads for the math library (BLAS), applied process-wide when the predictor is created, as Paddle.

        Needs the optional `threadpoolctl` (``pip install 'oar-dl[threads]'``); without it the count is only recorded
        and BLAS keeps the count chosen by OPENBLAS_NUM_THREADS / OMP_NUM_THREADS at start-up.
        """
        if int(n) < 1:
            raise ValueError(f"set_cpu_math_library_num_threads expects n >= 1, got {n}")
        self.cpu_threads = int(n)
        self.cpu_threads_set = True

    def cpu_math_library_num_threads(self):
        return self.cpu_threads

    def set_max_bytes(self, n):
        """The load budget (default 1 GiB; None: no limit): the most memory parsing the model file may take, one
        creation/expansion op (``full``, ``tile``, ``arange``, ...) may produce, and all constants together.

        Example:
            >>> config = oar.inference.Config('model/net')
            >>> config.set_max_bytes(256 << 20)
        """
        self.max_bytes = Budget(max_bytes=n).max_bytes

    def set_max_loop_iterations(self, n):
        """The most iterations one run of a ``while`` loop may make (default 10,000,000; None: no limit)."""
        self.max_loop_iterations = Budget(max_loop_iterations=n).max_loop_iterations

    def budget(self):
        """The `oar.graph.budget.Budget` of this config, naming the model file."""
        return Budget(self.max_bytes, self.max_loop_iterations, self._prog)

    def delete_pass(self, name):
        """Removes one pass from the pipeline by name (see `oar.passes.PASSES`)."""
        from ..passes import PASSES
        if name not in PASSES:
            raise ValueError(f"delete_pass: unknown pass {name!r}; passes are {sorted(PASSES)}")
        self.deleted_passes.add(name)

    def pass_names(self):
        """The passes the predictor will apply, in order."""
        from .. import passes
        if not self._ir_optim:
            return []
        names = list(self.passes or passes.INFERENCE_PASSES)
        if self.ort:  # ONNX Runtime folds constants itself, and must see int8 weights' dequantize ops to use them
            names = [n for n in names if n not in passes.NATIVE_ONLY_PASSES]
        elif self.memory_optim:
            names += [n for n in passes.MEMORY_PASSES if n not in names]
        return [n for n in names if n not in self.deleted_passes]

    def disable_gpu(self):
        """Runs the predictor on the CPU (the default)."""
        self.gpu_id = None

    def use_gpu(self):
        """Whether `enable_use_gpu` chose a GPU."""
        return self.gpu_id is not None

    def gpu_device_id(self):
        """The GPU the predictor runs on (0 when none was chosen, as Paddle answers)."""
        return self.gpu_id or 0

    def enable_use_gpu(self, memory_pool_init_size_mb=100, device_id=0, precision_mode=None):
        """Runs the predictor's native executor on GPU `device_id` (CuPy; `docs/gpu.md`): the weights are copied
        there once, inputs go there and outputs come back at each run. `memory_pool_init_size_mb` MiB are reserved
        in the GPU memory pool now (it grows on demand beyond). Only float32 programs are supported as saved:
        `precision_mode` must be None or float32. Raises a RuntimeError when there is no GPU backend.

        Example:
            >>> try:
            ...     oar.inference.Config('model/net').enable_use_gpu(100, 0)
            ... except RuntimeError as e:
            ...     print(str(e).split(':')[0])
            no GPU backend
        """
        if precision_mode is not None and "32" not in str(precision_mode) and "Float32" not in str(precision_mode):
            raise ValueError(f"enable_use_gpu(precision_mode={precision_mode!r}): oar's predictor runs programs in "
                             "the precision they were saved in (float32); convert the model first")
        from ..core.devices import load, to_device
        from ..core.state import CUDAPlace
        CUDAPlace(device_id)  # raises without CuPy, a GPU, or that GPU
        if memory_pool_init_size_mb:  # reserve: the pool keeps a freed block for later arrays
            with_device = to_device(np.zeros(0, np.uint8), int(device_id))
            del with_device
            block = load().xp.empty(int(memory_pool_init_size_mb) << 20, dtype=np.uint8)
            del block
        self.gpu_id = int(device_id)

    def enable_mkldnn(self):
        """Accepted for Paddle compatibility: oar has no oneDNN backend, its CPU kernels are NumPy/OpenBLAS (and
        ONNX Runtime's with `enable_onnxruntime()`); `mkldnn_enabled()` stays False."""
        warnings.warn("Config.enable_mkldnn(): oar has no oneDNN (MKLDNN) backend; the predictor keeps its NumPy "
                      "kernels (enable_onnxruntime() runs ONNX Runtime's)", stacklevel=2)

    def mkldnn_enabled(self):
        return False

    def summary(self):
        """The settings, and (after `create_predictor`) the passes applied with op counts before and after.

        Example:
            >>> print(config.summary())   # doctest: +SKIP
        """
        lines = [f"prog_file: {self._prog}", f"params_file: {self._params}", f"ir_optim: {self._ir_optim}",
                 f"memory_optim: {self.memory_optim}", f"onnxruntime: {self.ort}",
                 f"ort_optimization: {self.ort_optimization}", "mkldnn: False",
                 f"cpu_math_library_num_threads: {self.cpu_threads}", f"max_bytes: {self.max_bytes}",
                 f"max_loop_iterations: {self.max_loop_iterations}", f"passes: {', '.join(self.pass_names())}"]
        report = getattr(self, "_report", None)
        if report is not None:
            lines.append(report)
        return "\n".join(lines)
