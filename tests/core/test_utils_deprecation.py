"""paddle.utils.deprecated / require_version and paddle.device.is_compiled_with_distribute."""
import importlib.util
import warnings

import pytest

import oar
from oar.utils.deprecation import VisibleDeprecationWarning


def _f(x):
    """Adds one."""
    return x + 1


def test_deprecated_levels():
    quiet = oar.utils.deprecated(since="0.0.1")(_copy(_f))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert quiet(1) == 2  # level 0: no warning, only the docstring says so
    assert quiet.__doc__.strip().startswith("Warning:") and "since 0.0.1" in quiet.__doc__
    loud = oar.utils.deprecated(update_to="paddle.add", reason="old", level=1)(_copy(_f))
    with pytest.warns(VisibleDeprecationWarning, match='Please use "paddle.add" instead'):
        assert loud(1) == 2
    future = oar.utils.deprecated(since="999.0", level=1)(_copy(_f))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert future(1) == 2  # deprecated only from a later version than the installed one
    with pytest.raises(RuntimeError, match="has been deprecated"):
        oar.utils.deprecated(level=2)(_copy(_f))(1)
    with pytest.raises(ValueError, match='start with "paddle."'):
        oar.utils.deprecated(update_to="torch.add")
    with pytest.raises(ValueError, match="level"):
        oar.utils.deprecated(level=3)


def _copy(fn):
    def g(x):
        return fn(x)
    g.__doc__, g.__name__ = fn.__doc__, fn.__name__
    return g


def test_require_version():
    major = int(oar.__version__.split(".")[0])
    oar.utils.require_version("0.0.1")
    oar.utils.require_version(oar.__version__, oar.__version__)
    with pytest.raises(Exception, match="or higher is required"):
        oar.utils.require_version(f"{major + 1}.0")
    with pytest.raises(Exception, match="is required"):
        oar.utils.require_version("0.0.1", "0.0.2")
    with pytest.raises(TypeError, match="must be str"):
        oar.utils.require_version(2)
    with pytest.raises(ValueError, match="format"):
        oar.utils.require_version("2.x")


def test_is_compiled_with_distribute_follows_mpi4py(monkeypatch):
    assert oar.device.is_compiled_with_distribute() == (importlib.util.find_spec("mpi4py") is not None)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert oar.device.is_compiled_with_distribute() is False
