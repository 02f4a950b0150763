"""The text form of Programs (grammar in docs/ir.md)."""
import re

import pytest

import oar


def test_print_program_text(prog):
    main, startup = prog
    x = oar.static.data("x", [None, 4])
    w = oar.static.create_parameter([4, 2], "float32", name="fc.w")
    y = oar.matmul(x, w)
    p = oar.static.nn.cond(y.sum() > 0, lambda: y * 2, lambda: y)
    text = str(main)
    lines = text.splitlines()
    assert lines[0] == "{ // block 0"
    assert "  var x : float32[-1, 4]  (feed)" in lines
    assert "  persist param fc.w : float32[4, 2]" in lines
    mm = [l for l in lines if "= matmul(" in l][0]
    assert mm.startswith(f"  {y.name} = matmul(x=x, y=fc.w) {{transpose_x=false, transpose_y=false}}   # "
                         "test_printer.py:")
    assert "    { // block 1, parent 0" in lines
    assert f"[{p.name}] = cond(" in text
    assert text == str(main)  # deterministic


def test_tensor_array_type(prog):
    arr = oar.tensor.create_array("float32")
    assert f"var {arr.name} : array<float32>" in str(prog[0])


def _nested_program():
    """A while loop whose body holds a cond, and a multi-output op; returns (program, first line number)."""
    import sys
    from oar.graph.builder import static_mode
    main, startup = oar.static.Program(), oar.static.Program()
    with static_mode():
        with oar.static.program_guard(main, startup):
            line = sys._getframe().f_lineno
            x = oar.static.data("x", [None, 2])
            w = oar.static.create_parameter([2, 2], "float32", name="w")
            i0 = oar.zeros([1], "int64")

            def body(i, h):
                h = oar.static.nn.cond(h.sum() > 0, lambda: oar.matmul(h, w), lambda: h * -1.5)
                return [i + 1, h]
            i, h = oar.static.nn.while_loop(lambda i, h: i < 2, body, [i0, x])
            oar.topk(h, 1)
    return main, line


EXPECTED = """\
{{ // block 0
  var x : float32[-1, 2]  (feed)
  persist param w : float32[2, 2]
  var full.tmp_0 : int64[1]
  var while.out_0 : int64[1]
  var while.out_1 : float32[-1, 2]
  var topk.tmp_0 : float32[-1, 1]
  var topk.tmp_1 : int64[-1, 1]
  full.tmp_0 = full() {{shape=[1], value=0, dtype="int64"}}   # test_printer.py:{L3}
  [while.out_0, while.out_1] = while(x=[full.tmp_0, x], input=w) {{cond_block=1, body_block=2, \
cond_in=["while.cond_in_2", "while.cond_in_3"], cond_out="less_than.tmp_1", body_in=["while.x_2", "while.x_3"], \
body_out=["add.tmp_1", "cond.out_1"], carried=[], is_test=false}}   # test_printer.py:{L8}
    {{ // block 1, parent 0
      var while.cond_in_2 : int64[1]
      var while.cond_in_3 : float32[-1, 2]
      var full.tmp_5 : int64[]
      var less_than.tmp_1 : bool[1]
      full.tmp_5 = full() {{shape=[], value=2, dtype="int64"}}   # test_printer.py:{L8}
      less_than.tmp_1 = less_than(x=while.cond_in_2, y=full.tmp_5)   # test_printer.py:{L8}
    }}
    {{ // block 2, parent 0
      var while.x_2 : int64[1]
      var while.x_3 : float32[-1, 2]
      var sum.tmp_1 : float32[]
      var full.tmp_6 : float32[]
      var greater_than.tmp_1 : bool[]
      var cond.out_1 : float32[-1, 2]
      var full.tmp_8 : int64[]
      var add.tmp_1 : int64[1]
      sum.tmp_1 = sum(x=while.x_3) {{axis=null, keepdim=false, dtype=null}}   # test_printer.py:{L6}
      full.tmp_6 = full() {{shape=[], value=0.0, dtype="float32"}}   # test_printer.py:{L6}
      greater_than.tmp_1 = greater_than(x=sum.tmp_1, y=full.tmp_6)   # test_printer.py:{L6}
      [cond.out_1] = cond(cond=greater_than.tmp_1, input=[while.x_3, w]) {{true_block=3, false_block=4, \
true_outs=["matmul.tmp_1"], false_outs=["multiply.tmp_1"]}}   # test_printer.py:{L6}
        {{ // block 3, parent 2
          var matmul.tmp_1 : float32[-1, 2]
          matmul.tmp_1 = matmul(x=while.x_3, y=w) {{transpose_x=false, transpose_y=false}}   # test_printer.py:{L6}
        }}
        {{ // block 4, parent 2
          var full.tmp_7 : float32[]
          var multiply.tmp_1 : float32[-1, 2]
          full.tmp_7 = full() {{shape=[], value=-1.5, dtype="float32"}}   # test_printer.py:{L6}
          multiply.tmp_1 = multiply(x=while.x_3, y=full.tmp_7)   # test_printer.py:{L6}
        }}
      full.tmp_8 = full() {{shape=[], value=1, dtype="int64"}}   # test_printer.py:{L7}
      add.tmp_1 = add(x=while.x_2, y=full.tmp_8)   # test_printer.py:{L7}
    }}
  (out=topk.tmp_0, indices=topk.tmp_1) = topk(x=while.out_1) {{k=1, axis=1, largest=true, sorted=true}}   \
# test_printer.py:{L9}
}}"""


def test_print_nested_control_flow_exactly():
    main, line = _nested_program()
    want = EXPECTED.format(**{f"L{k}": line + k for k in range(10)})
    assert str(main) == want


# docs/ir.md's grammar as regular expressions: every printed line must be one of these productions
_NAME = r"[^\s,=()\[\]{}]+"
_NAMES = rf"(?:{_NAME}|\[(?:{_NAME}(?:, {_NAME})*)?\])"
_VALUE = (r"(?:null|true|false|-?\d+|-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+|nan|inf|-inf"
          r"|\"(?:[^\"\\]|\\.)*\"|\[.*\]|\{.*\})")
_GRAMMAR = {
    "block": re.compile(r"\{ // block \d+(?:, parent \d+)?"),
    "end": re.compile(r"\}"),
    "vardecl": re.compile(rf"(?:persist )?(?:var|param) {_NAME} : (?:\w+\[(?:-?\d+(?:, -?\d+)*)?\]|array<\w+>)"
                          r"(?:  \(feed\))?(?:  \(frozen\))?"),
    "op": re.compile(rf"(?:(?:{_NAMES}|\(\w+={_NAMES}(?:, \w+={_NAMES})*\)) = )?\w+\((?:\w+={_NAMES}"
                     rf"(?:, \w+={_NAMES})*)?\)(?: \{{\w+={_VALUE}(?:, \w+={_VALUE})*\}})?(?:   # [^:]+:\d+)?"),
}


def _check_grammar(text):
    depth = 0
    for line in text.splitlines():
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        assert indent % 2 == 0, line
        kinds = [k for k, rx in _GRAMMAR.items() if rx.fullmatch(body)]
        assert kinds, f"line does not follow docs/ir.md's grammar: {line!r}"
        if kinds[0] == "block":
            depth += 1
        elif kinds[0] == "end":
            depth -= 1
    assert depth == 0


def test_printed_programs_follow_the_documented_grammar(prog):
    main, _ = prog
    _check_grammar(str(_nested_program()[0]))
    x = oar.static.data("x", [None, 4])
    x.stop_gradient = False
    lin = oar.nn.Linear(4, 3)
    lin.weight.trainable = False
    h = oar.nn.functional.dropout(lin(x), 0.5)
    arr = oar.tensor.create_array("float32")
    oar.tensor.array_write(h, oar.zeros([1], "int64"), arr)
    y = oar.static.nn.cond(h.mean() > 0, lambda: {"a": h, "b": [h * 2]}, lambda: {"a": h + 1, "b": [h]})
    loss = oar.concat([y["a"], y["b"][0]], axis=1).mean()
    oar.static.gradients([loss], [x])
    _check_grammar(str(main))
    bad = str(main) + "\n  x = ??"
    with pytest.raises(AssertionError, match="grammar"):
        _check_grammar(bad)
