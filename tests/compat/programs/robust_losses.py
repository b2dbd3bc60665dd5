# Regression losses side by side: L1, SmoothL1 (beta), Huber (delta), MSE; their gradients.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
pred = torch.tensor(rng.standard_normal((6, 2)) * 2, dtype=torch.float32, requires_grad=True)
target = torch.tensor(rng.standard_normal((6, 2)), dtype=torch.float32)
res = {}
for name, crit in [("l1", nn.L1Loss()), ("smooth", nn.SmoothL1Loss(beta=0.5)),
                   ("huber", nn.HuberLoss(delta=0.7)), ("mse", nn.MSELoss(reduction="sum")),
                   ("l1_none", nn.L1Loss(reduction="none"))]:
    pred.grad = None
    loss = crit(pred, target)
    loss.sum().backward()
    res[name] = (loss.detach().clone(), pred.grad.clone())
RESULTS = res
