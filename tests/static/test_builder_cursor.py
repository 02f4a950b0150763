"""The build cursor lives in the per-thread `Builder`, not in the Program: programs are plain data."""
import threading

import oar
from oar.graph.builder import BUILDER


def test_the_program_holds_no_cursor_and_each_thread_has_its_own():
    main = oar.static.Program()
    sub = main.create_block(0)
    seen = {}

    def other():
        with oar.static.program_guard(main):
            BUILDER.set_block(main, sub.idx)
            seen["other"] = (BUILDER.main is main, main.current_block().idx)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen["other"] == (True, 1)
    assert BUILDER.main is not main and main.current_block() is main.global_block()   # this thread: untouched
    assert not hasattr(main, "current_block_idx") and not hasattr(main, "_op_role")


def test_roles_come_from_the_builder():
    main = oar.static.Program()
    with BUILDER.role_guard(main, "backward"):
        op = main.global_block().append_op("relu", {}, {})
    assert op.role == "backward" and main.global_block().append_op("relu", {}, {}).role is None
