"""Samplers draw from NumPy's global generator as Paddle's do: ``np.random.seed`` reproduces Paddle 3.3.1's order
(the lists below were printed by Paddle 3.3.1)."""
import numpy as np

import oar


def test_random_sampler_follows_np_random_seed():
    np.random.seed(2023)
    assert list(oar.io.RandomSampler(list(range(10)))) == [8, 2, 5, 0, 3, 4, 1, 9, 6, 7]
    np.random.seed(2023)
    assert list(oar.io.RandomSampler(list(range(10)), replacement=True, num_samples=6)) == [7, 9, 6, 7, 1, 3]


def test_shuffling_data_loader_follows_np_random_seed():
    np.random.seed(2023)
    loader = oar.io.DataLoader(oar.io.TensorDataset([oar.arange(8)]), batch_size=4, shuffle=True)
    assert [b[0].tolist() for b in loader] == [[5, 2, 0, 3], [4, 6, 1, 7]]


def test_generator_yielding_indices():
    assert list(oar.io.RandomSampler(list(range(3)), generator=iter([2, 0, 1]))) == [2, 0, 1]


def test_weighted_sampler_follows_np_random_seed():
    w = np.array([0.1, 0.5, 0.2, 0.2])
    np.random.seed(2023)
    assert list(oar.io.WeightedRandomSampler(w, 6)) == [1, 3, 1, 1, 1, 1]
    np.random.seed(2023)
    assert list(oar.io.WeightedRandomSampler(w, 3, replacement=False)) == [1, 3, 0]
