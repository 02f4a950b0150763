"""Runtime debugging ops: `Print` (prints a value when the program runs) and `Assert` (raises when false).

Both are side-effecting ops: the executor always runs them, even when no fetch needs their output.
"""
import itertools

import numpy as np

from ..ops.onnx_rules import passthrough
from ..ops.registry import apply, defop

_PRINTED = {}   # print op id -> how many times it printed (for first_n)
_print_ids = itertools.count()


def _print(x, message, name, summarize, print_tensor_name, print_tensor_type, print_tensor_shape, first_n=-1,
           print_id=None):
    if first_n is not None and first_n >= 0:
        n = _PRINTED.get(print_id, 0)
        if n >= first_n:
            return x
        _PRINTED[print_id] = n + 1
    lines = [f"Variable: {name}" if print_tensor_name else "Variable"]
    if message:
        lines.insert(0, str(message))
    if print_tensor_shape:
        lines.append(f"  - shape: {list(np.shape(x))}")
    if print_tensor_type:
        lines.append(f"  - dtype: {np.asarray(x).dtype}")
    flat = np.asarray(x).reshape(-1)
    shown = flat if summarize is None or summarize < 0 else flat[:summarize]
    lines.append(f"  - data: [{' '.join(str(v) for v in shown.tolist())}{' ...' if shown.size < flat.size else ''}]")
    print("\n".join(lines), flush=True)
    return x


PRINT = defop("print", _print, infer=lambda m, **a: [m[0]], grad=lambda g, out, x, **a: g)
PRINT.set(side_effect=True, amp="skip", onnx=passthrough)  # ONNX has no print: the value passes through


def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True, print_tensor_type=True,
          print_tensor_shape=True, print_tensor_lod=True, print_phase="both"):
    """Prints `input` (with `message`) every time the op runs (only the first `first_n` times when
    ``first_n >= 0``) and returns it unchanged.

    Example:
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [2])
        ...     y = oar.static.Print(x, message="x is")
        >>> oar.disable_static()
        >>> [op.type for op in main.global_block().ops]
        ['print']
    """
    return apply(PRINT, (input,), {"message": message, "name": input.name, "summarize": int(summarize),
                                   "print_tensor_name": bool(print_tensor_name),
                                   "print_tensor_type": bool(print_tensor_type),
                                   "print_tensor_shape": bool(print_tensor_shape), "first_n": int(first_n),
                                   "print_id": next(_print_ids)})


def _assert(cond, *data, summarize, name):
    c = np.asarray(cond)
    if c.size != 1:
        raise ValueError(f"Assert: the condition must have one element, got shape {list(c.shape)}")
    if not bool(c.reshape(())):
        parts = [f"The condition of Assert{' ' + repr(name) if name else ''} is false"]
        for k, d in enumerate(data):
            flat = np.asarray(d).reshape(-1)
            shown = flat if summarize < 0 else flat[:summarize]
            parts.append(f"  data[{k}] (shape {list(np.shape(d))}): {shown.tolist()}")
        raise ValueError("\n".join(parts))
    return np.asarray(c)


ASSERT = defop("assert", _assert, inputs=("cond",), variadic=True, infer=lambda m, **a: [m[0]])
ASSERT.set(side_effect=True, amp="skip", differentiable=False, onnx=passthrough)


def Assert(cond, data=None, summarize=20, name=None):
    """Raises ValueError (showing `data`) when `cond` is false at run time; eagerly, at once.

    Example:
        >>> x = oar.to_tensor([1.0, -3.0])
        >>> try:
        ...     oar.static.nn.Assert(x.sum() > 0, [x])
        ... except ValueError:
        ...     print('assertion failed')
        assertion failed
    """
    data = list(data or [])
    return apply(ASSERT, (cond, *data), {"summarize": int(summarize), "name": name})
