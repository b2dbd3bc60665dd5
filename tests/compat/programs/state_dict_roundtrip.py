# state_dict() names and load_state_dict() into a fresh model give the same outputs.
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(SEED)
m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
with torch.no_grad():
    for p in m.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)), dtype=torch.float32))
x = torch.tensor(rng.standard_normal((5, 3)), dtype=torch.float32)
m(x)                      # updates the running stats
sd = m.state_dict()
m2 = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
m2.load_state_dict(sd)
m.eval()
m2.eval()
RESULTS = {"keys": list(sd.keys()), "same": torch.equal(m(x), m2(x)) if hasattr(torch, "equal")
           else bool((m(x) == m2(x)).all()), "out": m2(x),
           "tracked": sd["1.num_batches_tracked"].item()}
