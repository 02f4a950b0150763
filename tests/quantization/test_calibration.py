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
    # Paddle's search starts at half the range: outliers at 40 give a threshold in [20, 40)
    outliers = [np.concatenate([rng.standard_normal(20000) * 8, [40.0, -35.0]]) for _ in range(2)]
    assert 20.0 <= calibrate("KL", outliers, bins=512) < 36.0
    compact = [rng.uniform(-2, 2, 20000) for _ in range(2)]
    assert calibrate("KL", compact, bins=512) > 1.8


def _mse_optimal_threshold(batches, candidates=400):
    """The int8 threshold with the least squared quantization error on the data (a grid search): the answer a
    calibration should approach when the data has no rare outliers."""
    x = np.concatenate(batches)
    best = None
    for t in np.linspace(x.max() / candidates, x.max(), candidates):
        s = t / 127
        err = np.mean((np.clip(np.round(x / s), -127, 127) * s - x) ** 2)
        if best is None or err < best[0]:
            best = (err, t)
    return best[1]


@pytest.mark.parametrize("draw", [lambda r, n: r.standard_normal(n), lambda r, n: r.laplace(0.0, 1.0, n)],
                         ids=["normal", "laplace"])
def test_kl_after_relu_finds_the_least_error_threshold(draw):
    """Half the values are exact zeros (a ReLU's output); the threshold must still be the one that quantizes the
    positive part best, not one ~4-16x too tight (the zero spike in the first bin made every wide candidate
    look bad)."""
    r = np.random.default_rng(3)
    batches = [np.maximum(draw(r, 50000), 0.0) for _ in range(3)]
    best = _mse_optimal_threshold(batches)
    assert calibrate("KL", batches, bins=2048) == pytest.approx(best, rel=0.1)


def test_kl_after_relu_keeps_a_bounded_range_and_clips_outliers():
    r = np.random.default_rng(4)
    uniform = [np.maximum(r.uniform(-1, 1, 50000), 0.0) for _ in range(3)]
    assert calibrate("KL", uniform, bins=2048) == pytest.approx(1.0, abs=0.01)
    outliers = [np.concatenate([x, [1.6]]) for x in uniform]
    assert calibrate("KL", outliers, bins=2048) == pytest.approx(1.0, abs=0.02)


def test_kl_does_not_clip_a_distribution_into_its_spike():
    """A normalised MNIST image: 90% background at |x| = 0.42, the strokes spread up to 2.8. Clipping at the
    spike gives a KL near 0 (P and Q both one spike) and erases every stroke."""
    r = np.random.default_rng(6)
    batches = [np.where(r.random(50000) < 0.9, -0.42, r.uniform(-0.42, 2.8, 50000)) for _ in range(3)]
    assert calibrate("KL", batches, bins=2048) >= 1.4


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
