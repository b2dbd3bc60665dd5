"""``viewgrad.utils``: ``data`` (Dataset, TensorDataset, DataLoader, random_split), as
``torch.utils.data``."""
from . import data

__all__ = ["data"]
