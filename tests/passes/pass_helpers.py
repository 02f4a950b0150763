import numpy as np

import oar
from oar.static import Program, program_guard, data
from oar.graph.builder import static_mode
from oar.graph.executor import compile_program


def build(fn, feeds):
    """Builds a Program from fn(*feed_vars) -> output var(s); feeds: list of (name, shape, dtype)."""
    main = Program()
    with static_mode(), program_guard(main):
        xs = [data(n, s, d) for n, s, d in feeds]
        outs = fn(*xs)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    return main, [x.name for x in xs], [o.name for o in outs]


def run(program, feed_names, fetch_names, arrays):
    return compile_program(program, feed_names, fetch_names).run(dict(zip(feed_names, arrays)))


def const(a):
    return oar.to_tensor(np.asarray(a, np.float32))
