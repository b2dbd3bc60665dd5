# A regressor whose input width is only known from the data (nn.LazyLinear, sized by a dry
# run), trained with SGD, an EMA of its weights kept by AveragedModel, and an SWA phase:
# SWALR anneals the rate while a second AveragedModel takes the equal-weight mean, and
# update_bn recomputes the BatchNorm statistics of the averaged weights at the end.
import numpy as np
import torch
import torch.nn as nn
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(SEED)

x_all = torch.tensor(rng.standard_normal((48, 7)), dtype=torch.float32)
w_true = torch.tensor(rng.standard_normal((7, 1)), dtype=torch.float32)
y_all = x_all @ w_true + 0.1 * torch.tensor(rng.standard_normal((48, 1)), dtype=torch.float32)
loader = DataLoader(TensorDataset(x_all, y_all), batch_size=16, shuffle=False)

model = nn.Sequential(nn.LazyLinear(16), nn.LazyBatchNorm1d(), nn.ReLU(), nn.LazyLinear(1))
before = repr(model)
uninit = [type(p).__name__ for p in model.parameters()]
try:
    model[0].weight.shape
except RuntimeError as e:
    shape_error = e
try:
    model[0].weight + 1
except ValueError as e:
    use_error = str(e).split(". This error")[0].split(" in <")[0]

model.eval()   # the dry run sizes every lazy layer (eval: BatchNorm's statistics untouched)
with torch.no_grad():
    model(x_all[:2])
model.train()
with torch.no_grad():   # the weights from the seed, so both libraries start alike
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.4, tuple(p.shape)), dtype=torch.float32))

ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9), use_buffers=True)
swa = AveragedModel(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
swa_sched = SWALR(opt, swa_lr=0.01, anneal_epochs=3, anneal_strategy="cos")
loss_fn = nn.MSELoss()
lrs, losses = [], []
for epoch in range(8):
    model.train()
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        ema.update_parameters(model)
        losses.append(loss.item())
    if epoch >= 3:
        swa.update_parameters(model)
        swa_sched.step()
    lrs.append(opt.param_groups[0]["lr"])

update_bn(loader, swa)
swa.eval()
ema.eval()
model.eval()
with torch.no_grad():
    preds = {"model": model(x_all[:5]), "ema": ema(x_all[:5]), "swa": swa(x_all[:5])}

RESULTS = {"before": before, "after": repr(model), "uninit": uninit,
           "shape_error": shape_error, "use_error": use_error, "lrs": lrs, "losses": losses,
           "n_averaged": [int(ema.n_averaged), int(swa.n_averaged)],
           "swa_w": swa.module[0].weight, "ema_w": ema.module[3].weight,
           "swa_bn": [swa.module[1].running_mean, swa.module[1].running_var,
                      int(swa.module[1].num_batches_tracked)],
           "ema_tracked": int(ema.module[1].num_batches_tracked), "preds": preds,
           "sched_state": sorted(swa_sched.state_dict())}
TOL = 1e-3
