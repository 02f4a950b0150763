"""The text form of Programs (grammar in docs/ir.md)."""
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
