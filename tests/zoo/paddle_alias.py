"""``import paddle`` resolved to oar while a ``paddle_alias()`` block runs: the zoo's model files are Paddle programs
run unchanged. ``paddle`` and every ``paddle.X.Y`` name the import system asks for are answered with the oar module
of the same path (the same object: ``paddle.nn is oar.nn``); on exit the names are removed and whatever was there
before (a real paddle, if one was imported) is put back."""
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import sys


class _Loader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        module.__spec__ = self.spec  # the import system set the alias's spec on the shared module: restore oar's


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "paddle" and not fullname.startswith("paddle."):
            return None
        module = importlib.import_module("oar" + fullname[len("paddle"):])
        return importlib.machinery.ModuleSpec(fullname, _Loader(module), is_package=hasattr(module, "__path__"))


@contextlib.contextmanager
def paddle_alias():
    saved = {k: v for k, v in sys.modules.items() if k == "paddle" or k.startswith("paddle.")}
    for k in saved:
        del sys.modules[k]
    finder = _Finder()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for k in [k for k in sys.modules if k == "paddle" or k.startswith("paddle.")]:
            del sys.modules[k]
        sys.modules.update(saved)
