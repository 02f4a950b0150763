"""Paddle's public names in oar, counted only when real (see report.py): present and shown to run (a docstring
example that is executed, or a call in a test), never a bare ``raise``.

The hand-written Paddle 2.6 lists (paddle26_names.py) must be complete apart from exclusions with reasons; for the
generated lists (paddle_names.json: the other namespaces' 2.6 ``__all__``) the count of real names may only grow:
FLOOR holds the measured counts (raise it when adding names)."""
import pytest

import paddle26_names as N
from report import coverage, namespaces

# the measured number of real names per generated namespace (issue 23); the test fails when one drops
FLOOR = {
    "paddle.nn": 131, "paddle.nn.functional": 115, "paddle.nn.initializer": 14, "paddle.nn.utils": 7,
    "paddle.optimizer": 11, "paddle.optimizer.lr": 18, "paddle.io": 17, "paddle.static": 39, "paddle.static.nn": 21,
    "paddle.vision.models": 51, "paddle.vision.transforms": 38, "paddle.vision.datasets": 8, "paddle.metric": 6,
    "paddle.jit": 9, "paddle.amp": 5, "paddle.autograd": 6, "paddle.distributed": 50, "paddle.inference": 10,
    "paddle.utils": 4, "paddle.callbacks": 8, "paddle.text": 9, "paddle.regularizer": 2, "paddle.device": 15,
    "paddle.incubate": 11, "paddle.incubate.nn": 2, "paddle.onnx": 1, "paddle.quantization": 6,
    "paddle.geometric": 11, "paddle.audio": 7, "paddle.utils.download": 1,
}


@pytest.fixture(scope="module")
def rows():
    return coverage()


@pytest.mark.parametrize("namespace", sorted(N.NAMESPACES))
def test_hand_listed_namespaces_complete(rows, namespace):
    real, unverified, missing, _, _ = rows[namespace]
    assert not missing, f"{namespace}: missing {missing}"
    assert not unverified, f"{namespace}: present but never run in a test nor a doctest (or a raise-only stub): " \
        f"{unverified}"


@pytest.mark.parametrize("namespace", sorted(set(namespaces()) - set(N.NAMESPACES)))
def test_generated_namespaces_only_grow(rows, namespace):
    real, unverified, missing, _, _ = rows[namespace]
    assert not unverified, f"{namespace}: present but never run in a test nor a doctest (or a raise-only stub): " \
        f"{unverified}"
    assert len(real) >= FLOOR.get(namespace, 0), f"{namespace}: {len(real)} real names, was {FLOOR[namespace]}"


def test_exclusions_have_reasons():
    reasons = list(N.EXCLUDED.values()) + [r for d in N.EXCLUDED_3.values() for r in d.values()]
    assert all(isinstance(v, str) and len(v) > 10 for v in reasons)
    lists = namespaces()
    for ns, names in N.EXCLUDED_3.items():
        assert set(names) <= set(lists[ns][1]), f"{ns}: excludes names Paddle 2.6 does not list"
