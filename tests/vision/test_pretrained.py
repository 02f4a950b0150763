"""`pretrained=True`: Paddle's published weights, fetched into WEIGHTS_HOME (MD5-checked), loaded through the
restricted unpickler; oar's models have exactly the keys and shapes of Paddle's checkpoints. No network: the
weights file is made locally and the URL table points at it."""
import hashlib
import json
import os

import numpy as np
import pytest

import oar
import oar.dataset.download as download
from oar.vision import models
from oar.vision.models import _utils

HERE = os.path.dirname(__file__)


@pytest.mark.parametrize("name", ["resnet18", "resnet50", "vgg16", "mobilenet_v2", "inception_v3"])
def test_state_dict_keys_and_shapes_equal_paddles(name):
    ref = json.load(open(os.path.join(HERE, "paddle_state_keys.json")))[name]
    own = {k: list(v.shape) for k, v in getattr(models, name)().state_dict().items()}
    assert own == ref


def _published(tmp_path, monkeypatch, state, arch="resnet18"):
    """A weights file in Paddle's pickle format at the cache path of `arch`'s URL, with its MD5 in the table."""
    monkeypatch.setattr(download, "WEIGHTS_HOME", str(tmp_path))
    url = _utils.WEIGHTS[arch][0]
    path = tmp_path / url.rsplit("/", 1)[-1]
    oar.save(state, str(path), protocol="paddle")
    md5 = hashlib.md5(path.read_bytes()).hexdigest()
    monkeypatch.setitem(_utils.WEIGHTS, arch, (url, md5))
    return path


def test_pretrained_loads_the_cached_checksummed_weights(tmp_path, monkeypatch):
    oar.seed(1)
    source = models.resnet18()
    _published(tmp_path, monkeypatch, source.state_dict())
    net = models.resnet18(pretrained=True)
    for (k, a), (_, b) in zip(sorted(net.state_dict().items()), sorted(source.state_dict().items())):
        assert np.array_equal(a.numpy(), b.numpy()), k


def test_inception_v3_pretrained_loads_paddles_file_name(tmp_path, monkeypatch):
    """Paddle publishes inception_v3's weights as .../models/inception_v3.pdparams; oar fetches that file."""
    assert _utils.WEIGHTS["inception_v3"][0].endswith("/models/inception_v3.pdparams")
    oar.seed(2)
    source = models.inception_v3()
    _published(tmp_path, monkeypatch, source.state_dict(), "inception_v3")
    net = models.inception_v3(pretrained=True)
    for (k, a), (_, b) in zip(net.state_dict().items(), source.state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), k


def test_a_cached_file_with_the_wrong_checksum_is_fetched_again(tmp_path, monkeypatch):
    path = _published(tmp_path, monkeypatch, models.resnet18().state_dict())
    good = path.read_bytes()
    bad = tmp_path / "bad" / "resnet18.pdparams"
    bad.parent.mkdir()
    bad.write_bytes(good[:-10])   # the "server" holds a truncated copy
    path.write_bytes(good[:-10])  # and so does the cache
    monkeypatch.setitem(_utils.WEIGHTS, "resnet18", (bad.as_uri(), _utils.WEIGHTS["resnet18"][1]))
    with pytest.raises(RuntimeError, match="MD5"):
        models.resnet18(pretrained=True)


def test_weights_that_do_not_fit_are_refused(tmp_path, monkeypatch):
    state = models.resnet18().state_dict()
    state.pop("fc.weight")
    _published(tmp_path, monkeypatch, state)
    with pytest.raises(ValueError, match="missing"):
        models.resnet18(pretrained=True)


def test_no_published_weights_is_a_clear_error():
    with pytest.raises(ValueError, match="no published pretrained weights for vgg16_bn"):
        models.vgg16(pretrained=True, batch_norm=True)
