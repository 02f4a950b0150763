"""A StaticFunction's programs die with it: nothing module-level keeps a traced Program alive (a leaked
program per trace grew the heap, and every full garbage collection walked it: the property test spent
a fifth of its time in the collector)."""
import gc
import weakref

import oar as paddle


def one_branch(x):
    if x.sum() > 0:      # `y` is assigned on one path of a tensor `if`: a MaybeUndefinedVar with a run-time flag
        y = x + 1
    z = x * 2
    if x.mean() > 0:
        z = y
    return z


def test_a_program_with_a_maybe_undefined_value_is_freed_with_its_function():
    sf = paddle.jit.to_static(one_branch)
    assert sf(paddle.to_tensor([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
    program = weakref.ref(sf.concrete_program.main_program)
    del sf
    gc.collect()
    assert program() is None
