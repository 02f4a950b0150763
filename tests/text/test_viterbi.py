"""text.viterbi_decode / ViterbiDecoder (issue 23) against brute-force enumeration of every tag path."""
import itertools

import numpy as np
import pytest

import oar

rng = np.random.default_rng(9)


def brute(pot, trans, length, bos_eos):
    """The best path and score by trying every path; with bos_eos, start = last tag's row, stop = row N-2 (Paddle)."""
    n = pot.shape[1]
    best = (-np.inf, None)
    for path in itertools.product(range(n), repeat=length):
        s = pot[0, path[0]] + (trans[n - 1, path[0]] if bos_eos else 0)
        for t in range(1, length):
            s += trans[path[t - 1], path[t]] + pot[t, path[t]]
        if bos_eos:
            s += trans[n - 2, path[-1]]
        if s > best[0]:
            best = (s, path)
    return best


@pytest.mark.parametrize("bos_eos", [True, False])
def test_viterbi_decode_is_the_best_path(bos_eos):
    b, t, n = 4, 5, 3
    pot, trans = rng.normal(size=(b, t, n)), rng.normal(size=(n, n))
    lengths = np.array([5, 3, 1, 4])
    scores, paths = oar.text.viterbi_decode(oar.to_tensor(pot), oar.to_tensor(trans), oar.to_tensor(lengths),
                                            bos_eos)
    assert paths.dtype == oar.int64 and paths.shape == [4, 5]
    for i in range(b):
        s, path = brute(pot[i], trans, lengths[i], bos_eos)
        np.testing.assert_allclose(scores.numpy()[i], s, rtol=1e-12)
        np.testing.assert_array_equal(paths.numpy()[i], list(path) + [0] * (5 - lengths[i]))
    short = oar.text.viterbi_decode(oar.to_tensor(pot), oar.to_tensor(trans), oar.to_tensor(np.array([2, 3, 1, 2])),
                                    bos_eos)[1]
    assert short.shape == [4, 3]  # as long as the longest sequence
    layer = oar.text.ViterbiDecoder(oar.to_tensor(trans), include_bos_eos_tag=bos_eos)
    np.testing.assert_array_equal(layer(oar.to_tensor(pot), oar.to_tensor(lengths))[1].numpy(), paths.numpy())
    with pytest.raises(ValueError, match=r"\[N, N\]"):
        oar.text.viterbi_decode(oar.to_tensor(pot), oar.to_tensor(trans[:2]), oar.to_tensor(lengths))
