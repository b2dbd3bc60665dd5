# Fitting a small nonlinear model with torch.optim.LBFGS (the closure pattern), first with
# the plain fixed-step iteration, then with the strong-Wolfe line search; float64 as in
# scientific-computing scripts. Then a OneCycleLR + SGD run with a SequentialLR warm-up
# on a second model.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
x = torch.tensor(np.linspace(-2, 2, 40)[:, None])
y = torch.sin(2 * x) + 0.1 * torch.tensor(rng.standard_normal((40, 1)))

results = {}
for ls in (None, "strong_wolfe"):
    model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1)).double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape))))
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=10, history_size=5,
                                  line_search_fn=ls)
    losses = []
    for epoch in range(4):
        def closure():
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            return loss
        losses.append(optimizer.step(closure).item())
    results[str(ls)] = {"losses": losses, "final": nn.functional.mse_loss(model(x), y).item(),
                        "evals": optimizer.state[next(iter(model.parameters()))]["func_evals"]}

net = nn.Linear(1, 1).double()
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=10)
lrs, moms = [], []
for step in range(10):
    opt.zero_grad()
    nn.functional.mse_loss(net(x), y).backward()
    opt.step()
    sched.step()
    lrs.append(sched.get_last_lr()[0])
    moms.append(opt.param_groups[0]["momentum"])
opt2 = torch.optim.AdamW(net.parameters(), lr=1e-2)
warm = torch.optim.lr_scheduler.LinearLR(opt2, start_factor=0.1, total_iters=3)
cos = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt2, T_0=3, T_mult=2)
seq = torch.optim.lr_scheduler.SequentialLR(opt2, [warm, cos], milestones=[3])
seq_lrs = []
for step in range(12):
    opt2.step()
    seq.step()
    seq_lrs.append(opt2.param_groups[0]["lr"])
RESULTS = {"lbfgs": results, "onecycle_lrs": lrs, "onecycle_momentum": moms,
           "sequential_lrs": seq_lrs}
