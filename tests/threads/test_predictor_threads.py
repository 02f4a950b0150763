"""`oar.inference` predictors used from several threads: a Predictor (its input and output handles) belongs to
one thread; `clone()` gives each thread its own, sharing the program and the weights. Results equal the
single-threaded ones, also while another thread trains and switches modes."""
import numpy as np
import pytest

import oar
from oar import inference
from oar.static import InputSpec

from thread_helpers import assert_same_run, run_together, train

ROUNDS = 40


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    oar.seed(3)
    net = oar.nn.Sequential(oar.nn.Linear(6, 16), oar.nn.ReLU(), oar.nn.Linear(16, 3))
    prefix = str(tmp_path_factory.mktemp("threads") / "mlp")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 6], "float32", "x")])
    return prefix


def _inputs(k):
    return [np.random.default_rng(100 + k * ROUNDS + r).standard_normal([r % 5 + 1, 6]).astype("float32")
            for r in range(ROUNDS)]


def _use(predictor, k, handles):
    """Runs `predictor` on thread `k`'s inputs, through the handles or with `run(arrays)`."""
    def run():
        outs = []
        for a in _inputs(k):
            if handles:
                predictor.get_input_handle("x").copy_from_cpu(a)
                predictor.run()
                outs.append(predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu().copy())
            else:
                outs.append(predictor.run([a])[0].copy())
        return outs
    return run


def _reference(prefix, n_threads):
    p = inference.create_predictor(inference.Config(prefix))
    return [_use(p, k, handles=False)() for k in range(n_threads)]


@pytest.mark.parametrize("handles", [True, False], ids=["handles", "run_arrays"])
@pytest.mark.parametrize("how", ["own", "clone"])
@pytest.mark.parametrize("n_threads", [2, 4])
def test_predictors_in_threads_equal_single_threaded(model, n_threads, how, handles):
    want = _reference(model, n_threads)
    first = inference.create_predictor(inference.Config(model))
    if how == "own":
        predictors = [inference.create_predictor(inference.Config(model)) for _ in range(n_threads)]
    else:
        predictors = [first] + [first.clone() for _ in range(n_threads - 1)]
    got = run_together([_use(p, k, handles) for k, p in enumerate(predictors)])
    for g, w in zip(got, want):
        assert len(g) == len(w)
        for a, b in zip(g, w):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n_threads", [2, 4])
def test_predictors_while_another_thread_trains(model, n_threads):
    want_pred = _reference(model, n_threads - 1)
    want_train = train(0)
    first = inference.create_predictor(inference.Config(model))
    predictors = [first] + [first.clone() for _ in range(n_threads - 2)]
    got = run_together([lambda: train(0)] + [_use(p, k, handles=True) for k, p in enumerate(predictors)])
    assert_same_run(got[0], want_train)
    for g, w in zip(got[1:], want_pred):
        for a, b in zip(g, w):
            np.testing.assert_array_equal(a, b)
