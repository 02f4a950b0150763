"""MPICH's mpiexec (hydra) writes its processor topology to ``/tmp/hydra_hwloc_xmlfile_XXXXXX`` (a fixed template,
not $TMPDIR) and does not remove it when a run ends with a failed rank, which several tests here provoke on
purpose. Each test removes the files of that name that appeared while it ran, so test runs leave nothing in /tmp."""
import glob
import os

import pytest

PATTERN = "/tmp/hydra_hwloc_xmlfile_*"


@pytest.fixture(autouse=True)
def _remove_hydra_topology_files():
    before = set(glob.glob(PATTERN))
    yield
    for path in set(glob.glob(PATTERN)) - before:
        try:
            if os.stat(path).st_uid == os.getuid():
                os.remove(path)
        except OSError:
            pass
