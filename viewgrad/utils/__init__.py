"""``viewgrad.utils``: ``data`` (Dataset, TensorDataset, DataLoader, random_split), as
``torch.utils.data``, and ``checkpoint`` (activation checkpointing), as
``torch.utils.checkpoint``."""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
