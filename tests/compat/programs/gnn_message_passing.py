# A GCN layer (Kipf & Welling) and mean/max aggregation with scatter_add_ / index_add_ / scatter_reduce.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
N, F_in, F_out = 6, 4, 3
edge_index = torch.tensor([[0, 1, 1, 2, 3, 4, 5, 5, 0, 2],
                           [1, 0, 2, 1, 4, 3, 0, 2, 5, 5]])
x = torch.tensor(rng.standard_normal((N, F_in)), dtype=torch.float32)


class GCNConv(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.lin = nn.Linear(fin, fout, bias=False)
        self.bias = nn.Parameter(torch.zeros(fout))

    def forward(self, x, edge_index):
        n = x.size(0)
        loops = torch.arange(n).unsqueeze(0).repeat(2, 1)
        ei = torch.cat([edge_index, loops], dim=1)
        row, col = ei
        deg = torch.zeros(n).scatter_add_(0, col, torch.ones(col.size(0)))
        dinv = deg.pow(-0.5)
        dinv[dinv == float("inf")] = 0
        norm = dinv[row] * dinv[col]
        h = self.lin(x)
        msg = norm.view(-1, 1) * h[row]
        out = torch.zeros_like(h).index_add_(0, col, msg)
        return out + self.bias


conv1, conv2 = GCNConv(F_in, 8), GCNConv(8, F_out)
with torch.no_grad():
    for p in list(conv1.parameters()) + list(conv2.parameters()):
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
labels = torch.tensor([0, 1, 2, 0, 1, 2])
train_mask = torch.tensor([True, True, False, True, False, True])
opt = torch.optim.Adam(list(conv1.parameters()) + list(conv2.parameters()), lr=0.01, weight_decay=5e-4)
hist = []
for epoch in range(5):
    opt.zero_grad()
    h = torch.relu(conv1(x, edge_index))
    out = conv2(h, edge_index)
    loss = nn.functional.cross_entropy(out[train_mask], labels[train_mask])
    loss.backward()
    opt.step()
    hist.append(loss.item())

src, dst = edge_index
xs = x.clone().requires_grad_()
mean_agg = torch.zeros(N, F_in).scatter_reduce(0, dst.unsqueeze(1).expand(-1, F_in), xs[src],
                                               reduce="mean", include_self=False)
max_agg = torch.full((N, F_in), -1e9).scatter_reduce(0, dst.unsqueeze(1).expand(-1, F_in), xs[src],
                                                     reduce="amax", include_self=True)
(mean_agg.sum() + max_agg.sum()).backward()
RESULTS = {"hist": hist, "pred": out.argmax(1), "mean_agg": mean_agg, "max_agg": max_agg,
           "xgrad": xs.grad, "deg": torch.bincount(dst, minlength=N),
           "scatter": torch.zeros(3, 4).scatter_(1, torch.tensor([[0, 1], [2, 3], [1, 1]]),
                                                 torch.tensor([[1., 2.], [3., 4.], [5., 6.]]),
                                                 reduce="add")}
