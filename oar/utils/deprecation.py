"""`paddle.utils.deprecated` and `paddle.utils.require_version`. The version they compare with is
``oar.__version__``, which stands where Paddle reads ``paddle.__version__``."""
import functools
import inspect
import re
import warnings


class VisibleDeprecationWarning(UserWarning):
    """The category of `deprecated`'s warning (a UserWarning, so Python shows it by default, as Paddle's)."""


def _parse(version, n=4):
    parts = [int(p) for p in version.split(".") if p.isdigit()]
    return parts + [0] * (n - len(parts))


def _current():
    from ..core.info import VERSION
    return VERSION


def deprecated(update_to="", since="", reason="", level=0):
    """Marks a function or class as deprecated: a warning in its docstring, and at each call a
    `VisibleDeprecationWarning` (``level=1``, when `since` is empty or not newer than the installed version) or a
    RuntimeError (``level=2``). ``level=0`` only edits the docstring.

    Example:
        >>> import warnings
        >>> @oar.utils.deprecated(update_to="paddle.add", since="0.0.1", level=1)
        ... def plus(a, b):
        ...     return a + b
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     plus(1, 2), 'Please use "paddle.add" instead' in str(caught[0].message)
        (3, True)
    """
    for arg, what in ((update_to, "update_to"), (since, "since"), (reason, "reason")):
        if not isinstance(arg, str):
            raise TypeError(f'deprecated: "{what}" must be a str, got {type(arg).__name__}')
    if not isinstance(level, int) or level not in (0, 1, 2):
        raise ValueError(f'deprecated: "level" must be 0, 1 or 2, got {level!r}')
    since, update_to, reason = since.strip(), update_to.strip(), reason.strip()
    if update_to and not update_to.startswith("paddle."):
        raise ValueError(f'deprecated: update_to must start with "paddle.", got {update_to!r}')

    def decorate(func):
        msg = f'API "{func.__module__}.{func.__name__}" is deprecated'
        msg += f" since {since}" if since else ""
        msg += ", and will be removed in future versions."
        msg += f' Please use "{update_to}" instead.' if update_to else ""
        msg += f"\n    Reason: {reason}" if reason else ""
        if func.__doc__:
            func.__doc__ = "\n\nWarning:\n    " + msg + "\n\n" + inspect.cleandoc(func.__doc__)
        if level == 0:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(f'API "{func.__module__}.{func.__name__}" has been deprecated.')
            if not since or _parse(_current()) >= _parse(since):
                warnings.warn(f"\nWarning:\n{msg} ", category=VisibleDeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)
        return wrapper
    return decorate


def require_version(min_version, max_version=None):
    """Raises when the installed version (``oar.__version__``) is below `min_version` or above `max_version`
    (versions compared number by number, ``'2.0'`` as ``'2.0.0.0'``).

    Example:
        >>> oar.utils.require_version('0.0.1')
        >>> oar.utils.require_version('99.0')
        Traceback (most recent call last):
        ...
        Exception: VersionError: oar version 99.0 or higher is required, but ... installed...
    """
    for v, what in ((min_version, "min_version"), (max_version, "max_version")):
        if v is None and what == "max_version":
            continue
        if not isinstance(v, str):
            raise TypeError(f"The type of '{what}' in require_version must be str, but received {type(v)}.")
        if not re.match(r"\d+(\.\d+){0,3}$", v):
            raise ValueError(f"The value of '{what}' in require_version must be in format '\\d+(\\.\\d+){{0,3}}', "
                             f"like '1.5.2.0', but received {v}")
    current = _current()
    if _parse(current) < _parse(min_version):
        raise Exception(f"VersionError: oar version {min_version} or higher is required, but {current} installed, "
                        f"please upgrade oar to {min_version} or a higher version.")
    if max_version is not None and _parse(current) > _parse(max_version):
        raise Exception(f"VersionError: oar version in [{min_version}, {max_version}] is required, but {current} "
                        f"installed.")
