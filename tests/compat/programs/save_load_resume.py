# Checkpointing a training run: torch.save of model + optimizer + scheduler state to BytesIO and a
# temp file, torch.load, resume, and check the resumed run matches the uninterrupted one.
import io
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
W0 = [rng.normal(0, 0.5, s) for s in [(8, 3), (8,), (8,), (8,), (2, 8), (2,)]]
X = torch.tensor(rng.standard_normal((10, 3)), dtype=torch.float32)
Y = torch.tensor(rng.standard_normal((10, 2)), dtype=torch.float32)


def make():
    m = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
    with torch.no_grad():
        for p, w in zip(m.parameters(), W0):
            p.copy_(torch.tensor(w, dtype=torch.float32))
    opt = torch.optim.Adam(m.parameters(), lr=0.01, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    return m, opt, sched


def train(m, opt, sched, steps):
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(m(X), Y)
        loss.backward()
        opt.step()
        sched.step()
    return loss.item()


m, opt, sched = make()
train(m, opt, sched, 3)
buf = io.BytesIO()
torch.save({"epoch": 3, "model_state_dict": m.state_dict(), "optimizer_state_dict": opt.state_dict(),
            "scheduler": sched.state_dict(), "note": "ckpt", "loss": torch.tensor(0.5)}, buf)
size_positive = buf.tell() > 0
final_full = train(m, opt, sched, 3)
out_full = m(X)

m2, opt2, sched2 = make()
buf.seek(0)
ckpt = torch.load(buf, weights_only=True)
m2.load_state_dict(ckpt["model_state_dict"])
opt2.load_state_dict(ckpt["optimizer_state_dict"])
sched2.load_state_dict(ckpt["scheduler"])
final_resumed = train(m2, opt2, sched2, 3)

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "model.pt")
    torch.save(m2.state_dict(), path)
    sd = torch.load(path, map_location="cpu")
m3, _, _ = make()
missing = m3.load_state_dict(sd, strict=True)
bad = dict(sd)
bad.pop("3.bias")
bad["extra.weight"] = torch.zeros(1)
res = m3.load_state_dict(bad, strict=False)
try:
    m3.load_state_dict(bad)
    err = None
except RuntimeError as e:
    err = e
osd = opt.state_dict()
RESULTS = {"size_positive": size_positive, "epoch": ckpt["epoch"], "note": ckpt["note"],
           "final_full": final_full, "final_resumed": final_resumed, "out_full": out_full,
           "out_resumed": m2(X), "lr": [g["lr"] for g in opt2.param_groups],
           "missing": [list(missing.missing_keys), list(missing.unexpected_keys)],
           "nonstrict": [list(res.missing_keys), list(res.unexpected_keys)], "err": err,
           "osd_keys": sorted(osd.keys()), "osd_params": osd["param_groups"][0]["params"],
           "osd_state_keys": sorted(osd["state"][0].keys()), "osd_step": osd["state"][0]["step"],
           "sched_sd": sorted(sched.state_dict().keys()), "loss_t": ckpt["loss"],
           "sd_types": [type(v).__name__ for v in list(sd.values())[:2]]}
TOL = 1e-3
