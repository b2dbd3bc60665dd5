# The same least-squares problem with every optimizer: parameters after ten steps.
import numpy as np
import torch

rng = np.random.default_rng(SEED)
A = torch.tensor(rng.standard_normal((20, 4)), dtype=torch.float32)
b = torch.tensor(rng.standard_normal(20), dtype=torch.float32)
w0 = rng.standard_normal(4)
configs = [("SGD", dict(lr=0.01, momentum=0.9, nesterov=True)),
           ("Adam", dict(lr=0.05, amsgrad=True)), ("AdamW", dict(lr=0.05, weight_decay=0.1)),
           ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)),
           ("Adagrad", dict(lr=0.3, lr_decay=0.01)), ("Adadelta", dict(lr=1.0))]
final = {}
for name, kw in configs:
    w = torch.tensor(w0, dtype=torch.float32, requires_grad=True)
    opt = getattr(torch.optim, name)([w], **kw)
    for _ in range(10):
        opt.zero_grad()
        loss = ((A @ w - b) ** 2).mean()
        loss.backward()
        opt.step()
    final[name] = (w.detach().clone(), loss.item())

TOL = 1e-3
RESULTS = final
