# einsum-heavy code: bilinear attention, batched outer products, traces, a tensor contraction.
import numpy as np
import torch

rng = np.random.default_rng(SEED)


def t(*shape, grad=True):
    return torch.tensor(rng.standard_normal(shape), dtype=torch.float64, requires_grad=grad)


q, k, v = t(2, 3, 4, 5), t(2, 3, 6, 5), t(2, 3, 6, 5)           # b h i d / b h j d
scores = torch.einsum("bhid,bhjd->bhij", q, k) / 5 ** 0.5
attn = scores.softmax(-1)
out = torch.einsum("bhij,bhjd->bhid", attn, v)
merged = torch.einsum("bhid->bihd", out).reshape(2, 4, 15)

A, x = t(4, 4), t(4)
W = t(3, 4, 4)
quad = torch.einsum("i,ij,j->", x, A, x)
trace = torch.einsum("ii", A)
diag = torch.einsum("ii->i", A)
outer = torch.einsum("i,j->ij", x, diag)
bil = torch.einsum("bi,oij,bj->bo", t(2, 4), W, t(2, 4))
batched_trace = torch.einsum("bii->b", W)
ell = torch.einsum("...ij,...jk->...ik", W, A)
contract = torch.einsum("abc,cd,bd->a", t(2, 3, 4), t(4, 5), t(3, 5))
kron_like = torch.einsum("ij,kl->ikjl", t(2, 2), t(2, 3)).reshape(4, 6)
total = (out.sum() + quad + trace + outer.sum() + bil.pow(2).sum() + batched_trace.sum()
         + ell.mean() + contract.sum() + kron_like.abs().sum())
total.backward()
RESULTS = {"merged": merged, "quad": quad, "trace": trace, "diag": diag, "bil": bil,
           "contract": contract, "kron": kron_like, "q_grad": q.grad, "A_grad": A.grad,
           "W_grad": W.grad, "x_grad": x.grad,
           "list_form": torch.einsum(A.detach(), [0, 1], x.detach(), [1], [0])}
