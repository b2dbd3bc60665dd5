# MAML on sine regression: functional forward with explicit weights, inner SGD with create_graph.
import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(SEED)


def init_params():
    return [torch.tensor(rng.normal(0, 0.5, s), dtype=torch.float32, requires_grad=True)
            for s in [(20, 1), (20,), (20, 20), (20,), (1, 20), (1,)]]


def forward(x, params):
    h = F.relu(F.linear(x, params[0], params[1]))
    h = F.relu(F.linear(h, params[2], params[3]))
    return F.linear(h, params[4], params[5])


def sample_task():
    amp, phase = rng.uniform(0.1, 5.0), rng.uniform(0, np.pi)
    def batch(k):
        x = rng.uniform(-5, 5, (k, 1))
        return (torch.tensor(x, dtype=torch.float32),
                torch.tensor(amp * np.sin(x + phase), dtype=torch.float32))
    return batch


params = init_params()
meta_opt = torch.optim.Adam(params, lr=1e-3)
inner_lr, inner_steps = 0.01, 2
meta_losses = []
for it in range(4):
    meta_opt.zero_grad()
    total = 0.0
    for _ in range(3):
        task = sample_task()
        xs, ys = task(5)
        xq, yq = task(5)
        fast = params
        for _ in range(inner_steps):
            loss = F.mse_loss(forward(xs, fast), ys)
            grads = torch.autograd.grad(loss, fast, create_graph=True)
            fast = [w - inner_lr * g for w, g in zip(fast, grads)]
        qloss = F.mse_loss(forward(xq, fast), yq)
        total = total + qloss
    (total / 3).backward()
    meta_opt.step()
    meta_losses.append(total.item() / 3)
RESULTS = {"meta_losses": meta_losses, "grads": [p.grad for p in params[-2:]],
           "fast_is_leaf": fast[0].is_leaf, "fast_grad_fn": type(fast[0].grad_fn).__name__}
TOL = 1e-3
