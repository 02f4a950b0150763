"""Test-wide setup: helpers shared by several test folders (e.g. `fake_concrete`) import from tests/."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# every pass verifies the Program it returns (oar.passes.contract); production runs leave this off
os.environ.setdefault("OAR_VERIFY_PASSES", "1")
