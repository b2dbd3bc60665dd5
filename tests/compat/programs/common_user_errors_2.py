# More errors from forum threads: dtype mismatches (double input to a float model, int labels for
# BCE), shape mistakes in layers, an optimizer stepping a model that was re-created, in-place ops
# breaking autograd inside a model, gradients accumulating without zero_grad.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
R = {}


def catch(name, fn):
    try:
        out = fn()
        R[name] = "no error" if out is None else out
    except Exception as e:  # noqa: BLE001
        R[name] = e


lin = nn.Linear(3, 2)
x64 = torch.tensor(rng.standard_normal((4, 3)))            # float64: numpy's default
catch("double_input", lambda: lin(x64))
catch("int_input", lambda: lin(torch.ones(2, 3, dtype=torch.long)))
catch("bce_long_target", lambda: F.binary_cross_entropy_with_logits(torch.zeros(3), torch.tensor([1, 0, 1])))
catch("mse_shape_warn", lambda: F.mse_loss(torch.zeros(3, 1), torch.zeros(3)).item())
catch("conv_no_batch", lambda: nn.Conv2d(3, 2, 3)(torch.ones(3, 5, 5)).shape)
catch("conv1d_2d_input", lambda: nn.Conv1d(3, 2, 3)(torch.ones(5, 5)))
catch("bn_wrong_features", lambda: nn.BatchNorm1d(4)(torch.ones(2, 3)))
catch("ln_wrong_shape", lambda: nn.LayerNorm(4)(torch.ones(2, 3)))
catch("emb_negative", lambda: nn.Embedding(4, 2)(torch.tensor([-1])))
catch("maxpool_too_small", lambda: nn.MaxPool2d(3)(torch.ones(1, 1, 2, 2)))
catch("flatten_linear", lambda: nn.Sequential(nn.Flatten(), nn.Linear(10, 2))(torch.ones(2, 3, 3)))
catch("gru_batch_first", lambda: nn.GRU(4, 3, batch_first=True)(torch.ones(2, 5, 3)))
catch("lstm_hidden_shape", lambda: nn.LSTM(4, 3)(torch.ones(5, 2, 4), (torch.zeros(1, 3, 3), torch.zeros(1, 3, 3))))
catch("mha_embed", lambda: nn.MultiheadAttention(6, 4))
catch("transformer_dmodel", lambda: nn.TransformerEncoderLayer(6, 4))


def inplace_in_forward():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Linear(3, 3)

        def forward(self, x):
            h = torch.sigmoid(self.l1(x))
            h += 1                      # in place on sigmoid's output, which its backward needs
            return h.sum()
    M()(torch.ones(2, 3)).backward()


catch("inplace_forward", inplace_in_forward)


def stale_optimizer():
    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model = nn.Linear(2, 1)            # re-created: opt still holds the old parameters
    with torch.no_grad():
        model.weight.fill_(1.0)
        model.bias.fill_(0.0)
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
    return model.weight


catch("stale_optimizer", stale_optimizer)


def zero_grad_forgotten():
    w = torch.tensor([1.0], requires_grad=True)
    for _ in range(3):
        (w * 2).sum().backward()
    return w.grad


catch("accumulated", zero_grad_forgotten)


def detach_numpy():
    t = torch.ones(2, requires_grad=True) * 3
    return t.detach().numpy().tolist()


catch("detach_numpy", detach_numpy)
catch("view_after_transpose", lambda: torch.ones(2, 3).t().view(6))
catch("int_tensor_grad", lambda: torch.ones(2, dtype=torch.long).requires_grad_())
catch("grad_of_nonscalar", lambda: torch.autograd.grad(torch.ones(2, requires_grad=True) * 2, torch.ones(1)))
RESULTS = R
