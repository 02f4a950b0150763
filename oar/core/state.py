"""oar's switches: the per-thread modes (eager/static building, gradient recording, auto_cast) and the
process-wide random generator and device.

Modes are per thread: one thread inside `no_grad()`, `auto_cast()` or building a static Program never changes how
another thread's ops run. A new thread starts eager, with gradients on and auto_cast off, whatever the thread that
started it is doing. The random generator, `seed()` and the device stay process-wide, as in Paddle: `oar.seed(n)`
seeds what DataLoader workers and every other thread draw from.

How: each thread's modes are one mutable `Mode` object, found through a `contextvars.ContextVar` and made on the
thread's first switch. Why not `threading.local`: the hot path (`registry.apply`) reads the modes on every op, and
`ContextVar.get()` costs about 4 ns (then slot reads), a `threading.local` attribute read about 50 ns (three per op:
~10 % of a small eager op). Why a mutable object rather than a new immutable one set on each switch: the auto_cast
hook switches amp off and on around every op it casts; a slot write costs ~10 ns, a `ContextVar.set` + `reset`
~100 ns and it empties the variable's lookup cache, so the next reads cost more too (+15 % per op inside
auto_cast, measured). The Mode records the thread that owns it: a context copied into another thread
(`asyncio.to_thread`, `copy_context().run`) reads the modes it was started with, and its first switch makes that
thread its own Mode (copy on write), so threads never write each other's modes. (asyncio tasks of one thread share
the thread's modes, as they would share a `threading.local`.)

Example:
    >>> import threading
    >>> seen = []
    >>> with oar.no_grad():
    ...     t = threading.Thread(target=lambda: seen.append(oar.is_grad_enabled()))
    ...     t.start(); t.join()
    >>> seen                       # the other thread was not inside this thread's no_grad
    [True]
"""
import contextlib
import contextvars
import functools
from threading import get_ident

import numpy as np


class Mode:
    """The modes of one thread, read by every op: ``static`` (True: op calls append Operators to the thread's
    current Program), ``grad_enabled`` (False inside no_grad(): the eager tape records nothing), ``amp`` (inside
    oar.amp.auto_cast: the hook that casts each op's inputs, else None), ``hook`` (while `oar.jit.trace` records or
    `oar.lazy()` defers this thread's eager ops: ``hook(op, inputs, attrs)`` runs each one instead, else None);
    ``owner``: the thread that may write it. Switch modes through `STATE` (or `own_mode()` on a hot path). A
    thread's copy of another thread's modes never takes the hook: traces and lazy graphs stay with their thread."""

    __slots__ = ("static", "grad_enabled", "amp", "hook", "owner")

    def __init__(self, static=False, grad_enabled=True, amp=None, owner=None):
        self.static, self.grad_enabled, self.amp, self.owner = static, grad_enabled, amp, owner
        self.hook = None

    def __repr__(self):
        return f"Mode(static={self.static}, grad_enabled={self.grad_enabled}, amp={self.amp!r})"


_MODE = contextvars.ContextVar("oar_mode", default=Mode())  # the default (owner None) is never written
mode = _MODE.get  # the calling thread's Mode, to read: hot paths read `mode().static` (one call, then slot reads)
_PROBE_RNG = contextvars.ContextVar("oar_probe_rng", default=None)


def own_mode():
    """The calling thread's Mode, to write (made on the thread's first switch from the modes it reads)."""
    m = _MODE.get()
    if m.owner != get_ident():
        m = Mode(m.static, m.grad_enabled, m.amp, get_ident())
        _MODE.set(m)
    return m


def _mode_field(name, doc):
    def get(self):
        return getattr(_MODE.get(), name)

    def set_(self, value):
        setattr(own_mode(), name, value)
    return property(get, set_, doc=doc)


class _State:
    """`STATE.static`, `STATE.grad_enabled`, `STATE.amp`: the calling thread's modes (reading and assigning them
    touches only that thread); `rng`, `device`, `seed_value`: process-wide."""

    __slots__ = ("rng", "device", "seed_value")

    static = _mode_field("static", "True while this thread builds a static Program")
    grad_enabled = _mode_field("grad_enabled", "False inside this thread's no_grad()")
    amp = _mode_field("amp", "this thread's auto_cast hook, or None")

    def __init__(self):
        self.rng = np.random.default_rng()
        self.device = "cpu"
        self.seed_value = None


STATE = _State()


def in_dynamic_mode():
    """True when op calls run at once (the default), False in static mode.

    Example:
        >>> oar.in_dynamic_mode()
        True
    """
    return not STATE.static


def use_pir_api():
    """False: oar's static programs are built of `Variable`s (Paddle's legacy static API), not PIR `Value`s, so
    model code that branches on ``paddle.framework.use_pir_api()`` takes its legacy-static branch, which is the
    one that fits oar (Paddle 3 returns True).

    Example:
        >>> oar.framework.use_pir_api()
        False
    """
    return False


def in_pir_mode():
    """False: static mode in oar is never PIR mode (see `use_pir_api`).

    Example:
        >>> oar.framework.in_pir_mode()
        False
    """
    return False


def in_dynamic_or_pir_mode():
    """True in dynamic mode (oar's static mode is not PIR mode, see `use_pir_api`).

    Example:
        >>> oar.framework.in_dynamic_or_pir_mode()
        True
    """
    return not STATE.static


def seed(n):
    """Seeds every random op of oar (and returns a generator-like object as Paddle does).

    Example:
        >>> _ = oar.seed(42)
        >>> a = oar.rand([2])
        >>> _ = oar.seed(42)
        >>> oar.rand([2]).numpy().tolist() == a.numpy().tolist()
        True
    """
    STATE.rng = np.random.default_rng(int(n))
    STATE.seed_value = int(n)
    return STATE.rng


def rng():
    """The generator random kernels draw from: the process-wide one, or this thread's throwaway one while
    `probe_rng()` is active."""
    r = _PROBE_RNG.get()
    return STATE.rng if r is None else r


@contextlib.contextmanager
def probe_rng():
    """Within the block, random kernels run by this thread draw from a throwaway generator (shape probing of a
    random op must move neither the user's seed nor another thread's draws)."""
    token = _PROBE_RNG.set(np.random.default_rng(0))
    try:
        yield
    finally:
        _PROBE_RNG.reset(token)


def get_rng_state():
    """The state of the generator behind every random op (restore it with `set_rng_state`).

    Example:
        >>> state = oar.get_rng_state()
        >>> a = oar.rand([2])
        >>> oar.set_rng_state(state)
        >>> bool((oar.rand([2]) == a).all())
        True
    """
    return STATE.rng.bit_generator.state


def set_rng_state(state):
    """Restores a state returned by `get_rng_state`.

    Example:
        >>> state = oar.get_rng_state()
        >>> a = oar.randn([3])
        >>> oar.set_rng_state(state)
        >>> oar.randn([3]).numpy().tolist() == a.numpy().tolist()
        True
    """
    STATE.rng.bit_generator.state = state


class no_grad:
    """Context manager and decorator: ops inside record no gradient history.

    Example:
        >>> x = oar.to_tensor([1.0], stop_gradient=False)
        >>> with oar.no_grad():
        ...     y = x * 2
        >>> y.stop_gradient
        True
    """

    _enabled = False  # the grad mode inside the region

    def __enter__(self):  # (`STATE.grad_enabled`, read then set, written out: every backward and step enters one)
        m = own_mode()
        self._prev = m.grad_enabled
        m.grad_enabled = self._enabled
        return self

    def __exit__(self, *exc):
        own_mode().grad_enabled = self._prev
        return False

    def __call__(self, fn=None):
        if fn is None:
            return self
        mode = type(self)

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with mode():  # a fresh region per call: `_prev` is per entry, so calls may nest or recurse
                return fn(*a, **k)
        return wrapper


class enable_grad(no_grad):
    """Re-enables gradient recording inside a `no_grad` region.

    Example:
        >>> x = oar.to_tensor([1.0], stop_gradient=False)
        >>> with oar.no_grad():
        ...     with oar.enable_grad():
        ...         y = x * 2
        >>> y.stop_gradient
        False
    """

    _enabled = True


class set_grad_enabled:
    """Sets gradient recording on or off: at once when called (as Paddle), restored on leaving a ``with`` block.

    Example:
        >>> x = oar.to_tensor([1.0], stop_gradient=False)
        >>> with oar.set_grad_enabled(False):
        ...     y = x * 2
        >>> y.stop_gradient, oar.is_grad_enabled()
        (True, True)
        >>> _ = oar.set_grad_enabled(False)
        >>> (x * 2).stop_gradient
        True
        >>> _ = oar.set_grad_enabled(True)
    """

    def __init__(self, mode):
        self._prev = STATE.grad_enabled
        STATE.grad_enabled = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        STATE.grad_enabled = self._prev
        return False


def is_grad_enabled():
    """True unless inside `no_grad`.

    Example:
        >>> with oar.no_grad():
        ...     print(oar.is_grad_enabled())
        False
        >>> oar.is_grad_enabled()
        True
    """
    return STATE.grad_enabled


class CPUPlace:
    """The CPU: tensors held as NumPy arrays in host memory.

    Example:
        >>> oar.CPUPlace()
        Place(cpu)
    """

    def __repr__(self):
        return "Place(cpu)"

    def __eq__(self, other):
        return type(other) is CPUPlace

    def __hash__(self):
        return 0

    def name(self):
        """The device name Paddle prints: 'cpu'."""
        return "cpu"


class CUDAPlace:
    """GPU `idx`: tensors held as CuPy arrays in that GPU's memory. Creating one loads the GPU backend, and raises
    a RuntimeError saying why when CuPy or a GPU is missing (`docs/gpu.md`).

    Example:
        >>> try:
        ...     p = oar.CUDAPlace(0)
        ... except RuntimeError as e:
        ...     print(str(e).split(':')[0])
        no GPU backend
    """

    def __init__(self, idx=0):
        from .devices import device_count, load
        load()
        n = device_count()
        if not 0 <= int(idx) < n:
            raise ValueError(f"CUDAPlace({idx}): this machine has {n} GPU(s)")
        self.idx = int(idx)

    def get_device_id(self):
        """The GPU's index."""
        return self.idx

    def name(self):
        """The device name Paddle prints: 'gpu:N'."""
        return f"gpu:{self.idx}"

    def __repr__(self):
        return f"Place(gpu:{self.idx})"

    def __eq__(self, other):
        return type(other) is CUDAPlace and other.idx == self.idx

    def __hash__(self):
        return 1 + self.idx


def place_name(place):
    """'cpu' or 'gpu:N' for a place given as a Place, a string ('cpu', 'gpu', 'gpu:1', 'cuda:0') or None (the
    current device)."""
    if place is None:
        return STATE.device
    if isinstance(place, (CPUPlace, CUDAPlace)):
        return place.name()
    text = str(place).strip().lower()
    if text.startswith("place(") and text.endswith(")"):
        text = text[6:-1]
    if text == "cpu":
        return "cpu"
    kind, _, idx = text.partition(":")
    if kind in ("gpu", "cuda") and (idx == "" or idx.isdigit()):
        return CUDAPlace(int(idx or 0)).name()
    raise ValueError(f"unknown device {place!r}: expected 'cpu', 'gpu' or 'gpu:N' (or a CPUPlace / CUDAPlace)")


def set_device(device):
    """Selects the device new tensors are created on: 'cpu', 'gpu' or 'gpu:N'. A GPU needs CuPy and a GPU
    (`pip install 'oar-dl[gpu]'`); without them this raises a RuntimeError saying which is missing.

    Example:
        >>> oar.set_device('cpu')
        Place(cpu)
        >>> oar.get_device()
        'cpu'
    """
    name = place_name(device)
    STATE.device = name
    return CPUPlace() if name == "cpu" else CUDAPlace(int(name[4:]))


def get_device(input=None):
    """The current device name ('cpu' or 'gpu:N'); given a Tensor, the index of the GPU holding it (-1 when it is
    on the CPU).

    Example:
        >>> oar.get_device()
        'cpu'
        >>> oar.get_device(oar.to_tensor([1, 2], place=oar.CPUPlace()))
        -1
    """
    if input is None:
        return STATE.device
    place = getattr(input, "place", None)
    if isinstance(place, CUDAPlace):
        return place.get_device_id()
    if isinstance(place, CPUPlace):
        return -1
    raise TypeError(f"get_device takes a Tensor (or nothing, for the current device), got {type(input).__name__}")


def get_cuda_rng_state():
    """One random-generator state per GPU (``[]`` without GPUs, as Paddle). Random ops on a GPU draw on the host
    from the generator of `get_rng_state` and copy the result (docs/gpu.md), so each entry is that state, and
    `set_cuda_rng_state` restores it.

    Example:
        >>> states = oar.get_cuda_rng_state()
        >>> isinstance(states, list)
        True
        >>> oar.set_cuda_rng_state(states)
    """
    from .devices import device_count
    return [get_rng_state() for _ in range(device_count())]


def set_cuda_rng_state(state_list):
    """Restores states from `get_cuda_rng_state` (one per GPU; the host generator all of them draw from).

    Example:
        >>> oar.set_cuda_rng_state([])  # no GPU: nothing to restore
    """
    from .devices import device_count
    states = list(state_list)
    if len(states) != device_count():
        raise ValueError(f"set_cuda_rng_state: got {len(states)} states for {device_count()} GPUs")
    if states:
        set_rng_state(states[0])


def disable_signal_handler():
    """Paddle installs handlers for SIGSEGV, SIGTERM, ... that print its C++ stack; this removes them, for code
    that installs its own. oar installs no signal handler in the process that imports it, so there is nothing to
    remove: Python's own handling stays in place, before and after.

    Example:
        >>> oar.disable_signal_handler()
    """


def is_compiled_with_cuda():
    """True when a GPU backend is installed (CuPy importable, or the test suite's fake device); whether a GPU is
    present is `oar.device.cuda.device_count() > 0`.

    Example:
        >>> isinstance(oar.is_compiled_with_cuda(), bool)
        True
    """
    import importlib.util
    import os
    if os.environ.get("OAR_DEVICE_BACKEND") == "fake":
        return True
    return importlib.util.find_spec("cupy") is not None
