"""`guards.global_reads` reads LOAD_GLOBAL / LOAD_NAME from the raw bytecode: it finds what `dis` finds,
also past 256 names (EXTENDED_ARG) and in nested code."""
import dis
import types

import oar.jit.static_function as static_function
from oar.jit import guards


def _by_dis(code):
    return {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}


def test_same_names_as_dis_for_the_jit_functions():
    fns = [v for mod in (static_function, guards) for v in vars(mod).values() if isinstance(v, types.FunctionType)]
    fns += [v for cls in (static_function.StaticFunction, guards.GuardSet) for v in vars(cls).values()
            if isinstance(v, types.FunctionType)]
    assert len(fns) > 30
    for f in fns:
        assert guards._loaded_globals(f.__code__) == _by_dis(f.__code__), f.__qualname__


def test_many_names_and_nested_code():
    attrs = "\n".join(f"    o.a{i} = 1" for i in range(300))   # 300 attribute names first: globals past 256
    src = f"def f(o):\n{attrs}\n    return far_global + len(o)\n\ndef g():\n    return [h for h in inner_global]\n"
    ns = {}
    exec(compile(src, "<many>", "exec"), ns)
    assert guards._loaded_globals(ns["f"].__code__) == _by_dis(ns["f"].__code__) == {"far_global", "len"}
    assert "inner_global" in guards.global_reads(ns["g"].__code__)
