import pytest

import oar


@pytest.fixture
def prog():
    """(main, startup) with static mode on inside the test, off afterwards."""
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    with oar.static.program_guard(main, startup):
        yield main, startup
    oar.disable_static()
