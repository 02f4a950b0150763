"""Runs the docstring examples of the public API as doctests, so a wrong example fails CI.

Public objects are collected from the user-facing namespaces; each object's *defining* module is doctested
(``doctest.testmod`` only looks at objects defined in the module it is given, so testing ``oar`` itself would
find nothing of ``oar.ops.math``)."""
import doctest
import importlib
import inspect

import numpy as np
import pytest

import oar

NAMESPACES = ["oar", "oar.nn", "oar.nn.functional", "oar.optimizer", "oar.optimizer.lr", "oar.io", "oar.static",
              "oar.static.nn", "oar.jit", "oar.amp", "oar.vision.transforms", "oar.inference", "oar.onnx",
              "oar.dataset", "oar.dataset.mnist", "oar.metric", "oar.quantization", "oar.callbacks", "oar.hapi",
              "oar.device", "oar.text", "oar.slim", "oar.quantization.quanters",
              "oar.vision.datasets",
              "oar.fluid", "oar.fluid.dygraph", "oar.fluid.layers",
              "oar.lite", "oar.serving", "oar.graph.dot", "oar.distributed",
              "oar.distribution", "oar.vision.ops", "oar.autograd",
              "oar.linalg", "oar.fft", "oar.signal", "oar.sparse", "oar.sparse.nn", "oar.sparse.nn.functional",
              "oar.ir", "oar.version", "oar.jit.inference_model", "oar.io.static_checkpoint", "oar.static.amp",
              "oar.base", "oar.base.data_feeder",
              "oar.framework", "oar.incubate", "oar.incubate.nn", "oar.incubate.nn.functional", "oar.utils.download",
              "oar.vision", "oar.utils", "oar.nn.utils", "oar.geometric",
              "oar.ops.tensor_methods"]  # Tensor-only methods (x.new_zeros, x.type_as): no top-level name
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _public(ns):
    mod = importlib.import_module(ns)
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
    return [getattr(mod, n) for n in names if hasattr(mod, n)]


def _defining_modules():
    mods = set(NAMESPACES)
    for ns in NAMESPACES:
        for obj in _public(ns):
            m = getattr(obj, "__module__", None) if callable(obj) and not inspect.ismodule(obj) else None
            if m and m.startswith("oar."):
                mods.add(m)
    return sorted(mods)


@pytest.fixture(autouse=True)
def _clean_state():
    """Examples start in dynamic mode with a fixed seed, the default dtype and grad enabled."""
    from oar.core.state import STATE
    static = STATE.static
    oar.disable_static()
    oar.set_default_dtype("float32")
    oar.seed(0)
    with oar.set_grad_enabled(True):
        yield
    oar.jit.set_verbosity(0)  # an example that turns the translator's logging on must not leak it
    oar.jit.set_code_level(0)
    oar.jit.enable_to_static(True)
    oar.disable_static()
    if static:
        oar.enable_static()


@pytest.mark.parametrize("modname", _defining_modules())
def test_docstring_examples(modname, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that save files write into a scratch folder
    mod = importlib.import_module(modname)
    res = doctest.testmod(mod, globs={"oar": oar, "np": np, "paddle": oar}, optionflags=FLAGS, verbose=False,
                          report=True)
    assert res.failed == 0, f"{res.failed} of {res.attempted} docstring examples failed in {modname} (see stdout)"


def test_every_public_callable_has_an_example():
    """STYLE.md rule 8: every public function and class of the user-facing namespaces shows a short example."""
    missing = set()
    for ns in NAMESPACES:
        for obj in _public(ns):
            if inspect.ismodule(obj) or not callable(obj) or not getattr(obj, "__module__", "").startswith("oar"):
                continue
            if ">>>" not in (obj.__doc__ or ""):
                missing.add(f"{obj.__module__}.{getattr(obj, '__qualname__', obj)}")
    assert not missing, f"public API without a docstring example: {sorted(missing)}"
