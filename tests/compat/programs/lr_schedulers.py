# The learning rates a training loop sees under each scheduler (after optimizer.step()).
import torch

out = {}
for name, kw in [("StepLR", dict(step_size=2, gamma=0.5)),
                 ("MultiStepLR", dict(milestones=[1, 4], gamma=0.1)),
                 ("ExponentialLR", dict(gamma=0.8)),
                 ("CosineAnnealingLR", dict(T_max=5, eta_min=0.001)),
                 ("LambdaLR", dict(lr_lambda=lambda epoch: 0.95 ** epoch))]:
    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    sched = getattr(torch.optim.lr_scheduler, name)(opt, **kw)
    lrs = []
    for epoch in range(8):
        (w.sum() * 0).backward()
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    out[name] = lrs
w = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
trace = []
for val in [3.0, 2.0, 2.5, 2.6, 2.7, 1.0, 1.1, 1.2, 1.3]:
    plateau.step(val)
    trace.append(opt.param_groups[0]["lr"])
out["plateau"] = trace
RESULTS = out
