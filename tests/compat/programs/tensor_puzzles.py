# Tensor manipulation puzzles (srush/Tensor-Puzzles style and Stack Overflow one-liners).
import numpy as np
import torch

rng = np.random.default_rng(SEED)
a = torch.tensor(rng.integers(0, 10, (4, 6)))
f = torch.tensor(rng.standard_normal((4, 6)), dtype=torch.float32)
idx = torch.tensor(rng.integers(0, 6, (4, 2)))
R = {}
R["gather"] = torch.gather(f, 1, idx)
R["take_along"] = torch.take_along_dim(f, f.argsort(dim=1, descending=True), dim=1)
R["take_along_flat"] = torch.take_along_dim(f, torch.tensor([0, 5, 23]))
R["unfold"] = torch.arange(10).unfold(0, 4, 3)
R["unfold2d"] = f.unfold(1, 2, 2).shape
R["roll"] = torch.roll(a, shifts=(1, -2), dims=(0, 1))
R["roll_flat"] = torch.roll(a, 3)
R["flip"] = a.flip(0, 1)
R["rep_int"] = torch.repeat_interleave(torch.tensor([1, 2, 3]), torch.tensor([2, 0, 3]))
R["rep_int_dim"] = a[:2].repeat_interleave(2, dim=0)
R["repeat"] = torch.tensor([[1, 2]]).repeat(2, 3)
R["cumsum"] = a.cumsum(dim=1)
R["cumsum_dtype"] = torch.tensor([True, False, True]).cumsum(0).dtype == torch.int64
R["excl_cumsum"] = torch.cat([torch.zeros(1, dtype=a.dtype), a[0].cumsum(0)[:-1]])
R["cumprod"] = torch.tensor([1., 2., 0., 3.]).cumprod(0)
R["masked_select"] = torch.masked_select(a, a > 5)
R["nonzero"] = torch.nonzero(a % 3 == 0)
R["nonzero_tuple"] = list(torch.nonzero(a[0] > 4, as_tuple=True))
R["where1"] = list(torch.where(a > 7))
R["argsort_stable"] = torch.argsort(torch.tensor([3, 1, 3, 1, 2]), stable=True)
R["sort"] = list(torch.sort(f[0], descending=True))
vals, inv, cnt = torch.unique(a, sorted=True, return_inverse=True, return_counts=True)
R["unique"] = [vals, inv, cnt]
R["unique_dim"] = list(torch.unique(torch.tensor([[1, 2], [3, 4], [1, 2]]), dim=0, return_counts=True))
R["unique_consec"] = list(torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]), return_counts=True))
R["topk"] = list(f.topk(2, dim=1, largest=False))
R["kthvalue"] = list(torch.kthvalue(f, 3, dim=1))
R["searchsorted"] = torch.searchsorted(torch.tensor([1., 3., 5., 7.]), torch.tensor([0., 3., 6., 9.]), right=True)
R["bucketize"] = torch.bucketize(torch.tensor([0.5, 3., 6.]), torch.tensor([1., 3., 5.]))
R["one_hot_eye"] = torch.eye(4)[torch.tensor([2, 0, 3])]
R["tril_idx"] = torch.tril_indices(3, 3, offset=-1)
R["diag_embed"] = torch.diag_embed(torch.tensor([[1., 2.], [3., 4.]]))
R["chunk"] = [c.shape for c in torch.arange(10).chunk(3)]
R["split"] = [s.tolist() for s in torch.arange(7).split([2, 5])]
R["tensor_split"] = [s.tolist() for s in torch.arange(7).tensor_split(3)]
R["stack_cat"] = torch.stack([a[0], a[1]], dim=1).shape
R["meshgrid"] = list(torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij"))
R["cartesian"] = torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4]))
R["combinations"] = torch.combinations(torch.tensor([1, 2, 3]), r=2)
R["index_put"] = torch.zeros(3, 3).index_put_((torch.tensor([0, 2, 0]), torch.tensor([1, 1, 1])), torch.tensor(1.), accumulate=True)
R["fancy"] = a[[0, 2, 3], [1, 1, 5]]
R["bool_row"] = a[a[:, 0] > 3]
R["ellipsis"] = f[..., None, 1:3].shape
R["amax"] = a.amax(dim=(0, 1))
R["max_ties"] = list(torch.tensor([1, 3, 3, 2]).max(0))
R["mode"] = list(torch.tensor([1, 2, 2, 3, 3]).mode())
R["median_even"] = torch.tensor([4., 1., 3., 2.]).median()
R["diff"] = torch.diff(a, dim=1, prepend=a[:, :1])
R["count"] = torch.count_nonzero(a, dim=0)
R["isin"] = torch.isin(a[0], torch.tensor([1, 2, 3]))
R["flatten"] = a.flatten().tolist()[:5]
R["int_div"] = [(a // 3)[0], torch.div(a, 3, rounding_mode="trunc")[0], (a / 3)[0]]
R["neg_mod"] = torch.tensor([-7, 7]) % 3
R["clone_stride"] = a.t().contiguous().stride()
RESULTS = R
