# The boilerplate of modern training scripts on a CPU machine (torch.compile aside: real
# PyTorch spends ~15 s importing its compiler, so tests/utils checks it): cudnn/tf32 flags,
# autocast that disables itself without CUDA, a GradScaler (the deprecated
# torch.cuda.amp one disabled, a real torch.amp one on cpu, with an overflow step skipped),
# and activation checkpointing of a residual block (both variants).
import warnings
from contextlib import nullcontext

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

warnings.simplefilter("ignore")
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = True
torch.backends.cuda.matmul.allow_tf32 = True
torch.set_float32_matmul_precision("high")
rng = np.random.default_rng(SEED)
device = "cuda" if torch.cuda.is_available() else "cpu"


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.ln(x))))


class Net(nn.Module):
    def __init__(self, d=6, reentrant=True):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(2)])
        self.head = nn.Linear(d, 1)
        self.reentrant = reentrant

    def forward(self, x):
        for b in self.blocks:
            x = checkpoint(b, x, use_reentrant=self.reentrant)
        return self.head(x)


x = torch.tensor(rng.standard_normal((8, 6)), dtype=torch.float32, requires_grad=True)
y = torch.tensor(rng.standard_normal((8, 1)), dtype=torch.float32)
init = [rng.normal(0, 0.4, s) for s in [(6,), (6,), (12, 6), (12,), (6, 12), (6,)] * 2
        + [(1, 6), (1,)]]
out = {}
for reentrant in (True, False):
    model = Net(reentrant=reentrant)
    with torch.no_grad():
        for p, a in zip(model.parameters(), init):
            p.copy_(torch.tensor(a, dtype=torch.float32))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 8, growth_interval=3)
    old_scaler = torch.cuda.amp.GradScaler(enabled=(device == "cuda"))
    ctx = nullcontext() if device == "cpu" else torch.autocast(device, dtype=torch.bfloat16)
    losses, scales = [], []
    for step in range(6):
        with ctx, torch.autocast(device_type="cuda", dtype=torch.float16):
            loss = F.mse_loss(model(x), y)
        if step == 2:
            loss = loss * float("inf")   # an overflow: the step is skipped, the scale halves
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
        scales.append(scaler.get_scale())
    x.grad = None
    F.mse_loss(model(x), y).backward()
    out[str(reentrant)] = {"losses": losses, "scales": scales, "x_grad": x.grad,
                           "w": model.blocks[0].fc1.weight, "old_enabled": old_scaler.is_enabled(),
                           "state": scaler.state_dict()}
RESULTS = out
