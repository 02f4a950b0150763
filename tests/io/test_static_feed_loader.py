"""DataLoader(feed_list=..., return_list=False) in static mode: batches as feed dicts, as Paddle's."""
import numpy as np
import pytest

import oar


class _Pairs(oar.io.Dataset):
    def __getitem__(self, i):
        return np.full([3], i, "float32"), np.array([i], "int64")

    def __len__(self):
        return 4


@pytest.mark.parametrize("num_workers", [0, 2])
def test_a_static_loader_with_a_feed_list_yields_feed_dicts(num_workers):
    # Paddle's static DataLoader(feed_list=..., return_list=False): [{name: field}] per batch, fed to Executor.run
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            image = oar.static.data("image", [None, 3], "float32")
            label = oar.static.data("label", [None, 1], "int64")
            out = oar.sum(image) + oar.sum(label.astype("float32"))
        loader = oar.io.DataLoader(_Pairs(), feed_list=[image, label], batch_size=2, return_list=False,
                                   num_workers=num_workers)
        batches = list(loader())
        assert [list(b[0]) for b in batches] == [["image", "label"]] * 2
        exe = oar.static.Executor()
        assert [exe.run(main, feed=b, fetch_list=[out])[0].item() for b in batches] == [4.0, 20.0]
        short = oar.io.DataLoader(_Pairs(), feed_list=[image], batch_size=2, return_list=False)
        with pytest.raises(ValueError, match="a batch has 2 fields but feed_list names 1 variables"):
            next(iter(short))
    finally:
        oar.disable_static()
