"""Program <-> dict round trip (lossless through JSON) and the validator's rejections."""
import copy
import json

import numpy as np
import pytest

import oar
from oar.static import Program, program_guard, data
from oar.graph.builder import static_mode
from oar.graph.serialize import FORMAT_VERSION, program_from_dict, program_to_dict, validate


def build():
    main = Program()
    with static_mode(), program_guard(main):
        x = data("x", [None, 3])
        w = data("w", [3, 4], "float64")
        y = oar.exp(x * 2 + 1).sum(axis=1, keepdim=True)  # noqa: F841  (an op the program keeps)
        z = oar.matmul(x.astype("float64"), w)
        oar.reshape(z, [-1, 2, 2])
    return main


def through_json(d):
    return json.loads(json.dumps(d))


def test_round_trip_is_lossless():
    main = build()
    d = program_to_dict(main)
    assert d["version"] == FORMAT_VERSION
    p = program_from_dict(through_json(d))
    assert program_to_dict(p) == d
    assert [op.type for op in p.global_block().ops] == [op.type for op in main.global_block().ops]
    for a, b in zip(p.global_block().ops, main.global_block().ops):
        assert a.loc == b.loc and a.loc is not None and a.loc[0].endswith("test_program_dict.py")
        assert a.inputs == b.inputs and a.outputs == b.outputs
    assert {v.name: (v.shape, v.dtype, v.persistable, v.is_data) for v in p.list_vars()} == \
           {v.name: (v.shape, v.dtype, v.persistable, v.is_data) for v in main.list_vars()}
    try:
        assert str(p) == str(main)
    except ImportError:  # printer not written yet
        pass


def test_names_continue_after_round_trip():
    main = build()
    p = program_from_dict(through_json(program_to_dict(main)))
    assert p.unique_name("add.tmp") == main.unique_name("add.tmp")


def test_clone_is_independent():
    main = build()
    c = main.clone()
    c.global_block().ops[0].attrs["marker"] = 1
    assert "marker" not in main.global_block().ops[0].attrs
    assert len(c.global_block().ops) == len(main.global_block().ops)


def cond_program():
    main = Program()
    with static_mode(), program_guard(main):
        x = data("x", [None, 3])
        out = oar.static.nn.cond(x.sum() > 0, lambda: x * 2, lambda: oar.exp(x))
    return main, out


def test_subblocks_and_attrs_kept():
    main, out = cond_program()
    main.global_block().vars["x"].attrs["extra"] = {"k": [1, 2.5, None, True, "s"]}
    d = through_json(program_to_dict(main))
    p = program_from_dict(d)
    assert p.num_blocks == 3 and p.block(1).parent_idx == 0 and p.block(2).parent_idx == 0
    (c,) = [op for op in p.global_block().ops if op.type == "cond"]
    (c0,) = [op for op in main.global_block().ops if op.type == "cond"]
    assert c.attrs == c0.attrs and any(k.endswith("block") for k in c.attrs)
    assert [op.type for op in p.block(2).ops] == [op.type for op in main.block(2).ops] == ["exp"]
    assert p.global_block().vars["x"].attrs["extra"] == {"k": [1, 2.5, None, True, "s"]}
    a = np.array([[1.0, -2.0, 3.0]], np.float32)
    from oar.graph.executor import compile_program
    for arr in (a, -a):
        got = compile_program(p, ["x"], [out.name]).run({"x": arr})[0]
        np.testing.assert_allclose(got, arr * 2 if arr.sum() > 0 else np.exp(arr), rtol=1e-6)


def test_out_of_range_sub_block_rejected():
    d = through_json(program_to_dict(cond_program()[0]))
    (c,) = [op for op in ops(d) if op["type"] == "cond"]
    key = [k for k in c["attrs"] if k.endswith("block")][0]
    c["attrs"][key] = 7
    with pytest.raises(ValueError, match="sub-block reference"):
        program_from_dict(d)


def test_unknown_attribute_and_huge_shape_attribute_rejected():
    main = Program()
    with static_mode(), program_guard(main):
        oar.full([2, 3], 1.0) + data("x", [2, 3])
    d = through_json(program_to_dict(main))
    full = [op for op in d["blocks"][0]["ops"] if op["type"] == "full"][0]
    full["attrs"]["shape"] = [2 ** 20, 2 ** 20]
    with pytest.raises(ValueError, match="attr 'shape'.*more than"):
        program_from_dict(d)
    full["attrs"]["shape"] = [2, 3]
    full["attrs"]["evil"] = 1
    with pytest.raises(ValueError, match="attribute 'evil' is not one of the op's"):
        program_from_dict(d)


def test_process_local_ops_rejected():
    d = through_json(program_to_dict(build()))
    ops(d)[0]["type"] = "run_program"
    ops(d)[0]["attrs"] = {"runner": 0, "save": False}
    with pytest.raises(ValueError, match="'run_program' refers to objects of the process"):
        program_from_dict(d)


def test_numpy_and_dtype_attrs_become_json():
    main = build()
    op = main.global_block().ops[0]
    assert op.type == "full"
    op.attrs.update(value=np.float32(1.5), shape=(np.int64(2), 3), dtype=oar.float16)
    attrs = program_to_dict(main)["blocks"][0]["ops"][0]["attrs"]
    assert attrs["value"] == 1.5 and attrs["shape"] == [2, 3] and attrs["dtype"] == "float16"
    assert type(attrs["value"]) is float and type(attrs["shape"][0]) is int
    json.dumps(attrs)


def test_non_json_attr_rejected_with_check():
    main = build()
    main.global_block().ops[0].attrs["value"] = lambda: 0
    with pytest.raises(TypeError, match="not a JSON value"):
        program_to_dict(main)
    main.clone()  # clone does not need JSON values


def mutate(fn, match):
    d = through_json(program_to_dict(build()))
    fn(d)
    with pytest.raises(ValueError, match=match):
        program_from_dict(d)


def ops(d):
    return d["blocks"][0]["ops"]


def vars_(d):
    return d["blocks"][0]["vars"]


@pytest.mark.parametrize("fn,match", [
    (lambda d: ops(d)[0].__setitem__("type", "rm_rf"), "unknown op type 'rm_rf'"),
    (lambda d: ops(d)[1]["inputs"].__setitem__("x", ["ghost"]), "ghost.*dangling"),
    (lambda d: ops(d)[1]["outputs"].__setitem__("out", ["ghost"]), "ghost.*dangling"),
    (lambda d: ops(d)[1].__setitem__("attrs", [1]), "attrs must be an object"),
    (lambda d: ops(d)[1]["inputs"].__setitem__("bogus", ["x"]), "slot 'bogus'"),
    (lambda d: ops(d)[1]["inputs"].__setitem__("x", "x"), "list of variable names"),
    (lambda d: vars_(d)[0].__setitem__("shape", [10 ** 9, 10 ** 9]), "more than"),
    (lambda d: vars_(d)[0].__setitem__("shape", [-5]), "ints >= -1"),
    (lambda d: vars_(d)[0].__setitem__("shape", "3"), "shape must be a list"),
    (lambda d: vars_(d)[0].__setitem__("shape", [1] * 100), "rank"),
    (lambda d: vars_(d)[0].__setitem__("dtype", "float99"), "unknown dtype"),
    (lambda d: vars_(d)[0].__setitem__("persistable", "yes"), "persistable must be a bool"),
    (lambda d: vars_(d).append(copy.deepcopy(vars_(d)[0])), "declared twice"),
    (lambda d: d.__setitem__("version", 99), "version 99 is not supported"),
    (lambda d: d.__setitem__("version", "1"), "version"),
    (lambda d: d.__setitem__("format", "zip"), "format"),
    (lambda d: d.__setitem__("blocks", []), "non-empty"),
    (lambda d: d["blocks"][0].__setitem__("parent_idx", 0), "parent_idx"),
    (lambda d: ops(d)[0].__setitem__("loc", "here"), "loc"),
    (lambda d: d["blocks"].append({"idx": 1, "parent_idx": 5, "vars": [], "ops": []}), "earlier block"),
    (lambda d: next(o for o in ops(d) if o["type"] == "reshape")["attrs"].__setitem__("shape", "abc"),
     "'shape' must be a list of ints"),
    (lambda d: next(o for o in ops(d) if o["type"] == "sum")["attrs"].__setitem__("keepdim", "yes"),
     "'keepdim' must be a bool"),
    (lambda d: next(o for o in ops(d) if o["type"] == "cast")["attrs"].__setitem__("dtype", "float99"),
     "'dtype' must be null or a dtype name"),
    (lambda d: ops(d)[0].__setitem__("role", "sudo"), "role must be one of"),
])
def test_validator_rejects(fn, match):
    mutate(fn, match)


def test_validate_top_level_type():
    with pytest.raises(ValueError, match="expected an object"):
        validate([1, 2])


def _cond_while_program():
    main = Program()
    with static_mode(), program_guard(main):
        x = data("x", [3])
        i = oar.zeros([1], "int64")
        n = data("n", [1], "int64")
        i, x = oar.static.nn.while_loop(lambda i, x: i < n, lambda i, x: [i + 1, x * 2], [i, x])
    return main


@pytest.mark.parametrize("value,match", [(5, "'cond_out' must be a string"), ("nowhere", "no block declares")])
def test_control_flow_name_attributes_checked(value, match):
    d = through_json(program_to_dict(_cond_while_program()))
    w = next(o for o in ops(d) if o["type"] == "while")
    w["attrs"]["cond_out"] = value
    with pytest.raises(ValueError, match=match):
        program_from_dict(d)


def test_op_roles_survive_the_round_trip_so_a_loaded_program_clones_for_test():
    main, startup = Program(), Program()
    with static_mode(), program_guard(main, startup):
        x = data("x", [None, 4])
        loss = oar.nn.Linear(4, 1)(x).mean()
        oar.optimizer.SGD(learning_rate=0.1).minimize(loss)
    roles = [op.role for op in main.global_block().ops]
    assert "backward" in roles and "optimize" in roles
    loaded = program_from_dict(through_json(program_to_dict(main)))
    assert [op.role for op in loaded.global_block().ops] == roles
    test_prog = loaded.clone(for_test=True)
    assert {op.role for op in test_prog.global_block().ops} == {None}
