"""Memory held after models are dropped: the two measurements of issue 10 (leaks).

1. 100 x `oar.inference.create_predictor` of a saved 8 MB model (each predictor run once, then dropped);
2. 50 dropped `Linear(1024, 1024)` layers (4 MB of weights each) whose forward is `@to_static`, each called
   forward + backward once.

Prints the process RSS (from /proc/self/statm) before and after each loop, after `gc.collect()`. With nothing
leaking, the growth is a few MB (allocator slack, code caches), independent of the number of models.

    .venv/bin/python bench/leaks.py [--predictors N] [--layers N]
"""
import argparse
import gc
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import oar  # noqa: E402
from oar import inference, nn  # noqa: E402
from oar.static import InputSpec  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb():
    gc.collect()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2 ** 20


class Net(nn.Layer):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)

    @oar.jit.to_static
    def forward(self, x):
        return oar.nn.functional.relu(self.fc(x))


def predictors(n, folder):
    path = os.path.join(folder, "m")
    net = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024))  # 2 x 4 MB float32
    net.eval()
    oar.jit.save(net, path, input_spec=[InputSpec([None, 1024], "float32", "x")])
    del net
    x = np.ones([2, 1024], np.float32)
    start = rss_mb()
    for _ in range(n):
        p = inference.create_predictor(inference.Config(path + ".pdmodel", path + ".pdiparams"))
        h = p.get_input_handle(p.get_input_names()[0])
        h.copy_from_cpu(x)
        p.run()
        del p, h
    return start, rss_mb()


def layers(n):
    x = oar.ones([2, 1024])
    start = rss_mb()
    for _ in range(n):
        net = Net(1024)
        net(x).sum().backward()
        del net
    return start, rss_mb()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--predictors", type=int, default=100)
    ap.add_argument("--layers", type=int, default=50)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        s, e = predictors(a.predictors, d)
    print(f"{a.predictors} predictors of an 8 MB model: RSS {s:.0f} -> {e:.0f} MB (+{e - s:.0f} MB)")
    s, e = layers(a.layers)
    print(f"{a.layers} dropped to_static Linear(1024, 1024) layers: RSS {s:.0f} -> {e:.0f} MB (+{e - s:.0f} MB)")


if __name__ == "__main__":
    main()
