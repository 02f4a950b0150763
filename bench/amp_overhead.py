"""Cost of the auto_cast check in `apply` when amp is off: `oar.add` on small tensors with the real `apply`
against a copy of `apply` without the check, measured in the same run (and the cost with auto_cast on)."""
import inspect
import textwrap
import timeit

import numpy as np

import oar
from oar.ops import registry
from oar.ops.math import ADD


def main():
    src = textwrap.dedent(inspect.getsource(registry.apply))
    lines = src.splitlines()
    i = next(k for k, line in enumerate(lines) if "amp is not None" in line)
    src = "\n".join(lines[:i] + lines[i + 2:]).replace("def apply(", "def apply_no_amp(")
    ns = dict(vars(registry))
    exec(src, ns)
    bare = ns["apply_no_amp"]
    a = oar.to_tensor(np.ones(8, "float32"))
    b = oar.to_tensor(np.ones(8, "float32"))
    real = registry.apply
    args = (a, b)
    n = 100000
    t_bare = t_real = float("inf")
    for _ in range(5):  # interleaved, best of each: the machine is shared
        t_bare = min(t_bare, timeit.timeit(lambda: bare(ADD, args), number=n) / n)
        t_real = min(t_real, timeit.timeit(lambda: real(ADD, args), number=n) / n)
    with oar.amp.auto_cast():
        t_amp = min(timeit.repeat(lambda: real(ADD, args), number=n // 10, repeat=3)) / (n // 10)
    print(f"apply(add) without the amp check: {t_bare * 1e6:.3f} us")
    print(f"apply(add) with the amp check (amp off): {t_real * 1e6:.3f} us  ratio {t_real / t_bare:.3f}")
    print(f"apply(add) inside auto_cast (float32 inputs): {t_amp * 1e6:.3f} us  ratio {t_amp / t_bare:.2f}")


if __name__ == "__main__":
    main()
