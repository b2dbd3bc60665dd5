# The errors beginners hit (and paste into forums): each is caught and its message compared.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
R = {}


def catch(name, fn):
    try:
        fn()
        R[name] = "no error"
    except Exception as e:  # noqa: BLE001
        R[name] = e


x = torch.tensor(rng.standard_normal((4, 3)), dtype=torch.float32)
lin = nn.Linear(5, 2)
catch("linear_shape", lambda: lin(x))
catch("matmul", lambda: x @ x)
catch("mm", lambda: torch.mm(x, torch.ones(4, 2)))
catch("bmm", lambda: torch.bmm(torch.ones(2, 3, 4), torch.ones(3, 4, 5)))
catch("cat", lambda: torch.cat([torch.ones(2, 3), torch.ones(3, 2)], dim=1))
catch("stack", lambda: torch.stack([torch.ones(2), torch.ones(3)]))
catch("view", lambda: x.t().view(-1))
catch("view_size", lambda: x.view(5, -1))
catch("reshape_bad", lambda: x.reshape(5, 2))
catch("broadcast", lambda: x + torch.ones(4))
catch("no_grad_fn", lambda: x.sum().backward())
catch("scalar_out", lambda: (torch.ones(2, requires_grad=True) * 2).backward())


def twice():
    a = torch.ones(2, requires_grad=True)
    b = (a.exp() * 2).sum()
    b.backward()
    b.backward()


catch("backward_twice", twice)


def leaf_inplace():
    w = torch.ones(3, requires_grad=True)
    w += 1


catch("leaf_inplace", leaf_inplace)
conv = nn.Conv2d(3, 4, 3)
catch("conv_channels", lambda: conv(torch.ones(1, 2, 5, 5)))
catch("conv_small", lambda: conv(torch.ones(1, 3, 2, 2)))
catch("conv_3d_in", lambda: nn.Conv2d(1, 1, 3)(torch.ones(5, 5)))
emb = nn.Embedding(5, 2)
catch("emb_index", lambda: emb(torch.tensor([1, 5])))
catch("emb_float", lambda: emb(torch.tensor([1.0])))
catch("ce_float_target", lambda: F.cross_entropy(torch.ones(3, 4), torch.tensor([1.0, 2.0, 0.0])))
catch("ce_target_range", lambda: F.cross_entropy(torch.ones(3, 4), torch.tensor([1, 4, 0])))
catch("ce_shape", lambda: F.cross_entropy(torch.ones(3, 4), torch.tensor([1, 2])))
catch("bce_range", lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0])))
catch("mse_long", lambda: F.mse_loss(torch.ones(2), torch.tensor([1, 2])))
catch("lstm_dim", lambda: nn.LSTM(3, 4)(torch.ones(2, 5, 2)))
catch("lstm_2d_h", lambda: nn.LSTM(3, 4)(torch.ones(2, 5, 3), (torch.zeros(5, 4), torch.zeros(5, 4))))
catch("item_multi", lambda: torch.ones(2).item())
catch("numpy_grad", lambda: torch.ones(2, requires_grad=True).numpy())
catch("bool_ambiguous", lambda: bool(torch.ones(2)))
catch("long_mean", lambda: torch.tensor([1, 2]).mean())
catch("index_oob", lambda: torch.ones(3)[5])
catch("dim_oob", lambda: torch.ones(3).sum(dim=2))
catch("transpose_oob", lambda: torch.ones(3, 2).transpose(0, 2))
catch("expand", lambda: torch.ones(2, 3).expand(4, 3))
catch("gather_dims", lambda: torch.ones(2, 3).gather(1, torch.tensor([0, 1])))
catch("requires_grad_int", lambda: torch.tensor([1, 2], requires_grad=True))
catch("optim_empty", lambda: torch.optim.SGD([], lr=0.1))
catch("optim_neg_lr", lambda: torch.optim.Adam(nn.Linear(2, 2).parameters(), lr=-1))
catch("optim_tensor", lambda: torch.optim.SGD(torch.ones(2, requires_grad=True), lr=0.1))
catch("module_no_init", lambda: type("Bad", (nn.Module,), {"__init__": lambda self: setattr(self, "l", nn.Linear(1, 1))})())
catch("load_sd_shape", lambda: nn.Linear(2, 3).load_state_dict(nn.Linear(3, 3).state_dict()))
catch("softmax_no_dim_ok", lambda: F.softmax(torch.ones(2, 2), dim=-1).sum().item())
catch("where_dtype", lambda: torch.where(torch.tensor([True]), torch.tensor([1.0]), torch.tensor([2])))
catch("dtype_mismatch_mm", lambda: torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64))
catch("int_pow_neg", lambda: torch.tensor([2]) ** -1)
catch("grad_nonleaf", lambda: (torch.ones(2, requires_grad=True) * 2).grad)
RESULTS = R
