# Transfer learning: freeze a backbone (requires_grad_(False), eval BN), train a new head, then
# unfreeze the last block with add_param_group and a smaller lr; parameters_to_vector round trip.
import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

rng = np.random.default_rng(SEED)
backbone = nn.Sequential(
    nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(),
    nn.Linear(8, 8), nn.BatchNorm1d(8), nn.ReLU())
head = nn.Linear(8, 3)
model = nn.Sequential(backbone, head)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
    backbone[1].running_mean.copy_(torch.tensor(rng.normal(0, 0.1, 8), dtype=torch.float32))
    backbone[1].running_var.fill_(1.5)

for p in backbone.parameters():
    p.requires_grad_(False)


def set_bn_eval(m):
    if isinstance(m, nn.modules.batchnorm._BatchNorm):
        m.eval()


x = torch.tensor(rng.standard_normal((10, 5)), dtype=torch.float32)
y = torch.tensor(rng.integers(0, 3, 10))
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1, momentum=0.9)
crit = nn.CrossEntropyLoss()
log = []
for epoch in range(6):
    model.train()
    backbone.apply(set_bn_eval)
    if epoch == 3:
        for p in backbone[3].parameters():
            p.requires_grad = True
        opt.add_param_group({"params": list(backbone[3].parameters()), "lr": 0.01})
    opt.zero_grad()
    loss = crit(model(x), y)
    loss.backward()
    opt.step()
    log.append(loss.item())
trainable = [n for n, p in model.named_parameters() if p.requires_grad]
vec = parameters_to_vector(head.parameters())
vector_to_parameters(vec * 2, head.parameters())
RESULTS = {"log": log, "trainable": trainable, "groups": [(len(g["params"]), g["lr"], g["momentum"])
                                                          for g in opt.param_groups],
           "frozen_grad_none": backbone[0].weight.grad is None, "rm": backbone[1].running_mean,
           "nbt": backbone[1].num_batches_tracked.item(), "vec": vec, "head_w": head.weight,
           "bn_training": [m.training for m in backbone.modules()]}
TOL = 1e-3
