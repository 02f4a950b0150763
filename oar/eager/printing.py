"""Paddle's tensor printing: ``Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,`` then the
values, floats with 8 decimals (``1.50000000``) unless integral (``1.``), padded to one width, summarised with
``...`` above `threshold` elements."""
import numpy as np

from ..core.devices import to_host

OPTIONS = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": False}


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None, linewidth=None):
    """Sets how tensors print (Paddle's defaults: precision 8, threshold 1000, edgeitems 3, linewidth 80).

    Example:
        >>> oar.set_printoptions(precision=2)
        >>> print(oar.to_tensor([0.123]))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.12])
        >>> oar.set_printoptions(precision=8)
    """
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("sci_mode", sci_mode), ("linewidth", linewidth)):
        if v is not None:
            OPTIONS[k] = v


def _item(v, width=0, signed=False):
    if isinstance(v, (float, np.floating)):
        p = OPTIONS["precision"]
        s = f"{v:.{p}e}" if OPTIONS["sci_mode"] else (f"{v:.0f}." if np.ceil(v) == v else f"{v:.{p}f}")
    else:
        s = str(v)
    if width > len(s):
        if signed and not v < 0:
            return " " + s.ljust(width - 1)
        return s.ljust(width)
    return s


def _summary(a):
    e = OPTIONS["edgeitems"]
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * e:
        return np.concatenate([_summary(a[:e]), _summary(a[-e:])])
    return np.stack([_summary(x) for x in a]) if a.ndim > 1 else a


def _format(a, summary, indent, width, signed):
    e = OPTIONS["edgeitems"]
    if a.ndim == 0:
        return _item(a.item() if a.dtype.kind != "f" else a[()], width, signed)
    cut = summary and a.shape[0] > 2 * e
    if a.ndim == 1:
        vals = list(a[:e]) + [None] + list(a[-e:]) if cut else list(a)
        items = ["..." if v is None else _item(v, width, signed) for v in vals]
        per_line = max(1, (OPTIONS["linewidth"] - indent) // (width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = list(a[:e]) + [None] + list(a[-e:]) if cut else list(a)
    parts = ["..." if r is None else _format(r, summary, indent + 1, width, signed) for r in rows]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_values(a, indent):
    """The values part of a tensor's repr, continuation lines indented by `indent` spaces."""
    if a.dtype.kind == "V" or a.dtype.name == "bfloat16":  # ml_dtypes' bfloat16 formats via float32
        a = a.astype(np.float32)
    summary = a.size > OPTIONS["threshold"]
    flat = _summary(a).reshape(-1) if summary else a.reshape(-1)
    if a.dtype.kind == "f":
        flat = [v for v in flat]  # NumPy scalars keep their float formatting
    width = max([len(_item(v)) for v in flat], default=0)
    signed = a.dtype.kind in "fi" and bool(np.any(np.asarray(flat) < 0))
    return _format(a, summary, indent, width, signed)


def tensor_repr(t, prefix="Tensor"):
    indent = len(prefix) + 1
    return (f"{prefix}(shape={t.shape}, dtype={t.dtype.name}, place={t.place}, stop_gradient={t.stop_gradient},\n"
            f"{' ' * indent}{format_values(to_host(t._data), indent)})")
