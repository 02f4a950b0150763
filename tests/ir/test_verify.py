"""The IR verifier refuses malformed programs with a message naming block, op index, op type and source line;
every pass's result and every loaded program is verified (tests run with OAR_VERIFY_PASSES=1)."""
import json

import pytest

import oar
from oar import ir
from oar.graph.program import verify

SCHEMA = {
    "relu": ir.OpSchema(inputs=("x",), outputs=("out",)),
    "add": ir.OpSchema(inputs=("x", "y"), outputs=("out",)),
    "scale": ir.OpSchema(inputs=("x",), outputs=("out",), attr_types={"scale": (lambda a: isinstance(a, float),
                                                                                "a float")}),
    "loop": ir.OpSchema(inputs=("x",), outputs=("out",), lowered=True, block_attrs=("sub_block",),
                        name_attrs=("body_in", "body_out")),
}


def program(*vars_):
    p = ir.Program()
    b = p.global_block()
    b.create_var("x", [2], "float32", is_data=True)
    for n in vars_:
        b.create_var(n, [2], "float32")
    return p, b


def refused(p, *parts):
    with pytest.raises(ir.VerifyError) as e:
        ir.verify(p, SCHEMA)
    for part in parts:
        assert part in str(e.value), str(e.value)
    return str(e.value)


def test_a_well_formed_program_passes():
    p, b = program("y", "z")
    b.append_op("relu", {"x": ["x"]}, {"out": ["y"]})
    b.append_op("add", {"x": ["x"], "y": ["y"]}, {"out": ["z"]})
    assert ir.verify(p, SCHEMA) is p


def test_a_read_before_its_write_is_refused_naming_the_user_line():
    p, b = program("y", "z")
    b.append_op("add", {"x": ["x"], "y": ["y"]}, {"out": ["z"]}, loc=("/home/u/model.py", 12, "z = x + y"))
    b.append_op("relu", {"x": ["x"]}, {"out": ["y"]})
    refused(p, "block 0 op 0 (add) at model.py:12", "input 'y' is read before any op writes it")


def test_an_undeclared_output_is_refused():
    p, b = program()
    b.append_op("relu", {"x": ["x"]}, {"out": ["nowhere"]})
    refused(p, "block 0 op 0 (relu)", "output 'nowhere' is not declared in block 0")


def test_an_unknown_op_type_and_slot_are_refused():
    p, b = program("y")
    b.append_op("mystery", {"x": ["x"]}, {"out": ["y"]})
    refused(p, "block 0 op 0 (mystery)", "unknown op type")
    p, b = program("y")
    b.append_op("relu", {"input": ["x"]}, {"out": ["y"]})
    refused(p, "input slot 'input' is not one of ['x']")


def test_an_attribute_of_the_wrong_declared_type_is_refused():
    p, b = program("y")
    b.append_op("scale", {"x": ["x"]}, {"out": ["y"]}, {"scale": "two"})
    refused(p, "block 0 op 0 (scale)", "attribute 'scale' must be a float")
    p, b = program("y")  # a name shared by all ops (serialize.ATTR_TYPES)
    b.append_op("relu", {"x": ["x"]}, {"out": ["y"]}, {"keepdim": 1})
    refused(p, "attribute 'keepdim' must be a bool")


def test_sub_blocks_must_be_in_range_and_owned_by_exactly_one_op():
    p, b = program("y", "y2")
    b.append_op("loop", {"x": ["x"]}, {"out": ["y"]}, {"sub_block": 3})
    refused(p, "block 0 op 0 (loop)", "sub-block 3 is not a later block")

    p, b = program("y", "y2")
    sub = ir.Block(p, 1, 0)
    p.blocks.append(sub)
    b.append_op("loop", {"x": ["x"]}, {"out": ["y"]}, {"sub_block": 1})
    b.append_op("loop", {"x": ["x"]}, {"out": ["y2"]}, {"sub_block": 1})
    refused(p, "block 0 op 1 (loop)", "sub-block 1 is already owned by block 0 op 0 (loop)")

    p, b = program()
    p.blocks.append(ir.Block(p, 1, 0))
    refused(p, "block 1: no op owns it")


def test_bad_block_structure_is_refused():
    p, b = program()
    p.blocks.append(ir.Block(p, 1, 1))
    refused(p, "block 1: parent_idx 1 is not an earlier block")


def test_a_sub_block_reads_values_passed_in_and_from_its_ancestors():
    p, b = program("y", "w")
    sub = ir.Block(p, 1, 0)
    p.blocks.append(sub)
    sub.create_var("i", [2], "float32")
    sub.create_var("o", [2], "float32")
    sub.append_op("add", {"x": ["i"], "y": ["x"]}, {"out": ["o"]})     # i: passed in; x: the parent's feed
    b.append_op("loop", {"x": ["x"]}, {"out": ["y"]}, {"sub_block": 1, "body_in": ["i"], "body_out": ["o"]})
    ir.verify(p, SCHEMA)
    sub.ops.insert(0, ir.Operator(sub, "relu", {"x": ["w"]}, {"out": ["o"]}, {}))   # w is never written
    refused(p, "block 1 op 0 (relu)", "input 'w' is read before any op writes it")


def test_a_static_program_verifies_against_the_registry():
    main = oar.static.Program()
    with oar.graph.builder.static_mode(), oar.static.program_guard(main):
        x = oar.static.data("x", [None, 3], "float32")
        oar.nn.functional.relu(x * 2.0).sum()
    assert verify(main) is main
    main.global_block().ops[-1].attrs["keepdim"] = "yes"
    with pytest.raises(ir.VerifyError,
                       match=r"op \d+ \(sum\) at test_verify.py:\d+: attribute 'keepdim' must be a bool"):
        verify(main)


def test_a_pass_returning_a_malformed_program_is_named(monkeypatch):
    from oar.passes import contract

    @contract.verified
    def breaks_it(program, keep=()):
        p = program.clone()
        p.global_block().ops.reverse()
        return p

    main = oar.static.Program()
    with oar.graph.builder.static_mode(), oar.static.program_guard(main):
        x = oar.static.data("x", [3], "float32")
        oar.exp(oar.nn.functional.relu(x))
    monkeypatch.setenv("OAR_VERIFY_PASSES", "1")
    with pytest.raises(ir.VerifyError, match="after pass breaks_it: block 0 op 0 \\(exp\\)"):
        breaks_it(main)
    monkeypatch.setenv("OAR_VERIFY_PASSES", "0")
    breaks_it(main)   # production: no check


def test_a_loaded_model_file_is_verified(tmp_path):
    from oar.graph import serialize
    main = oar.static.Program()
    with oar.graph.builder.static_mode(), oar.static.program_guard(main):
        x = oar.static.data("x", [3], "float32")
        oar.exp(oar.nn.functional.relu(x))
    d = json.loads(json.dumps(serialize.program_to_dict(main)))
    assert str(serialize.program_from_dict(d)) == str(main)
    d["blocks"][0]["ops"].reverse()   # valid field by field, but exp reads relu's output before relu runs
    with pytest.raises(ir.VerifyError, match=r"block 0 op 0 \(exp\) at test_verify.py:\d+: input 'relu.tmp_0'"):
        serialize.program_from_dict(d)
