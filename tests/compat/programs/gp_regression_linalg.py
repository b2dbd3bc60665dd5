# Gaussian-process regression, the textbook way: an RBF kernel from torch.cdist, the
# Cholesky factor, solves, the log marginal likelihood (logdet), hyper-parameters fitted
# by Adam; then a posterior prediction and a few other linalg checks.
import numpy as np
import torch

rng = np.random.default_rng(SEED)
X = torch.tensor(rng.uniform(-3, 3, (12, 1)), dtype=torch.float64)
y = torch.sin(X[:, 0]) + 0.1 * torch.tensor(rng.standard_normal(12), dtype=torch.float64)
Xs = torch.linspace(-3, 3, 7, dtype=torch.float64).unsqueeze(1)

log_ls = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
log_sf = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
log_sn = torch.tensor(-1.0, dtype=torch.float64, requires_grad=True)


def kernel(a, b):
    d = torch.cdist(a, b) / log_ls.exp()
    return log_sf.exp() ** 2 * torch.exp(-0.5 * d ** 2)


def nll():
    K = kernel(X, X) + (log_sn.exp() ** 2 + 1e-6) * torch.eye(12, dtype=torch.float64)
    L = torch.linalg.cholesky(K)
    alpha = torch.linalg.solve(K, y)
    return 0.5 * y @ alpha + 0.5 * torch.logdet(K) + 6 * np.log(2 * np.pi), L


opt = torch.optim.Adam([log_ls, log_sf, log_sn], lr=0.05)
losses = []
for _ in range(15):
    opt.zero_grad()
    loss, L = nll()
    loss.backward()
    opt.step()
    losses.append(loss.item())

with torch.no_grad():
    K = kernel(X, X) + log_sn.exp() ** 2 * torch.eye(12, dtype=torch.float64)
    Ks = kernel(Xs, X)
    mean = Ks @ torch.linalg.solve(K, y)
    var = torch.diag(kernel(Xs, Xs)) - (Ks * torch.linalg.solve(K, Ks.T).T).sum(1)
    sign, logabs = torch.linalg.slogdet(K)

A = torch.tensor(rng.standard_normal((4, 4)), dtype=torch.float64, requires_grad=True)
checks = torch.linalg.det(A) + torch.trace(torch.linalg.inv(A)) + torch.linalg.matrix_power(A, 3).sum()
checks = checks + torch.linalg.pinv(A[:, :3]).sum() + torch.linalg.eigvalsh(A + A.T).sum()
checks.backward()

RESULTS = {"losses": losses, "params": [log_ls, log_sf, log_sn], "mean": mean, "var": var,
           "slogdet": (sign, logabs), "L": L, "checks": checks, "A.grad": A.grad,
           "rank": torch.linalg.matrix_rank(A[:, :2] @ A[:2, :]),
           "svals": torch.linalg.svdvals(A)}
