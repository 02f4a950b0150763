"""Paddle's own docstring examples run on oar (issue 23: >= 95% of the CPU-runnable ones run, >= 99% of the values
they print match).

The full run needs an installed paddlepaddle wheel's source (never imported): set OAR_PADDLE_SITE to its
site-packages, e.g. ``OAR_PADDLE_SITE=/work/paddle_venv/lib/python3.11/site-packages``. It prints a table per
namespace and writes the failures to OAR_PADDLE_DOC_FAILURES (default: failures.json under pytest's tmp_path).
The tests of the harness itself (extraction, directives, output comparison) run always, on docstrings written here.
"""
import json
import os
import pathlib

import pytest

from paddle_doc_runner import Runner, failures, run_all, summary
from paddle_docstrings import Example, Part, Source, collect, examples_of, output_matches
from report import namespaces

SITE = os.environ.get("OAR_PADDLE_SITE")

# issue 23's targets: >= 95% of the CPU-runnable examples run, >= 99% of the checkable values match. Measured: the
# dynamic-graph namespaces 793/807 (98.3%), all namespaces 927/952 (97.4%), values 1267/1279 (99.1%); the floors
# sit just under.
MIN_RAN_DYNAMIC, MIN_RAN_ALL, MIN_MATCHED = 0.95, 0.97, 0.99
DYNAMIC = ("paddle", "paddle.Tensor", "paddle.nn", "paddle.optimizer", "paddle.vision", "paddle.linalg", "paddle.fft",
           "paddle.signal", "paddle.sparse", "paddle.distribution", "paddle.text", "paddle.audio")


def _doc(body):
    return "Adds.\n\nExamples:\n    .. code-block:: python\n\n" + "\n".join("        " + x for x in body.split("\n"))


def test_blocks_split_into_doctest_parts():
    parts, requires = examples_of(_doc(">>> import paddle\n>>> x = paddle.to_tensor([1.0])\n>>> print(x + 1)\n"
                                       "Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
                                       "       [2.])\n>>> for i in range(2):\n...     print(i)\n0\n1"))[0]
    assert requires == ""
    # as xdoctest reads them: consecutive prompt lines form one part, the output below belongs to it
    assert [p.source for p in parts] == ["import paddle\nx = paddle.to_tensor([1.0])\nprint(x + 1)\n",
                                         "for i in range(2):\n    print(i)\n"]
    assert parts[0].want.endswith("[2.])") and parts[1].want == "0\n1"


def test_directives_follow_xdoctest():
    parts, requires = examples_of(_doc(">>> # doctest: +REQUIRES(env:GPU)\n>>> import paddle"))[0]
    assert requires == "requires GPU" and len(parts) == 1
    parts, _ = examples_of(_doc(">>> a = 1\n>>> # doctest: +SKIP('random')\n>>> b = 2\n>>> # doctest: -SKIP\n"
                                ">>> c = 3\n>>> d = 4  # doctest: +SKIP"))[0]
    assert [p.skip for p in parts] == [False, True, False, True]
    (parts, _), = examples_of(_doc("import paddle\nx = 1"))  # an old-style block without prompts: one part
    assert parts == [Part("import paddle\nx = 1\n", "", False)]


def test_output_comparison_ignores_place_and_stop_gradient_and_rounds():
    want = "Tensor(shape=[2], dtype=float32, place=Place(gpu:0), stop_gradient=True,\n       [0.33333334, 2.])"
    assert output_matches(want, "Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,\n"
                                "[0.33333331, 2.00000000])")
    assert not output_matches(want, "Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
                                    "[0.33, 2.])")
    assert not output_matches(want, want.replace("float32", "float64"))
    assert output_matches("[1, ..., 9]", "[1, 2, 3, 9]") and not output_matches("[1, ..., 9]", "[1, 2, 8]")
    assert output_matches("nan", "nan") and not output_matches("1.0", "nan")
    # whitespace between two numbers separates them: one value per line is not one long number
    assert output_matches("56\n12\n68\n...\n87", "56\n12\n68\n0\n87\n") and not output_matches("1\n2", "12")
    assert output_matches("[0. 2.]", "[0.  2.]") and not output_matches("[0. 2.]", "[0.2.]")


def test_source_resolves_reexports_and_c_docs(tmp_path):
    pkg = tmp_path / "paddle"
    (pkg / "nn").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .nn.ops import relu as relu\nfrom ._C_ops import exp\n")
    (pkg / "nn" / "__init__.py").write_text("from . import ops\nfrom .ops import relu\n")
    (pkg / "nn" / "ops.py").write_text('import typing\n@typing.overload\ndef relu(x): ...\n'
                                       'def relu(x):\n    """' + _doc(">>> print(1)\n1") + '"""\n')
    (pkg / "_paddle_docs.py").write_text('add_doc_and_signature("exp", """' + _doc(">>> print(2)\n2") +
                                         '""", "def exp(x)")\n')
    src = Source(tmp_path)
    assert "print(1)" in src.docstring("paddle", "relu")  # the last def, not the @overload stub
    assert "print(2)" in src.docstring("paddle", "exp")
    assert src.docstring("paddle.nn", "ops") is None  # a submodule has no example of its own
    exs = collect(tmp_path, {"paddle": ["relu", "exp"], "paddle.nn": ["relu"]})
    assert [e.name for e in exs] == ["paddle.exp", "paddle.relu"]  # nn.relu is the same docstring: counted once


def test_runner_maps_paddle_to_oar_and_reports_the_first_error():
    ok = Example("paddle", "paddle.x", 0, (Part("import paddle\n", "", False),
                                           Part("import paddle.nn.functional as F\n", "", False),
                                           Part("print(F.relu(paddle.to_tensor([-1.0, 2.0])).numpy())\n",
                                                "[0. 2.]", False)), "", 60.0)
    bad = Example("paddle", "paddle.y", 0, (Part("import paddle\n", "", False),
                                            Part("paddle.no_such_name_anywhere()\n", "", False)), "", 60.0)
    slow = Example("paddle", "paddle.z", 0, (Part("while True: pass\n", "", False),), "", 1.0)
    writes = Example("paddle", "paddle.w", 0, (Part("open('oar-doc-probe.txt', 'w').write('x')\n", "", False),),
                     "", 60.0)
    results = run_all([ok, bad, slow, writes])
    assert not (pathlib.Path(__file__).parents[2] / "oar-doc-probe.txt").exists()  # examples run in a temp dir
    results = results[:3]
    assert [(r.status, r.checks, r.matched) for r in results] == [("ran", 1, 1), ("failed", 0, 0),
                                                                   ("timeout", 0, 0)]
    assert "no_such_name_anywhere" in results[1].error
    assert [f["name"] for f in failures(results)] == ["paddle.y", "paddle.z"]
    Runner().close()


@pytest.mark.skipif(not SITE, reason="set OAR_PADDLE_SITE to a site-packages holding paddlepaddle")
def test_paddle_docstring_examples(tmp_path, capsys):
    examples = collect(SITE, {ns: names for ns, (_, names) in namespaces().items()})
    results = run_all(examples)
    table, total = summary(results)
    out = pathlib.Path(os.environ.get("OAR_PADDLE_DOC_FAILURES", tmp_path / "failures.json"))
    out.write_text(json.dumps(failures(results), indent=1))
    with capsys.disabled():
        print("\n" + table + f"\nfailures: {out}")
    dynamic = [r for r in results if r.example.namespace == "paddle" or
               r.example.namespace.startswith(tuple(d for d in DYNAMIC if d != "paddle"))]
    _, dyn = summary(dynamic)
    assert dyn["ran"] >= MIN_RAN_DYNAMIC * dyn["runnable"], f"dynamic-graph namespaces: {dyn['ran']}/{dyn['runnable']}"
    assert total["ran"] >= MIN_RAN_ALL * total["runnable"], table
    assert total["matched"] >= MIN_MATCHED * total["checks"], table


def test_inline_directives_on_continuation_lines_keep_the_statement_whole():
    parts, _ = examples_of(_doc(">>> x = max(1,\n...         2)  # doctest: +NORMALIZE_WHITESPACE\n>>> print(x)\n2"))[0]
    assert [p.source for p in parts] == ["x = max(1,\n        2)  # doctest: +NORMALIZE_WHITESPACE\nprint(x)\n"]


def test_skip_on_a_continuation_line_skips_its_statement():
    parts, _ = examples_of(_doc(">>> a = 1\n>>> for i in range(2):\n...     print(i)  # doctest: +SKIP('order')\n0\n1\n"
                                ">>> b = 2"))[0]
    assert [(p.source, p.skip) for p in parts] == [("a = 1\n", False),
                                                   ("for i in range(2):\n    print(i)  # doctest: +SKIP('order')\n",
                                                    True), ("b = 2\n", False)]


def test_each_example_starts_with_empty_default_programs():
    build = Example("paddle.static", "paddle.static.a", 0, (Part(
        "import paddle\npaddle.enable_static()\nx = paddle.static.data('x', [2], 'float32')\n"
        "w = paddle.static.create_parameter([2], 'float32', name='w_once')\n", "", False),), "", 60.0)
    check = Example("paddle.static", "paddle.static.b", 0, (Part(
        "import paddle\npaddle.enable_static()\nw = paddle.static.create_parameter([2], 'float32', name='w_once')\n"
        "print(len(paddle.static.default_main_program().global_block().vars))\n"
        "print(paddle.static.global_scope().find_var('w_once') is None)\n", "1\nTrue", False),), "", 60.0)
    results = run_all([build, build, check])
    assert [(r.status, r.matched) for r in results] == [("ran", 0), ("ran", 0), ("ran", 1)], results
