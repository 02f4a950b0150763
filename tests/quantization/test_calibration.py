"""Calibration observers: each algorithm's threshold on data whose answer is known."""
import numpy as np
import pytest

from oar.quantization.calibration import kl_bins, make_observer, weight_scales

rng = np.random.default_rng(5)


def calibrate(algo, batches, **kw):
    obs = make_observer(algo, **kw)
    for x in batches:
        obs.observe(x)
    if getattr(obs, "passes", 1) == 2:
        obs.start_second_pass()
        for x in batches:
            obs.observe(x)
    return obs.threshold()


def test_abs_max_avg_moving_average():
    batches = [np.array([1.0, -3.0]), np.array([2.0]), np.array([-5.0, 0.5])]
    assert calibrate("abs_max", batches) == 5.0
    assert calibrate("avg", batches) == pytest.approx((3 + 2 + 5) / 3)
    assert calibrate("moving_average", batches, moving_rate=0.5) == pytest.approx((3 * 0.5 + 2 * 0.5) * 0.5 + 2.5)


def test_hist_percentile_ignores_rare_outliers():
    data = [np.concatenate([rng.uniform(-1, 1, 10000), [50.0]]) for _ in range(3)]
    t = calibrate("hist", data, bins=1000, hist_percent=0.999)
    assert 0.9 <= t <= 1.1


def test_kl_clips_rare_outliers_but_keeps_a_compact_range():
    outliers = [np.concatenate([rng.standard_normal(20000), [40.0, -35.0]]) for _ in range(2)]
    assert 3.0 < calibrate("KL", outliers, bins=512) < 12.0
    compact = [rng.uniform(-2, 2, 20000) for _ in range(2)]
    assert calibrate("KL", compact, bins=512) > 1.8


def test_kl_bins_of_a_flat_histogram_keeps_everything():
    assert kl_bins(np.ones(256, np.int64)) == 256
    assert kl_bins(np.ones(100, np.int64)) == 100  # fewer bins than levels: nothing to choose


def test_weight_scales_per_channel_and_tensor():
    w = np.array([[[1.0, -2.0]], [[0.5, 0.25]]], np.float32)  # (O=2, C=1, K=2)
    np.testing.assert_allclose(weight_scales(w, 0), np.array([2.0, 0.5]) / 127, rtol=1e-6)
    np.testing.assert_allclose(weight_scales(w, None), 2.0 / 127, rtol=1e-6)


def test_unknown_algo():
    with pytest.raises(ValueError, match="unknown calibration algo 'mse'"):
        make_observer("mse")
