# Temporal Convolutional Network (Bai et al. 2018, the locuslab/TCN code): causal dilated Conv1d
# with Chomp1d, weight_norm'd convolutions, residual 1x1 downsample; remove_weight_norm at the end.
import warnings
import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils import weight_norm, remove_weight_norm

warnings.simplefilter("ignore", FutureWarning)
rng = np.random.default_rng(SEED)


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super(Chomp1d, self).__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, :-self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_inputs, n_outputs, kernel_size, stride, dilation, padding, dropout=0.2):
        super(TemporalBlock, self).__init__()
        self.conv1 = weight_norm(nn.Conv1d(n_inputs, n_outputs, kernel_size,
                                           stride=stride, padding=padding, dilation=dilation))
        self.chomp1 = Chomp1d(padding)
        self.relu1 = nn.ReLU()
        self.dropout1 = nn.Dropout(dropout)
        self.conv2 = weight_norm(nn.Conv1d(n_outputs, n_outputs, kernel_size,
                                           stride=stride, padding=padding, dilation=dilation))
        self.chomp2 = Chomp1d(padding)
        self.relu2 = nn.ReLU()
        self.dropout2 = nn.Dropout(dropout)
        self.net = nn.Sequential(self.conv1, self.chomp1, self.relu1, self.dropout1,
                                 self.conv2, self.chomp2, self.relu2, self.dropout2)
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
        self.relu = nn.ReLU()

    def forward(self, x):
        out = self.net(x)
        res = x if self.downsample is None else self.downsample(x)
        return self.relu(out + res)


class TCN(nn.Module):
    def __init__(self, num_inputs, num_channels, kernel_size=2, dropout=0.2):
        super(TCN, self).__init__()
        layers = []
        for i in range(len(num_channels)):
            dilation_size = 2 ** i
            in_channels = num_inputs if i == 0 else num_channels[i - 1]
            layers += [TemporalBlock(in_channels, num_channels[i], kernel_size, stride=1, dilation=dilation_size,
                                     padding=(kernel_size - 1) * dilation_size, dropout=dropout)]
        self.network = nn.Sequential(*layers)
        self.linear = nn.Linear(num_channels[-1], 1)

    def forward(self, x):
        return self.linear(self.network(x)[:, :, -1])


model = TCN(2, [4, 4, 3], kernel_size=3)
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.4, tuple(p.shape)), dtype=torch.float32))
model.eval()
x = torch.tensor(rng.standard_normal((4, 2, 10)), dtype=torch.float32)
y = torch.tensor(rng.standard_normal((4, 1)), dtype=torch.float32)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
hist = []
for _ in range(4):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 0.2)
    opt.step()
    hist.append(loss.item())
blk = model.network[0]
keys = list(blk.state_dict().keys())
g_grad = blk.conv1.weight_g.grad
v_grad = blk.conv1.weight_v.grad
with torch.no_grad():
    before = model(x)
for b in model.network:
    remove_weight_norm(b.conv1)
    remove_weight_norm(b.conv2)
with torch.no_grad():
    after = model(x)
lin = weight_norm(nn.Linear(3, 2), dim=None)
lin2 = weight_norm(nn.Linear(3, 4), name="weight", dim=1)
RESULTS = {"hist": hist, "keys": keys, "g_shape": tuple(blk.conv1.weight_g.shape) if hasattr(blk.conv1, "weight_g") else None,
           "g_grad": g_grad, "v_grad": v_grad, "before": before, "same_after_remove": torch.allclose(before, after, atol=1e-6),
           "keys_after": list(blk.state_dict().keys()), "n_params": len(list(model.parameters())),
           "lin_g_shape": tuple(lin.weight_g.shape), "lin2_g_shape": tuple(lin2.weight_g.shape),
           "lin2_w_is_param": isinstance(lin2.weight, nn.Parameter), "is_param": isinstance(blk.conv1.weight, nn.Parameter)}
TOL = 1e-3
