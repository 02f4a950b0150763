"""Test-wide setup: helpers shared by several test folders (e.g. `fake_concrete`) import from tests/."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# every pass verifies the Program it returns (oar.passes.contract); production runs leave this off
os.environ.setdefault("OAR_VERIFY_PASSES", "1")


def pytest_addoption(parser):
    parser.addoption("--fake-device", action="store_true",
                     help="run the chosen tests with oar.set_device('gpu') on the fake device "
                          "(also: OAR_TEST_DEVICE=fake)")


def _fake_device_selected(config):
    return config.getoption("--fake-device") or os.environ.get("OAR_TEST_DEVICE") == "fake"


def pytest_configure(config):
    if _fake_device_selected(config):
        os.environ["OAR_DEVICE_BACKEND"] = "fake"


@pytest.fixture(autouse=True)
def _on_fake_device(request):
    """With --fake-device every test runs with the fake GPU as the current device (tensors made on gpu:0)."""
    if not _fake_device_selected(request.config):
        yield
        return
    import oar
    oar.set_device("gpu")
    try:
        yield
    finally:
        oar.set_device("cpu")
