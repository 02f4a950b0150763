"""`import oar` exposes the public API only: no op definitions, imported modules or internal helpers."""
import types

import oar


def test_no_internals_in_the_top_level_namespace():
    leaked = [n for n in dir(oar) if not n.startswith("_") and (
        n.isupper() or n in {"np", "D", "apply", "defop", "binary", "operand", "unbroadcast", "getitem", "setitem",
                             "encode_index", "decode_index", "tensor_getitem", "norm_axis", "public_api"})]
    assert leaked == []


def test_public_ops_are_functions_of_the_package():
    for name in ("add", "matmul", "sum", "mean", "reshape", "gather", "sort", "rand", "where", "full", "einsum"):
        fn = getattr(oar, name)
        assert callable(fn) and not isinstance(fn, types.ModuleType)
