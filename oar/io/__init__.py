"""Data loading (Paddle 2.x `paddle.io`): datasets, samplers and `DataLoader` with real worker processes."""
from .dataset import (Dataset, IterableDataset, TensorDataset, ComposeDataset, ChainDataset, ConcatDataset, Subset,
                      random_split)
from .sampler import (Sampler, SequenceSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
                      BatchSampler, DistributedBatchSampler)
from .collate import default_collate_fn, default_convert_fn
from .dataloader import DataLoader
from .worker import get_worker_info, WorkerInfo

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset", "ConcatDataset",
           "Subset", "random_split", "Sampler", "SequenceSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DistributedBatchSampler", "DataLoader", "get_worker_info",
           "WorkerInfo", "default_collate_fn", "default_convert_fn"]
