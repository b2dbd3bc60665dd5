# LR schedules as training scripts use them: OneCycleLR per batch, CosineAnnealingWarmRestarts with
# fractional epochs, ReduceLROnPlateau on a validation loss, LambdaLR warmup, SequentialLR, ChainedScheduler.
import math
import numpy as np
import torch
import torch.nn as nn
from torch.optim import lr_scheduler

rng = np.random.default_rng(SEED)
model = nn.Linear(4, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor(rng.standard_normal((1, 4)), dtype=torch.float32))
    model.bias.zero_()
X = torch.tensor(rng.standard_normal((16, 4)), dtype=torch.float32)
y = torch.tensor(rng.standard_normal((16, 1)), dtype=torch.float32)


def lrs_of(opt, sched_fn, steps, step_arg=None):
    out = []
    sched = sched_fn(opt)
    for i in range(steps):
        opt.zero_grad(set_to_none=False)
        loss = nn.functional.mse_loss(model(X), y)
        loss.backward()
        opt.step()
        if step_arg is None:
            sched.step()
        else:
            sched.step(step_arg(i, loss))
        out.append([g["lr"] for g in opt.param_groups])
    return out, sched


R = {}
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
R["onecycle"], s = lrs_of(opt, lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=10,
                                                                  pct_start=0.3, anneal_strategy="cos"), 10)
R["onecycle_mom"] = opt.param_groups[0]["momentum"]
opt = torch.optim.Adam(model.parameters(), lr=0.1)
R["onecycle_lin"], _ = lrs_of(opt, lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.3, epochs=2, steps_per_epoch=4,
                                                                      anneal_strategy="linear", three_phase=True), 8)
R["onecycle_betas"] = list(opt.param_groups[0]["betas"])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
R["warm_restarts"], _ = lrs_of(opt, lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01), 12)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
frac = []
for epoch in range(2):
    for i in range(4):
        sched.step(epoch + i / 4)
        frac.append(opt.param_groups[0]["lr"])
R["warm_frac"] = frac
opt = torch.optim.SGD(model.parameters(), lr=0.1)
vals = [1.0, 0.9, 0.95, 0.96, 0.97, 0.91, 0.92, 0.93, 0.94, 0.95]
R["plateau"], pl = lrs_of(opt, lambda o: lr_scheduler.ReduceLROnPlateau(o, mode="min", factor=0.5, patience=1,
                                                                          threshold=0.01, cooldown=1, min_lr=0.02),
                          10, step_arg=lambda i, loss: vals[i])
R["plateau_state"] = [pl.num_bad_epochs, pl.cooldown_counter, pl.best]
R["plateau_last"] = pl.get_last_lr()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
R["plateau_max"], _ = lrs_of(opt, lambda o: lr_scheduler.ReduceLROnPlateau(o, mode="max", patience=0, threshold_mode="abs",
                                                                            threshold=0.1), 5,
                             step_arg=lambda i, loss: [0.5, 0.55, 0.7, 0.75, 0.9][i])
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
warm = 3
R["lambda_warmup"], _ = lrs_of(opt, lambda o: lr_scheduler.LambdaLR(
    o, lambda step: min(1.0, (step + 1) / warm) * 0.5 * (1 + math.cos(math.pi * step / 10))), 8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
R["sequential"], _ = lrs_of(opt, lambda o: lr_scheduler.SequentialLR(
    o, [lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=3), lr_scheduler.ExponentialLR(o, gamma=0.8)],
    milestones=[3]), 7)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
R["chained"], _ = lrs_of(opt, lambda o: lr_scheduler.ChainedScheduler(
    [lr_scheduler.ConstantLR(o, factor=0.5, total_iters=2), lr_scheduler.MultiStepLR(o, milestones=[2, 4], gamma=0.3)]), 6)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
R["poly"], _ = lrs_of(opt, lambda o: lr_scheduler.PolynomialLR(o, total_iters=4, power=2.0), 6)
R["cyclic"], _ = lrs_of(torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
                        lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2"), 9)
R["grad_zero"] = model.weight.grad
R["w"] = model.weight
RESULTS = R
TOL = 1e-3
