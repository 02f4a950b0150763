"""Numeric limits of dtypes (finfo, iinfo), the global flags registry (get_flags / set_flags) and LazyGuard."""
import numpy as np

from . import dtype as D

VERSION = "0.1.0"  # oar.__version__, oar.version.full_version, and the wheel's version (pyproject.toml reads it)
DISTRIBUTION = "oar-dl"  # the name on the package index (`pip install oar-dl`); the import name is `oar`


def install_hint(extra=None):
    """The pip command that installs oar with `extra`, for error messages.

    Example:
        >>> from oar.core.info import install_hint
        >>> install_hint("onnx")
        "pip install 'oar-dl[onnx]'"
    """
    return f"pip install '{DISTRIBUTION}[{extra}]'" if extra else f"pip install {DISTRIBUTION}"


class finfo:
    """Limits of a floating dtype: ``min``, ``max``, ``eps``, ``resolution``, ``smallest_normal``, ``tiny``, ``bits``.

    Example:
        >>> oar.finfo(oar.float32).eps == float(np.finfo(np.float32).eps), oar.finfo('float16').bits
        (True, 16)
    """

    def __init__(self, dtype):
        d = D.convert_dtype(dtype)
        if d.kind not in "fc":
            raise TypeError(f"finfo takes a floating dtype, got {d.name} (use oar.iinfo for integers)")
        info = np.finfo(d.np) if d.np is not None else None
        if info is None:
            raise TypeError(f"finfo({d.name}) needs the ml_dtypes package")
        self.dtype = d.name if d.kind == "f" else {"complex64": "float32", "complex128": "float64"}[d.name]
        # resolution 10**-precision exactly (NumPy rounds it to the dtype: 0.0010004 for float16; Paddle 0.001)
        self.bits, self.eps, self.resolution = int(info.bits), float(info.eps), 10.0 ** -int(info.precision)
        self.min, self.max = float(info.min), float(info.max)
        self.tiny = self.smallest_normal = float(info.smallest_normal)

    def __repr__(self):
        # Paddle's form: the fields in this order, floats to 6 significant digits
        return (f"paddle.finfo(min={self.min:g}, max={self.max:g}, eps={self.eps:g}, resolution={self.resolution:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, bits={self.bits}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: ``min``, ``max``, ``bits``.

    Example:
        >>> oar.iinfo(oar.int32).max, oar.iinfo('uint8').min
        (2147483647, 0)
    """

    def __init__(self, dtype):
        d = D.convert_dtype(dtype)
        if d.kind not in "iub":
            raise TypeError(f"iinfo takes an integer dtype, got {d.name} (use oar.finfo for floats)")
        info = np.iinfo(d.np) if d.kind != "b" else np.iinfo(np.uint8)
        self.dtype, self.bits, self.min, self.max = d.name, int(info.bits), int(info.min), int(info.max)

    def __repr__(self):
        return f"paddle.iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"


def _bool_flag(name, value):
    if value not in (True, False, 0, 1):
        raise ValueError(f"set_flags: {name} takes a bool, got {value!r}")
    return bool(value)


def _only(*allowed, why):
    """A flag oar's CPU runtime honours only at the listed values (its fixed behaviour); others raise."""
    def check(name, value):
        if value not in allowed:
            raise ValueError(f"set_flags: {name}={value!r} is not supported: {why} (allowed: {list(allowed)})")
        return value
    return check


class _Flags:
    """Paddle's global FLAGS_* settings that oar's CPU runtime honours. Each flag has a validator that returns
    the value to store or raises for a value oar cannot honour; appliers (`on_set`, registered by the layer
    that owns the behaviour) act on a new value. `check_nan_inf` is read on the dispatch path, so it is also an
    attribute."""

    def __init__(self):
        self.values = {"FLAGS_check_nan_inf": False, "FLAGS_cudnn_deterministic": False,
                       "FLAGS_use_mkldnn": False, "FLAGS_eager_delete_tensor_gb": 0.0,
                       "FLAGS_call_stack_level": 1, "FLAGS_paddle_num_threads": 1,
                       "FLAGS_benchmark": False, "FLAGS_enable_pir_api": False, "FLAGS_lazy": False,
                       "FLAGS_fused_rnn": True, "FLAGS_use_stride_kernel": True}
        self.check = {
            # every op's float outputs checked for NaN/Inf, in eager mode and by the executor
            "FLAGS_check_nan_inf": _bool_flag,
            # oar's CPU kernels are deterministic whatever the value
            "FLAGS_cudnn_deterministic": _bool_flag,
            # ops run synchronously on the CPU, so timings are already per op whatever the value
            "FLAGS_benchmark": _bool_flag,
            "FLAGS_use_mkldnn": _only(False, 0, why="oar has no oneDNN kernels"),
            "FLAGS_eager_delete_tensor_gb": _only(0, 0.0, why="oar frees every value right after its last use"),
            "FLAGS_call_stack_level": _only(1, why="oar's errors always name the op and the user's source line"),
            "FLAGS_enable_pir_api": _only(False, 0, why="oar has one IR of its own (docs/ir.md), not Paddle's PIR"),
            # Paddle's default: view ops share memory with their input (docs/numerics.md "Views")
            "FLAGS_use_stride_kernel": _only(True, 1, why="oar's view ops (reshape, transpose, view, subscripts, ...) "
                                             "always share memory with their input"),
            "FLAGS_paddle_num_threads": self._threads,
            # eager ops of the calling thread recorded and run as compiled graphs (oar.lazy, docs/tracing.md)
            "FLAGS_lazy": _bool_flag,
            # oar's own: recurrent layers run one fused op per cell step (oar/ops/nn/rnn.py); False runs the
            # composed ops, which have second-order gradients
            "FLAGS_fused_rnn": _bool_flag,
        }
        self.on_set = {}  # flag name -> fn(value), registered by the layer that honours it
        self.check_nan_inf = False

    @staticmethod
    def _threads(name, value):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"set_flags: {name} takes a positive int, got {value!r}")
        return value

    def set(self, name, value):
        check = self.check.get(name)
        if check is None:
            raise ValueError(f"set_flags: unknown or unsupported flag {name!r}; oar honours {sorted(self.check)}")
        value = check(name, value)
        apply = self.on_set.get(name)
        if apply is not None:
            apply(value)
        self.values[name] = value
        if name == "FLAGS_check_nan_inf":
            self.check_nan_inf = value


FLAGS = _Flags()


def get_flags(flags):
    """The values of the named flags as a dict.

    Example:
        >>> oar.get_flags(['FLAGS_check_nan_inf'])
        {'FLAGS_check_nan_inf': False}
    """
    names = [flags] if isinstance(flags, str) else list(flags)
    unknown = [n for n in names if n not in FLAGS.values]
    if unknown:
        raise ValueError(f"get_flags: unknown flags {unknown}; known: {sorted(FLAGS.values)}")
    return {n: FLAGS.values[n] for n in names}


def set_flags(flags):
    """Sets flags from a dict ``{'FLAGS_name': value}``. Only the flags oar's CPU runtime honours are accepted,
    each at the values it can honour; any other flag or value raises ValueError (nothing is set then).

    - ``FLAGS_check_nan_inf``: every op's floating outputs are checked, in eager mode and in programs run by
      the executor (and converted functions); the first NaN or Inf raises RuntimeError naming the op (and, in a
      program, the user's source line).
    - ``FLAGS_paddle_num_threads``: the math library's thread count (needs ``threadpoolctl``).
    - ``FLAGS_fused_rnn`` (oar's own, default True): recurrent layers and cells run one fused op per time step;
      False runs their composed ops (the same numbers; needed only for gradients of gradients through them).
    - ``FLAGS_cudnn_deterministic``, ``FLAGS_benchmark``: any bool (oar's CPU ops are deterministic and
      synchronous either way).
    - ``FLAGS_use_mkldnn``, ``FLAGS_eager_delete_tensor_gb``, ``FLAGS_call_stack_level``,
      ``FLAGS_enable_pir_api``, ``FLAGS_use_stride_kernel`` (True: view ops share memory, as Paddle's default;
      ``as_strided`` and ``unfold`` are copies in oar, docs/numerics.md): only the value matching what oar always
      does.

    Example:
        >>> oar.set_flags({'FLAGS_check_nan_inf': True})
        >>> oar.get_flags('FLAGS_check_nan_inf')
        {'FLAGS_check_nan_inf': True}
        >>> oar.set_flags({'FLAGS_check_nan_inf': False})
    """
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags takes a dict of flag names to values, got {type(flags).__name__}")
    for k, v in flags.items():  # all checked before any is set
        if not str(k).startswith("FLAGS_"):
            raise ValueError(f"set_flags: flag names start with 'FLAGS_', got {k!r}")
        if k not in FLAGS.check:
            raise ValueError(f"set_flags: unknown or unsupported flag {k!r}; oar honours {sorted(FLAGS.check)}")
        FLAGS.check[k](k, v)
    for k, v in flags.items():
        FLAGS.set(k, v)


class LazyGuard:
    """Paddle delays parameter initialization inside this context (for very large models); oar creates and
    initializes parameters at once, so the guard only marks the block.

    Example:
        >>> with oar.LazyGuard():
        ...     layer = oar.nn.Linear(2, 3)
        >>> layer.weight.shape
        [2, 3]
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
