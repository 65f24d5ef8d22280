"""Datasets, samplers and the DataLoader, with PyTorch's API
(``torch.utils.data``)."""
from monoflow.utils.data.collate import default_collate, default_convert
from monoflow.utils.data.dataloader import DataLoader
from monoflow.utils.data.dataset import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset, random_split,
)
from monoflow.utils.data.sampler import (
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler, WeightedRandomSampler,
)
from monoflow.utils.data._worker import WorkerInfo, get_worker_info
from monoflow.utils.data.distributed import DistributedSampler

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "WorkerInfo", "default_collate", "default_convert", "get_worker_info",
           "random_split", "DistributedSampler"]
