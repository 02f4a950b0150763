"""Each converter module: input code -> transformed code text (the runtime calls it must produce)."""
import ast
import textwrap

import pytest

from oar.jit.transformers import STEPS
from oar.jit.transformers.base import Context, to_source


def convert(src, upto=None):
    tree = ast.parse(textwrap.dedent(src))
    ctx = Context("<test>", "f")
    ctx.uses_class_cell = False
    for name, step in STEPS:
        tree = step(tree, ctx)
        if name == upto:
            break
    return to_source(tree), ctx


def test_ifelse_becomes_convert_ifelse_with_nonlocal_branches():
    code, _ = convert("""
    def f(x):
        if x > 0:
            y = x
        else:
            y = -x
        return y
    """)
    assert "_jst.convert_ifelse(x > 0" in code
    assert "nonlocal y" in code
    assert "y = _jst.UndefinedVar('y', 4, 6)" in code


def test_ifexp_and_logical_ops_are_lazy_thunks():
    code, _ = convert("""
    def f(a, b):
        return a if a > b else b and not a or b
    """)
    assert "_jst.convert_ifexp(a > b, lambda: a, lambda:" in code
    assert "_jst.convert_logical_and(lambda: b, lambda: _jst.convert_logical_not(a))" in code
    assert "_jst.convert_logical_or(lambda:" in code


def test_while_becomes_convert_while_over_assigned_names():
    code, _ = convert("""
    def f(x, n):
        i = 0
        while i < n:
            x = x + 1
            i += 1
        return x
    """)
    assert "_jst.convert_while(__cond_" in code
    assert "(('x', 'name'), ('i', 'name'))" in code
    assert "return i < n" in code


def test_for_passes_target_and_iterable_through_runtime():
    code, _ = convert("""
    def f(x):
        for i, w in enumerate([1, 2]):
            x = x + w * i
        return x
    """)
    assert "_jst.convert_for(_jst.convert_enumerate([1, 2])" in code
    assert "('i', 'w')" in code
    assert "(i, w) = __item" in code or "i, w = __item" in code


def test_break_and_continue_become_flags_and_guards():
    code, _ = convert("""
    def f(x, n):
        i = 0
        while i < n:
            i += 1
            if i == 2:
                continue
            if i > 3:
                break
            x = x + i
        else:
            x = x * 2
        return x
    """, upto="break_continue")
    assert "__break_" in code and "__continue_" in code
    assert "_jst.convert_logical_and(lambda: _jst.convert_logical_not(__break_" in code
    assert "break" not in code.replace("__break_", "")
    assert "continue" not in code.replace("__continue_", "")
    assert "if _jst.convert_logical_not(__break_" in code  # while/else


def test_return_lowered_to_single_exit():
    code, _ = convert("""
    def f(x):
        for i in range(3):
            if x[i] > 0:
                return x[i]
        return x
    """, upto="return")
    assert code.count("return ") == 1 and code.rstrip().endswith("return __return_value")
    assert "__return_flag = True" in code


def test_builtins_print_assert_shape_lists_calls():
    code, _ = convert("""
    def f(x, xs):
        print(x)
        assert x > 0, 'msg'
        n = len(x) + int(x) + float(x)
        s = x.shape
        xs.append(x)
        v = xs.pop()
        return helper(x)
    """)
    for part in ("_jst.convert_print(x)", "_jst.convert_assert(x > 0, lambda: 'msg')", "_jst.convert_len(x)",
                 "_jst.convert_cast(x, 'int')", "_jst.convert_cast(x, 'float')", "_jst.convert_shape(x)",
                 "xs = _jst.convert_append(xs, x)", "_jst.convert_pop(xs, None)", "_jst.convert_call(helper)(x)"):
        assert part in code, part


def test_compare_chain_is_converted():
    code, _ = convert("""
    def f(x):
        return 0 < x < 5
    """)
    assert "_jst.convert_compare_chain(('Lt', 'Lt'), (lambda: 0, lambda: x, lambda: 5))" in code


def test_debugger_call_marks_eager_fallback():
    _, ctx = convert("""
    def f(x):
        breakpoint()
        return x
    """)
    assert ctx.eager_reason and "breakpoint" in ctx.eager_reason


def test_converted_code_compiles_and_keeps_line_numbers():
    src = """
    def f(x):
        if x > 0:
            y = x
        else:
            y = 0
        return y
    """
    code, _ = convert(src)
    compile(code, "<t>", "exec")
    tree = ast.parse(textwrap.dedent(src))
    ctx = Context("<t>", "f")
    ctx.uses_class_cell = False
    for _, step in STEPS:
        tree = step(tree, ctx)
    lines = {n.lineno for n in ast.walk(tree) if hasattr(n, "lineno")}
    assert lines <= set(range(1, 8))  # every generated node points at a line of the original function


def test_normalize_drops_decorators_and_makes_super_explicit():
    code, ctx = convert("""
    @some_decorator
    def forward(self, x):
        return super().forward(x)
    """, upto="normalize")
    assert "@some_decorator" not in code
    assert "super(__class__, self).forward(x)" in code and ctx.uses_class_cell


def test_declare_binds_block_names_as_undefined_with_their_lines():
    code, _ = convert("""
    def f(x, n):
        a = 1
        for i in range(n):
            z = x * i
        return z
    """)
    assert "z = _jst.UndefinedVar('z', 5)" in code and "i = _jst.UndefinedVar('i'" in code
    assert "a = _jst.UndefinedVar" not in code and "x = _jst.UndefinedVar" not in code


def test_shape_becomes_runtime_shape_on_loads_only():
    code, _ = convert("""
    def f(x):
        n = x.shape[0]
        return x.reshape([n, -1])
    """, upto="shape")
    assert "n = _jst.convert_shape(x)[0]" in code


def test_list_mutation_rewritten_for_local_lists_only():
    code, _ = convert("""
    def f(x, xs):
        out = []
        out.append(x)
        xs.append(x)
        GLOBAL.append(x)
        GLOBAL[0] = x
        return out
    """, upto="list")
    assert "out = _jst.convert_append(out, x)" in code and "xs = _jst.convert_append(xs, x)" in code
    assert "GLOBAL.append(x)" in code   # a global / closure list is mutated in place, never rebound


def test_global_container_store_is_not_a_block_variable():
    code, _ = convert("""
    def f(x):
        if x > 0:
            CACHE['k'] = x
        return x
    """)
    assert "nonlocal CACHE" not in code and "UndefinedVar('CACHE'" not in code
    # it is changed in place: snapshotted (read), never rebound
    assert "(('CACHE', 'mut'),)" in code and "CACHE = __args" not in code
