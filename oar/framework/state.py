"""Process-wide switches: eager/static mode, gradient recording, the random generator and the device.

Kept in one small mutable object so the hot path reads a single attribute.
"""
import functools

import numpy as np


class _State:
    __slots__ = ("static", "grad_enabled", "rng", "device", "seed_value", "amp")

    def __init__(self):
        self.static = False        # True: op calls append Operators to the current Program
        self.grad_enabled = True   # False inside no_grad(): the eager tape records nothing
        self.rng = np.random.default_rng()
        self.device = "cpu"
        self.seed_value = None
        self.amp = None            # inside oar.amp.auto_cast: the hook that casts each op's inputs


STATE = _State()


def in_dynamic_mode():
    """True when op calls run at once (the default), False in static mode.

    Example:
        >>> oar.in_dynamic_mode()
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
    return STATE.rng


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

    def __enter__(self):
        self._prev = STATE.grad_enabled
        STATE.grad_enabled = self._enabled
        return self

    def __exit__(self, *exc):
        STATE.grad_enabled = self._prev
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


def set_grad_enabled(mode):
    """Context manager that sets gradient recording on or off.

    Example:
        >>> x = oar.to_tensor([1.0], stop_gradient=False)
        >>> with oar.set_grad_enabled(False):
        ...     y = x * 2
        >>> y.stop_gradient
        True
    """
    return enable_grad() if mode else no_grad()


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
    """The CPU device. oar computes with NumPy on the CPU.

    Example:
        >>> oar.CPUPlace()
        Place(cpu)
    """

    def __repr__(self):
        return "Place(cpu)"

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return 0


class CUDAPlace(CPUPlace):
    """Accepted for compatibility; oar has no GPU backend yet, so creating one raises.

    Example:
        >>> try:
        ...     oar.CUDAPlace(0)
        ... except RuntimeError as e:
        ...     print(e)
        oar was built without a GPU backend; use oar.CPUPlace()
    """

    def __init__(self, idx=0):
        raise RuntimeError("oar was built without a GPU backend; use oar.CPUPlace()")


def set_device(device):
    """Selects the device; only 'cpu' exists in this build.

    Example:
        >>> oar.set_device('cpu')
        Place(cpu)
        >>> oar.get_device()
        'cpu'
    """
    if not str(device).startswith("cpu"):
        raise ValueError(f"device {device!r} is not available: oar runs on 'cpu' only in this build")
    STATE.device = "cpu"
    return CPUPlace()


def get_device():
    """The current device name ('cpu').

    Example:
        >>> oar.get_device()
        'cpu'
    """
    return STATE.device


def is_compiled_with_cuda():
    """False: this build computes on the CPU only.

    Example:
        >>> oar.is_compiled_with_cuda()
        False
    """
    return False
