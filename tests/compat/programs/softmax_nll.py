# softmax, log_softmax, nll_loss and cross_entropy agree with each other and with PyTorch.
import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
logits = torch.tensor(rng.standard_normal((6, 5)), dtype=torch.float32, requires_grad=True)
target = torch.tensor(rng.integers(0, 5, 6))
lsm = F.log_softmax(logits, dim=1)
nll = F.nll_loss(lsm, target)
ce = F.cross_entropy(logits, target)
sm = torch.softmax(logits, dim=-1)
ce.backward()
w = torch.tensor([1.0, 2.0, 0.5, 1.0, 3.0])
ce_w = F.cross_entropy(logits, target, weight=w)
ce_sum = F.cross_entropy(logits, target, reduction="sum")
RESULTS = {"nll": nll, "ce": ce, "sm_rows": sm.sum(1), "grad": logits.grad, "ce_w": ce_w,
           "ce_sum": ce_sum}
