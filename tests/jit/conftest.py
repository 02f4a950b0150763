"""Fixtures shared by the jit tests."""
import pytest

import oar


@pytest.fixture
def float64():
    """float64 as the default dtype for one test (exact comparisons of traced, lazy and eager training)."""
    prev = oar.get_default_dtype()
    oar.set_default_dtype("float64")
    yield
    oar.set_default_dtype(prev)
