"""oar/ir is plain data: it imports the standard library, itself and oar.core.dtype only."""
import ast
import os
import sys

import oar.ir

IR_DIR = os.path.dirname(oar.ir.__file__)


def test_the_ir_package_imports_only_dtypes():
    bad = []
    for fn in sorted(os.listdir(IR_DIR)):
        if not fn.endswith(".py"):
            continue
        tree = ast.parse(open(os.path.join(IR_DIR, fn)).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level == 1 or (node.level == 2 and mod == "core"
                                       and [a.name for a in node.names] == ["dtype"]):
                    continue
                if node.level == 2 and mod == "core.dtype":
                    continue
                if node.level == 0 and mod.split(".")[0] in sys.stdlib_module_names:
                    continue
                bad.append(f"{fn}: from {'.' * node.level}{mod} import ...")
            elif isinstance(node, ast.Import):
                bad += [f"{fn}: import {a.name}" for a in node.names
                        if a.name.split(".")[0] not in sys.stdlib_module_names]
    assert bad == []
