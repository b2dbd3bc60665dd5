# Closed-form estimators in torch.linalg: ridge regression by solve/cholesky/lstsq, PCA by SVD and
# eigh, Mahalanobis distances, log-det of a covariance, and gradients through them.
import numpy as np
import torch

rng = np.random.default_rng(SEED)
X = torch.tensor(rng.standard_normal((20, 4)), dtype=torch.float64)
w_true = torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64)
y = X @ w_true + 0.1 * torch.tensor(rng.standard_normal(20), dtype=torch.float64)
lam = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)

A = X.T @ X + lam * torch.eye(4, dtype=torch.float64)
w_solve = torch.linalg.solve(A, X.T @ y)
L = torch.linalg.cholesky(A)
w_chol = torch.cholesky_solve((X.T @ y).unsqueeze(1), L).squeeze(1)
w_lstsq = torch.linalg.lstsq(X, y.unsqueeze(1)).solution.squeeze(1)
val_loss = ((X[:5] @ w_solve - y[:5]) ** 2).mean()
val_loss.backward()

Xc = (X - X.mean(0)).requires_grad_()
U, S, Vh = torch.linalg.svd(Xc, full_matrices=False)
explained = S ** 2 / (S ** 2).sum()
cov = Xc.T @ Xc / (Xc.shape[0] - 1)
evals, evecs = torch.linalg.eigh(cov)
proj = Xc @ evecs[:, -2:]
(proj.pow(2).sum() + S[0]).backward()

cov_d = cov.detach()
prec = torch.linalg.inv(cov_d)
diff = X[:3] - X.mean(0)
maha = torch.sqrt(torch.einsum("ni,ij,nj->n", diff, prec, diff))
sign, logabsdet = torch.linalg.slogdet(cov_d)
Q, R = torch.linalg.qr(X)
RESULTS = {
    "w_solve": w_solve, "same_chol": torch.allclose(w_solve, w_chol), "w_lstsq": w_lstsq,
    "lam_grad": lam.grad, "explained": explained, "evals": evals,
    "abs_evecs_top": evecs[:, -1].abs(), "xc_grad": Xc.grad, "maha": maha, "logdet": logabsdet,
    "sign": sign, "logdet_fn": torch.logdet(cov_d), "absR_diag": R.diagonal().abs(),
    "qtq": torch.allclose(Q.T @ Q, torch.eye(4, dtype=torch.float64)),
    "norms": [torch.linalg.norm(X), torch.linalg.matrix_norm(X, ord="nuc"), torch.linalg.vector_norm(y, ord=1),
              torch.linalg.matrix_norm(cov_d, ord=2), torch.linalg.cond(cov_d)],
    "pinv": torch.linalg.pinv(X[:3]), "det": torch.linalg.det(cov_d), "matrix_rank": torch.linalg.matrix_rank(X[:3].T @ X[:3]),
}
