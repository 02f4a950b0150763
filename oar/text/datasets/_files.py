"""Where a text dataset's file is (the shared rule in `oar.dataset.download`), and the mode check."""
from ...dataset.download import resolve_data_file as resolve  # noqa: F401


def check_mode(who, mode, modes=("train", "test")):
    mode = mode.lower()
    if mode not in modes:
        raise ValueError(f"{who}: mode must be one of {modes}, got {mode!r}")
    return mode
