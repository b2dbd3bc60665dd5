# Optimizer options real scripts pass: maximize, foreach, amsgrad, decoupled weight decay,
# nesterov, lr as a tensor, NAdam/RAdam/Adamax/Adagrad/ASGD/Rprop, and the state_dict layout.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
W0 = rng.standard_normal((3, 4))
B0 = rng.standard_normal(3)
X = torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32)
Y = torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32)


def run(make_opt, steps=4, maximize_obj=False):
    m = nn.Linear(4, 3)
    with torch.no_grad():
        m.weight.copy_(torch.tensor(W0, dtype=torch.float32))
        m.bias.copy_(torch.tensor(B0, dtype=torch.float32))
    opt = make_opt(m.parameters())
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(m(X), Y)
        if maximize_obj:
            loss = -loss
        loss.backward()
        opt.step()
    return [m.weight.detach().clone(), m.bias.detach().clone()], opt


R = {}
cases = {
    "sgd_nesterov_wd": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01),
    "sgd_maximize": lambda p: torch.optim.SGD(p, lr=0.05, maximize=True),
    "adam_foreach": lambda p: torch.optim.Adam(p, lr=0.05, foreach=False, amsgrad=True, weight_decay=0.1),
    "adam_maximize": lambda p: torch.optim.Adam(p, lr=0.05, maximize=True),
    "adamw": lambda p: torch.optim.AdamW(p, lr=0.05, weight_decay=0.5),
    "adamw_amsgrad": lambda p: torch.optim.AdamW(p, lr=0.05, amsgrad=True),
    "nadam": lambda p: torch.optim.NAdam(p, lr=0.05, momentum_decay=4e-3),
    "nadam_decoupled": lambda p: torch.optim.NAdam(p, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
    "radam": lambda p: torch.optim.RAdam(p, lr=0.05),
    "radam_decoupled": lambda p: torch.optim.RAdam(p, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
    "adamax": lambda p: torch.optim.Adamax(p, lr=0.05),
    "adagrad": lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1),
    "asgd": lambda p: torch.optim.ASGD(p, lr=0.05, t0=2),
    "rprop": lambda p: torch.optim.Rprop(p, lr=0.01, etas=(0.4, 1.3), step_sizes=(1e-4, 1.0)),
    "rmsprop": lambda p: torch.optim.RMSprop(p, lr=0.01, weight_decay=0.01, centered=True),
    "adadelta": lambda p: torch.optim.Adadelta(p, lr=0.5, rho=0.8, weight_decay=0.01),
}
for name, fn in cases.items():
    R[name], opt = run(fn, maximize_obj=name.endswith("maximize"))
    sd = opt.state_dict()
    R[name + "_state_keys"] = sorted(sd["state"].get(0, {}).keys())
    R[name + "_group_keys"] = sorted(k for k in sd["param_groups"][0].keys())
R["adam_step_type"] = type(opt.state_dict()["state"][0]["step"]).__name__
_, adam = run(lambda p: torch.optim.Adam(p, lr=0.01))
st = adam.state_dict()["state"][0]
R["adam_step"] = st["step"]
R["adam_exp_avg_sq"] = st["exp_avg_sq"]
R["repr"] = repr(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)).splitlines()
RESULTS = R
TOL = 1e-3
