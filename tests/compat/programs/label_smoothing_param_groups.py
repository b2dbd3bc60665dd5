# Label-smoothing cross-entropy + AdamW with parameter groups (no weight decay on bias / norm).
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)

model = nn.Sequential(
    nn.Linear(6, 16), nn.LayerNorm(16), nn.GELU(),
    nn.Linear(16, 16), nn.BatchNorm1d(16), nn.SiLU(),
    nn.Linear(16, 5))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.4, tuple(p.shape)), dtype=torch.float32))

decay, no_decay = [], []
for name, param in model.named_parameters():
    if not param.requires_grad:
        continue
    if param.ndim <= 1 or name.endswith(".bias"):
        no_decay.append(param)
    else:
        decay.append(param)
optimizer = torch.optim.AdamW([
    {"params": decay, "weight_decay": 0.1},
    {"params": no_decay, "weight_decay": 0.0, "lr": 5e-3}], lr=1e-2, betas=(0.9, 0.95))
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
weighted = nn.CrossEntropyLoss(weight=torch.tensor([1., 2., 1., .5, 1.]), label_smoothing=0.2,
                               ignore_index=-100)
x = torch.tensor(rng.standard_normal((12, 6)), dtype=torch.float32)
y = torch.tensor(rng.integers(0, 5, 12))
y_ign = y.clone()
y_ign[::4] = -100
hist = []
for step in range(5):
    optimizer.zero_grad(set_to_none=True)
    logits = model(x)
    loss = criterion(logits, y) + 0.5 * weighted(logits, y_ign)
    loss.backward()
    optimizer.step()
    hist.append(loss.item())
soft = torch.softmax(torch.tensor(rng.standard_normal((12, 5)), dtype=torch.float32), -1)
RESULTS = {
    "hist": hist,
    "n_groups": len(optimizer.param_groups),
    "group_sizes": [len(g["params"]) for g in optimizer.param_groups],
    "group_keys": sorted(optimizer.param_groups[1].keys()),
    "w0": model[0].weight,
    "ln_b": model[1].bias,
    "soft_target_loss": nn.functional.cross_entropy(model(x), soft, label_smoothing=0.3),
    "state_steps": [optimizer.state[p]["step"] for p in decay],
}
TOL = 1e-3
