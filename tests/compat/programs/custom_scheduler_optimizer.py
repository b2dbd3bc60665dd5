# Hand-written training utilities: a Noam warmup scheduler subclassing _LRScheduler (get_lr from
# last_epoch/base_lrs), a LambdaLR-equivalent closure, a custom Optimizer subclass (SGD with
# momentum written with self.state / defaults / @torch.no_grad), and a Lookahead wrapper.
import math
import numpy as np
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import _LRScheduler, LRScheduler
from torch.optim import Optimizer

rng = np.random.default_rng(SEED)


class NoamLR(_LRScheduler):
    def __init__(self, optimizer, d_model, warmup_steps, last_epoch=-1):
        self.d_model = d_model
        self.warmup_steps = warmup_steps
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        step = max(self.last_epoch, 1)
        scale = self.d_model ** -0.5 * min(step ** -0.5, step * self.warmup_steps ** -1.5)
        return [base_lr * scale for base_lr in self.base_lrs]


class WarmupCosine(LRScheduler):
    def __init__(self, optimizer, warmup, total, last_epoch=-1):
        self.warmup, self.total = warmup, total
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e = self.last_epoch
        if e < self.warmup:
            return [b * (e + 1) / self.warmup for b in self.base_lrs]
        p = (e - self.warmup) / max(1, self.total - self.warmup)
        return [b * 0.5 * (1 + math.cos(math.pi * p)) for b in self.base_lrs]


class MySGD(Optimizer):
    def __init__(self, params, lr=1e-2, momentum=0.9, weight_decay=0.0):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = dict(lr=lr, momentum=momentum, weight_decay=weight_decay)
        super(MySGD, self).__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad
                if group["weight_decay"] != 0:
                    d_p = d_p.add(p, alpha=group["weight_decay"])
                state = self.state[p]
                if "momentum_buffer" not in state:
                    buf = state["momentum_buffer"] = torch.clone(d_p).detach()
                else:
                    buf = state["momentum_buffer"]
                    buf.mul_(group["momentum"]).add_(d_p)
                p.add_(buf, alpha=-group["lr"])
        return loss


class Lookahead:
    def __init__(self, base, k=2, alpha=0.5):
        self.base, self.k, self.alpha, self.counter = base, k, alpha, 0
        self.param_groups = base.param_groups
        self.slow = [[p.detach().clone() for p in g["params"]] for g in base.param_groups]

    def zero_grad(self):
        self.base.zero_grad()

    def step(self, closure=None):
        loss = self.base.step(closure)
        self.counter += 1
        if self.counter % self.k == 0:
            with torch.no_grad():
                for g, slows in zip(self.param_groups, self.slow):
                    for p, s in zip(g["params"], slows):
                        s.add_(p - s, alpha=self.alpha)
                        p.copy_(s)
        return loss


def make():
    m = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 1))
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
    return m


X = torch.tensor(rng.standard_normal((12, 3)), dtype=torch.float32)
Y = torch.tensor(rng.standard_normal((12, 1)), dtype=torch.float32)
R = {}
m = make()
opt = torch.optim.Adam(m.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
noam = NoamLR(opt, d_model=16, warmup_steps=3)
lrs = []
for _ in range(6):
    opt.zero_grad()
    nn.functional.mse_loss(m(X), Y).backward()
    opt.step()
    noam.step()
    lrs.append(noam.get_last_lr()[0])
R["noam_lrs"] = lrs
R["noam_w"] = m[0].weight
R["noam_state"] = sorted(noam.state_dict().keys())
m = make()
opt = MySGD(m.parameters(), lr=0.05, weight_decay=1e-3)
wc = WarmupCosine(opt, warmup=2, total=6)
hist = []
for _ in range(6):
    def closure():
        opt.zero_grad()
        loss = nn.functional.mse_loss(m(X), Y)
        loss.backward()
        return loss
    hist.append(opt.step(closure).item())
    wc.step()
R["my_sgd"] = hist
R["wc_lrs"] = wc.get_last_lr()
R["my_sgd_state"] = sorted(opt.state_dict()["state"][0].keys())
R["my_sgd_groups"] = sorted(opt.state_dict()["param_groups"][0].keys())
try:
    MySGD(m.parameters(), lr=-1)
except ValueError as e:
    R["bad_lr"] = e
m = make()
la = Lookahead(torch.optim.SGD(m.parameters(), lr=0.1), k=2)
for _ in range(4):
    la.zero_grad()
    nn.functional.mse_loss(m(X), Y).backward()
    la.step()
R["lookahead_w"] = m[2].weight
R["initial_lr"] = opt.param_groups[0]["initial_lr"]
RESULTS = R
TOL = 1e-3
