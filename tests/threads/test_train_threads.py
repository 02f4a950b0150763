"""Two and four models trained at once, one per thread (eager, and with a `to_static` forward): each equals
its single-threaded run exactly."""
import pytest

from thread_helpers import assert_same_run, run_together, train


@pytest.mark.parametrize("static_forward", [False, True], ids=["eager", "to_static"])
@pytest.mark.parametrize("n_threads", [2, 4])
def test_models_trained_in_threads_equal_their_references(n_threads, static_forward):
    want = [train(seed, static_forward=static_forward) for seed in range(n_threads)]
    got = run_together([lambda seed=seed: train(seed, static_forward=static_forward) for seed in range(n_threads)])
    for g, w in zip(got, want):
        assert_same_run(g, w)


@pytest.mark.parametrize("n_threads", [2, 4])
def test_eager_and_converted_models_train_side_by_side(n_threads):
    """Half the threads trace and run converted forwards while the other half train eagerly."""
    kinds = [k % 2 == 1 for k in range(n_threads)]
    want = [train(seed, static_forward=s) for seed, s in enumerate(kinds)]
    got = run_together([lambda seed=seed, s=s: train(seed, static_forward=s) for seed, s in enumerate(kinds)])
    for g, w in zip(got, want):
        assert_same_run(g, w)
