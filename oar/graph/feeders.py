"""Inputs the Executor fills on every run from a source registered while the program was built: static
`minimize` with an `LRScheduler` registers the scheduler for its learning-rate input, so the learning rate is an
ordinary fed variable and the Program holds no live object. A source is any callable returning the value (an
`LRScheduler` returns its current ``last_lr``); the registry holds programs weakly.

Example:
    >>> from oar.static import feeders
    >>> oar.enable_static()
    >>> main = oar.static.Program()
    >>> with oar.static.program_guard(main):
    ...     lr = oar.static.data('lr', [], 'float32')
    ...     y = lr * 2.0
    >>> oar.disable_static()
    >>> feeders.register(main, 'lr', lambda: 0.5)
    >>> float(oar.static.Executor().run(main, fetch_list=[y])[0])
    1.0
"""
import numpy as np

from ..core.weakmap import WeakIdMap

_SOURCES = WeakIdMap()   # program (held weakly) -> {var name: source}


def register(program, name, source):
    """`Executor.run(program)` feeds variable `name` with ``source()`` unless the caller feeds it."""
    _SOURCES.setdefault(program, {})[name] = source


def sources(program):
    """{var name: source} registered for `program` (empty when none)."""
    return _SOURCES.get(program, {})


def copy(src, dst):
    """`dst` (a clone of `src`) gets the sources of the variables it still declares."""
    gb = dst.global_block()
    for name, source in sources(src).items():
        if name in gb.vars:
            register(dst, name, source)


def fill(program, feed):
    """`feed` with the registered inputs of `program` the caller did not feed added (a new dict when any)."""
    regs = _SOURCES.get(program)
    if not regs:  # the common case: nothing registered (one lookup per Executor.run)
        return feed
    missing = [n for n in regs if n not in feed]
    if not missing:
        return feed
    feed = dict(feed)
    for n in missing:
        dtype = program.global_block().vars[n].dtype.np
        feed[n] = np.asarray(regs[n](), dtype)
    return feed
