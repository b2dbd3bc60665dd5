# k-means with torch.cdist / argmin / bincount, PCA with torch.linalg.svd (signs of the
# singular vectors are not unique: compared through sign-free quantities), a histogram
# and bucketing of the projections, and the grid of a meshgrid.
import numpy as np
import torch

rng = np.random.default_rng(SEED)
centers_true = np.array([[0.0, 0.0], [4.0, 4.0], [0.0, 5.0]])
pts = np.concatenate([c + rng.standard_normal((20, 2)) * 0.6 for c in centers_true])
X = torch.tensor(pts, dtype=torch.float32)

C = X[torch.tensor([0, 25, 45])].clone()
for _ in range(5):
    assign = torch.cdist(X, C).argmin(dim=1)
    counts = torch.bincount(assign, minlength=3)
    sums = torch.zeros(3, 2).index_add_(0, assign, X)
    C = sums / counts.clamp_min(1).unsqueeze(1).float()
labels, inverse, sizes = torch.unique(assign, return_inverse=True, return_counts=True)

Xc = X - X.mean(0)
U, S, Vh = torch.linalg.svd(Xc, full_matrices=False)
explained = S ** 2 / (S ** 2).sum()
proj = Xc @ Vh.T
recon = (U * S) @ Vh
hist = torch.histc(proj[:, 0].abs(), bins=5, min=0, max=6)
edges = torch.linspace(0, 6, 4)
buckets = torch.bucketize(proj[:, 0].abs().contiguous(), edges)
gx, gy = torch.meshgrid(torch.arange(3.0), torch.arange(2.0), indexing="xy")
pairs = torch.cartesian_prod(torch.arange(2), torch.arange(3))
blocks = torch.block_diag(torch.ones(2, 2), torch.tensor([[3.0]]))
stacked = torch.hstack([gx.flatten(), gy.flatten()]) + torch.vstack([gx, gy]).sum()

RESULTS = {"C": C, "counts": counts, "labels": labels, "sizes": sizes, "inverse": inverse,
           "S": S, "explained": explained, "proj_sq": proj ** 2, "recon": recon,
           "hist": hist, "buckets": buckets, "grid": (gx, gy), "pairs": pairs,
           "blocks": blocks, "stacked": stacked}
