"""`auto_cast`: automatic mixed precision at the one dispatch point, `oar.ops.registry.apply`.

Inside ``with oar.amp.auto_cast():`` the process state holds an `_AmpHook`; `apply` hands it every op call
(outside auto_cast the cost is one attribute test per op). The hook decides by the op's category, its
`OpDef.amp` field (declared beside the op's definition; custom lists override it):

- white list (conv, matmul, einsum): the float inputs are rounded to float16 (or bfloat16) and the output is
  float16; the kernel accumulates in float32, as tensor cores do;
- black list (softmax, cross entropy, exp/log, mean/sum reductions, batch norm): float16 inputs are cast to
  float32;
- others run in their inputs' dtype; where float16 and float32 inputs meet (a float32 bias added to a conv
  output, a residual sum) the op runs in float32, as Paddle's ``GetPromoteType`` decides. At level 'O2' every
  float input of a non-black op is cast to float16, unless ``use_promote`` (the default) finds a float32 input
  (not a parameter) of an op outside the white list: then that op runs in float32.

Casts are ordinary `cast` ops, so they are recorded on the eager tape (gradients flow back to the float32
weights) and, while `to_static` traces a function, become ops of the Program.

Example:
    >>> import oar.nn.functional as F
    >>> model = oar.nn.Linear(4, 3)
    >>> with oar.amp.auto_cast():
    ...     y = model(oar.ones([2, 4]))                   # matmul in float16
    ...     loss = F.cross_entropy(y, oar.to_tensor([0, 1]))   # float32
    >>> y.dtype == oar.float16, loss.dtype == oar.float32
    (True, True)
"""
import contextlib
import warnings
from threading import get_ident

from ..core import dtype as D
from ..core.state import STATE, mode, own_mode
from ..ops.math import cast
from ..ops.registry import apply, ops_where

# Paddle's op names in custom lists -> oar's
_ALIASES = {"elementwise_add": "add", "elementwise_sub": "subtract", "elementwise_mul": "multiply",
            "elementwise_div": "divide", "matmul_v2": "matmul", "mul": "matmul", "reduce_mean": "mean",
            "reduce_sum": "sum", "reduce_prod": "prod", "lookup_table": "embedding", "lookup_table_v2": "embedding",
            "cross_entropy": "softmax_with_cross_entropy", "cross_entropy2": "softmax_with_cross_entropy",
            "pow": "elementwise_pow", "linear": "matmul", "depthwise_conv2d": "conv2d"}

WHITE, BLACK, GRAY, SKIP = 0, 1, 2, 3
_F32 = D.float32


def _names(lst):
    return frozenset(_ALIASES.get(n, n) for n in (lst or ()))


def low_dtype(dtype):
    """The DType for auto_cast's `dtype` argument ('float16' or 'bfloat16')."""
    name = D.convert_dtype(dtype).name
    if name not in ("float16", "bfloat16"):
        raise ValueError(f"auto_cast: dtype must be 'float16' or 'bfloat16', got {dtype!r}")
    if name == "bfloat16":
        try:
            import ml_dtypes  # noqa: F401
        except ImportError:
            warnings.warn("auto_cast: bfloat16 needs the ml_dtypes package; using float16")
            return D.float16
    return D.convert_dtype(name)


class _AmpHook:
    """The per-setting hook `apply` calls while auto_cast is on; one object per (level, dtype, lists), so it can
    be part of a program cache key."""

    def __init__(self, level, dtype, white, black, promote=False):
        self.level, self.dtype, self.white, self.black = level, dtype, white, black
        self.promote = promote and level == "O2"  # use_promote: a non-white op meeting float32 runs in float32
        self.key = (level, dtype.name, tuple(sorted(white)), tuple(sorted(black)), self.promote)
        self._cat = {}

    def __repr__(self):
        return f"auto_cast(level={self.level!r}, dtype={self.dtype.name!r})"

    def category(self, op):
        name = op.name
        if name in self.black:
            return BLACK
        if name in self.white:
            return WHITE
        return SKIP if op.amp == "skip" else GRAY

    def __call__(self, op, inputs, attrs):
        cat = self._cat.get(op)
        if cat is None:
            cat = self._cat[op] = self.category(op)
        m = mode()
        if m.owner != get_ident():  # (a context copied from the thread that entered auto_cast)
            m = own_mode()
        m.amp = None  # the casts and the op itself dispatch normally
        try:
            if cat == SKIP:
                return apply(op, inputs, attrs)
            if cat == WHITE:
                return self._low(op, inputs, attrs)
            return apply(op, self._cast_inputs(cat, inputs), attrs)
        finally:
            m.amp = self

    def _low(self, op, inputs, attrs):
        """Float inputs rounded to the low dtype, computed in float32, output in the low dtype."""
        low = self.dtype
        ins = []
        for t in inputs:
            dt = getattr(t, "dtype", None)
            if dt is not None and dt.kind == "f":
                if dt is not low:
                    t = cast(t, low)
                t = cast(t, _F32)
            ins.append(t)
        out = apply(op, tuple(ins), attrs)
        if type(out) is tuple:
            return tuple(cast(o, low) if o.dtype is _F32 else o for o in out)
        return cast(out, low) if out.dtype is _F32 else out

    def _cast_inputs(self, cat, inputs):
        low = self.dtype
        kinds = [getattr(t, "dtype", None) for t in inputs]
        floats = {dt for dt in kinds if dt is not None and dt.kind == "f"}
        if not floats:
            return inputs
        if cat == BLACK:
            target = D.float32 if low in floats else None
        elif self.level == "O1" and D.float32 in floats:  # Paddle's promotion: float32 meeting float16 wins
            target = D.float32
        elif self.promote and any(dt is D.float32 and not getattr(t, "persistable", False)
                                  for t, dt in zip(inputs, kinds)):
            target = D.float32
        elif self.level == "O2" or low in floats:
            target = low
        else:
            target = None
        if target is None:
            if len(floats) == 1:
                return inputs
            target = floats.pop()
            for dt in floats:  # float32 with float64 and the like: ordinary promotion
                target = D.promote(target, dt)
        return tuple(cast(t, target) if dt is not None and dt.kind == "f" and dt is not target else t
                     for t, dt in zip(inputs, kinds))


_HOOKS = {}


def _hook(level, dtype, white, black, promote=False):
    key = (level, dtype.name, white, black, promote)
    h = _HOOKS.get(key)
    if h is None:
        h = _HOOKS[key] = _AmpHook(level, dtype, white, black, promote)
    return h


def _lists(custom_white_list, custom_black_list):
    cw, cb = _names(custom_white_list), _names(custom_black_list)
    both = cw & cb
    if both:
        raise ValueError(f"auto_cast: ops {sorted(both)} are in both custom_white_list and custom_black_list")
    return frozenset((ops_where("amp", "white") | cw) - cb), frozenset((ops_where("amp", "black") | cb) - cw)


@contextlib.contextmanager
def auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level="O1", dtype="float16",
              use_promote=True):
    """Context manager: ops inside run in mixed precision (see the module docstring).

    Args:
        enable: False runs everything in the inputs' dtypes (also inside an outer auto_cast).
        custom_white_list / custom_black_list: op names (oar's or Paddle's, e.g. 'elementwise_add') to add to the
            float16 and the float32 lists.
        level: 'O1' (lists decide) or 'O2' (everything but the black list in float16); 'O0' disables.
        dtype: 'float16' or 'bfloat16'.
        use_promote: at 'O2', an op outside the white list with a float32 input runs in float32 (its
            float16 inputs are cast up), as Paddle; False casts every float input of such an op to float16.
            Parameters do not count as float32 inputs: at 'O2' Paddle's `decorate` makes them float16, where
            oar keeps float32 masters and casts them at use. No effect at 'O1'.

    Example:
        >>> conv = oar.nn.Conv2D(3, 4, 3)
        >>> with oar.amp.auto_cast():
        ...     out = conv(oar.ones([1, 3, 8, 8]))
        >>> out.dtype == oar.float16
        True
    """
    if level not in ("O0", "O1", "O2", "OD"):
        raise ValueError(f"auto_cast: level must be 'O0', 'O1' or 'O2', got {level!r}")
    prev = STATE.amp
    if not enable or level == "O0":
        STATE.amp = None
    else:
        white, black = _lists(custom_white_list, custom_black_list)
        if level == "OD":  # Paddle's 'OD': only the default white list in low precision, everything else float32
            level = "O1"
        STATE.amp = _hook(level, low_dtype(dtype), white, black, bool(use_promote))
    try:
        yield
    finally:
        STATE.amp = prev


amp_guard = auto_cast


def white_list():
    """The default float16 op list: the ops declared ``amp="white"``.

    Example:
        >>> 'matmul' in oar.amp.white_list()
        True
    """
    return set(ops_where("amp", "white"))


def black_list():
    """The default float32 op list: the ops declared ``amp="black"``.

    Example:
        >>> 'softmax' in oar.amp.black_list()
        True
    """
    return set(ops_where("amp", "black"))
