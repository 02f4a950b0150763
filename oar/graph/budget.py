"""Budgets for programs read from files: how much memory their creation/expansion ops may ask for and how many
iterations a `while` may run, so a tiny hostile (or broken) model file cannot allocate gigabytes or spin forever.

A `Budget` is made by `oar.jit.load(..., max_bytes=, max_loop_iterations=)` and by `oar.inference.Config`
(`set_max_bytes`, `set_max_loop_iterations`). It is checked in three places:

- at load, before anything is allocated (`check_program`): every creation op whose output size is known from
  its attributes (``full``, ``arange``, ``eye``, ...) and every variable with a fully known shape must fit in
  ``max_bytes``, and so must all the global block's constants together (they are folded and kept at load);
- at run time, while the budget is active (`applied`): the executor calls `guard`'s wrapper before the kernel of
  every op marked with ``OpDef.out_elements`` (creation and expansion ops: ``tile``, ``pad``,
  ``broadcast_to``, ``full_dynamic``, ...), which computes the output size from the real inputs first;
- in `while` loops: the iterations of one run (`loop_limit`), and the per-iteration history a loop keeps for a
  gradient (`history_limit`: at most ``max_bytes``).

Ops are marked where they are defined, with `oar.ops.registry.bounds_output`. Programs a user builds in this
process run with no budget at all.

Example:
    >>> from oar.graph.budget import Budget, applied, check_alloc
    >>> with applied(Budget(max_bytes=1 << 20, source="m.pdmodel")):
    ...     check_alloc(1 << 30, 4, "full")
    Traceback (most recent call last):
    ...
    ValueError: m.pdmodel: full would allocate 4.0 GiB, over the load budget of 1.0 MiB (raise it with max_bytes= ...
"""
import threading

import numpy as np

from ..core import dtype as D

DEFAULT_MAX_BYTES = 1 << 30             # 1 GiB for one creation/expansion result, and for all constants together
DEFAULT_MAX_LOOP_ITERATIONS = 10_000_000
_local = threading.local()


class Budget:
    """Limits for running a program from a file.

    Args:
        max_bytes: the most bytes one creation/expansion op may produce, and the constants of the program
            together (None: no limit). Weights read from ``.pdiparams`` do not count: they are real data.
        max_loop_iterations: the most iterations of one run of a `while` op (None: no limit).
        source: the model file, named in every error.
    """

    __slots__ = ("max_bytes", "max_loop_iterations", "source")

    def __init__(self, max_bytes=DEFAULT_MAX_BYTES, max_loop_iterations=DEFAULT_MAX_LOOP_ITERATIONS, source=None):
        for name, v in (("max_bytes", max_bytes), ("max_loop_iterations", max_loop_iterations)):
            if v is not None and (not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1):
                raise ValueError(f"{name} must be a positive int or None, got {v!r}")
        self.max_bytes, self.max_loop_iterations, self.source = max_bytes, max_loop_iterations, source

    def with_source(self, source):
        return Budget(self.max_bytes, self.max_loop_iterations, source)

    def __repr__(self):
        return f"Budget(max_bytes={self.max_bytes}, max_loop_iterations={self.max_loop_iterations})"


def human(n):
    """Bytes as text: ``human(3 << 30) == '3.0 GiB'``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


class applied:
    """Context manager: `budget` is active in this thread (None: no budget) until the block ends."""

    __slots__ = ("budget", "prev")

    def __init__(self, budget):
        self.budget = budget

    def __enter__(self):
        self.prev = getattr(_local, "budget", None)
        _local.budget = self.budget
        return self.budget

    def __exit__(self, *exc):
        _local.budget = self.prev


def swap(budget):
    """Makes `budget` active in this thread and returns the one it replaces (the fast form of `applied`, for the
    per-run paths: ``prev = swap(b)`` ... ``swap(prev)`` in a ``finally``)."""
    prev = getattr(_local, "budget", None)
    _local.budget = budget
    return prev


def active():
    """The budget active in this thread, or None."""
    return getattr(_local, "budget", None)


def _prefix(b):
    return f"{b.source}: " if b.source else ""


_RAISE = "(raise it with max_bytes= in oar.jit.load or Config.set_max_bytes if the model is trusted)"


def check_alloc(elements, itemsize, what, budget=None, held=0):
    """Raises ValueError when `elements` values of `itemsize` bytes, on top of the `held` bytes a run already
    holds, exceed the active (or given) budget."""
    b = budget or active()
    if b is None or b.max_bytes is None:
        return
    n = int(elements) * int(itemsize)
    if n > b.max_bytes:
        raise ValueError(f"{_prefix(b)}{what} would allocate {human(n)}, over the load budget of "
                         f"{human(b.max_bytes)} {_RAISE}")
    if n + held > b.max_bytes:
        raise ValueError(f"{_prefix(b)}{what} would allocate {human(n)} while the run holds {human(held)}, over the "
                         f"load budget of {human(b.max_bytes)} {_RAISE}")


def _root(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def owned_nbytes(x, *inputs):
    """The bytes value `x` adds to what a run holds: an ndarray's, unless its memory is one of the op's `inputs`'
    (an input handed back, or a view of one: a reshape adds nothing); 0 for anything else."""
    if not isinstance(x, np.ndarray):
        return 0
    if x.base is None:  # owns its memory (the common case): only an input handed back adds nothing
        for i in inputs:
            if x is i:
                return 0
        return x.nbytes
    r = _root(x)
    for i in inputs:
        if isinstance(i, np.ndarray) and _root(i) is r:
            return 0
    return x.nbytes


def raise_held(budget, held):
    """Raises the error for a run whose live values take `held` bytes, over `budget` (the executor's check after
    each op of a budgeted plan)."""
    raise ValueError(f"{_prefix(budget)}the values the run holds at once take {human(held)} after this op, over the "
                     f"load budget of {human(budget.max_bytes)} {_RAISE}")


def loop_limit():
    """The iteration limit of `while` loops in this thread, or None."""
    b = getattr(_local, "budget", None)
    return None if b is None else b.max_loop_iterations


def history_limit():
    """The most bytes a `while` loop may keep as per-iteration history for a gradient, in this thread, or None."""
    b = getattr(_local, "budget", None)
    return None if b is None else b.max_bytes


def history_error(iterations, kept):
    b = active()
    return ValueError(f"{_prefix(b)}while loop: after {iterations} iterations the history kept for the gradient "
                      f"takes {human(kept)}, over the load budget of {human(b.max_bytes)} (run under oar.no_grad() "
                      "or freeze the parameters if no gradient is needed, or raise max_bytes=)")


def loop_error(limit):
    b = active()
    return RuntimeError(f"{_prefix(b) if b else ''}while loop ran over {limit} iterations, the limit for models "
                        "loaded from files (raise it with max_loop_iterations= in oar.jit.load or "
                        "Config.set_max_loop_iterations)")


def naming_source(exc, budget):
    """`exc` (raised while a program from a file was prepared or ran) as an exception whose message starts with the
    file's name: a ValueError, TypeError, RuntimeError, LookupError (a bad index in the inputs) or ArithmeticError
    keeps its type, any other becomes a RuntimeError naming its type. Returns `exc` itself when it already names
    the file or no budget names one."""
    src = budget.source if budget is not None else None
    if not src or str(exc).startswith(str(src)):
        return exc
    if isinstance(exc, (ValueError, TypeError, RuntimeError, LookupError, ArithmeticError)):
        msg = f"{src}: running the model failed: {exc}"
        try:
            new = type(exc)(msg)
        except Exception:  # noqa: BLE001  (an exception type with another constructor)
            new = RuntimeError(msg)
    else:  # an internal error (MemoryError, AttributeError, ...) caused by what the file holds
        new = RuntimeError(f"{src}: running the model failed ({type(exc).__name__}: {exc})")
    new._oar_op_error = getattr(exc, "_oar_op_error", False)
    return new


# ---- sizes of marked ops ----------------------------------------------------------------------------------------
def _itemsize(attrs, arrays):
    dt = attrs.get("dtype")
    if isinstance(dt, (str, D.DType)):
        try:
            return D.np_dtype(dt).itemsize
        except (TypeError, ValueError, RuntimeError):
            return 8
    return arrays[0].dtype.itemsize if arrays and hasattr(arrays[0], "dtype") else 8


def _prod(dims):
    n = 1
    for d in dims:
        n *= max(int(d), 0)
    return n


def out_elements(opdef, arrays, attrs):
    """Elements the marked op `opdef` will produce for these inputs (its ``OpDef.out_elements`` rule, or its
    `infer` rule on the inputs' real shapes). Raises what the rule raises for impossible attributes."""
    rule = opdef.out_elements
    if rule is not True:
        return int(rule(*arrays, **attrs))
    metas = [(list(np.shape(a)), D.convert_dtype(np.asarray(a).dtype)) for a in arrays]
    return sum(_prod(shape) for shape, _ in opdef.infer(metas, **attrs))


def guard(opdef, fn, op, budget=None):
    """`fn` (the bound kernel of `op`) checked against the active budget first, when `opdef` is marked. With a
    `budget`, the wrapper takes what the run holds already as its first argument (``fn(held, *arrays)``) and
    checks the output on top of it (the executor's budgeted plans)."""
    attrs = op.attrs
    what = f"op '{opdef.name}'"
    if budget is not None:
        if opdef.out_elements is None:
            return lambda held, *arrays: fn(*arrays)

        def checked_held(held, *arrays):
            check_alloc(out_elements(opdef, arrays, attrs), _itemsize(attrs, arrays), what, budget, held)
            return fn(*arrays)
        return checked_held
    if opdef.out_elements is None:
        return fn

    def checked(*arrays):
        b = getattr(_local, "budget", None)
        if b is not None and b.max_bytes is not None:
            check_alloc(out_elements(opdef, arrays, attrs), _itemsize(attrs, arrays), what, b)
        return fn(*arrays)
    return checked


def check_program(program, budget):
    """Checks, before anything runs, what `program`'s attributes and declared shapes say it will allocate:
    each creation op with no inputs, each fully known variable shape, the global block's constants together,
    and in each block the values its ops hold at once (freed after their last read, as the executor does).
    Raises ValueError naming `budget.source`, the op and its source line."""
    if budget is None or budget.max_bytes is None:
        return
    from ..ops.registry import REGISTRY
    from ..ir.printer import format_op
    total = 0
    for b in program.blocks:
        for v in b.vars.values():
            if v.persistable or any(d < 0 for d in v.shape):
                continue
            try:
                size = v.dtype.np.itemsize
            except AttributeError:
                size = 2
            check_alloc(_prod(v.shape), size, f"variable '{v.name}' (declared shape {list(v.shape)})", budget)
        for op in b.ops:
            d = REGISTRY.get(op.type)
            if d is None or d.out_elements is None or op.input_names():
                continue
            try:
                n = out_elements(d, (), op.attrs) * _itemsize(op.attrs, ())
            except Exception:  # noqa: BLE001  (attributes the kernel will reject at run time, with context)
                continue
            where = f"op {format_op(op, with_loc=False)}"
            if op.loc:
                where += f" (created at {op.loc[0]}:{op.loc[1]}: {op.loc[2]})"
            check_alloc(n, 1, where, budget)
            if b.idx == 0:
                total += n
                check_alloc(total, 1, "the program's constants together", budget)
        _check_held(b, budget, format_op)


def _static_bytes(v):
    if v is None or v.persistable or any(d < 0 for d in v.shape):
        return 0
    try:
        return _prod(v.shape) * v.dtype.np.itemsize
    except AttributeError:
        return _prod(v.shape) * 2


def _check_held(block, budget, format_op):
    """What the ops of `block` hold at once, from the shapes the program declares (unknown dims count 0): each
    op's outputs are held from the op to their last read (`oar.graph.liveness`), as the executor frees them."""
    from .liveness import last_reads
    ops = block.ops
    last, held, sizes = last_reads(ops), 0, {}
    for k, op in enumerate(ops):
        for n in op.output_names():
            held -= sizes.pop(n, 0)
            sizes[n] = _static_bytes(block._find_var_recursive(n))
            held += sizes[n]
        if held > budget.max_bytes:
            where = f"after op {format_op(op, with_loc=False)}"
            if op.loc:
                where += f" (created at {op.loc[0]}:{op.loc[1]}: {op.loc[2]})"
            raise ValueError(f"{_prefix(budget)}the values a run holds at once take {human(held)} {where} "
                             f"(from the declared shapes), over the load budget of {human(budget.max_bytes)} "
                             f"{_RAISE}")
        for n in set(op.input_names() + op.output_names()):
            if last.get(n, -1) <= k:
                held -= sizes.pop(n, 0)
