# What print() shows: modules, tensors in fixed/scientific notation, f-strings, item(), tolist().
import contextlib
import io
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
buf = io.StringIO()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(inplace=True),
                                      nn.MaxPool2d(2), nn.Dropout2d(0.25))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(16, 10), nn.LogSoftmax(dim=1))
        self.lstm = nn.LSTM(4, 8, num_layers=2, batch_first=True, dropout=0.1)
        self.emb = nn.Embedding(10, 3, padding_idx=0)
        self.ln = nn.LayerNorm((4,), eps=1e-6)
        self.heads = nn.ModuleDict({"a": nn.Identity(), "b": nn.GELU(approximate="tanh")})

    def forward(self, x):
        return self.classifier(self.features(x))


with contextlib.redirect_stdout(buf):
    net = Net()
    print(net)
    print(nn.Linear(3, 2, bias=False))
    print(nn.Conv1d(2, 4, kernel_size=3, stride=2, padding="same" if False else 1, dilation=1, groups=2))
    print(nn.ConvTranspose2d(2, 2, 3, stride=2, output_padding=1))
    print(nn.AvgPool2d(2, stride=1, padding=1), nn.AdaptiveAvgPool1d(3), nn.Upsample(scale_factor=2, mode="nearest"))
    print(nn.LeakyReLU(0.2), nn.Softmax(dim=-1), nn.Hardtanh(-2, 2), nn.ELU(alpha=0.5), nn.PReLU(3))
    print(nn.MultiheadAttention(8, 2, batch_first=True))
    print(nn.CrossEntropyLoss(label_smoothing=0.1), nn.MSELoss(reduction="sum"))
    print(torch.tensor([1e-5, 1.0, 1000.0]))
    print(torch.tensor([1e-10, 2e-10]))
    print(torch.tensor([123456789.0, 1.0]))
    print(torch.tensor([0.1, 0.25, -3.5]))
    print(torch.tensor([1., 2., float("nan"), float("inf")]))
    print(torch.tensor([[1, -2], [300, 4]]))
    print(torch.tensor([True, False]))
    print(torch.tensor(rng.standard_normal((3, 4)), dtype=torch.float32))
    print(torch.zeros(2, 0))
    print(torch.tensor(3.5), torch.tensor(7))
    x = torch.tensor([1.5, 2.0], requires_grad=True)
    y = (x * 2).sum()
    print(y)
    print(x.mean(), x.max(), x[0])
    p = nn.Parameter(torch.ones(2))
    print(p)
    print(f"loss={y.item():.3f} {y.item()} value {x.tolist()} shape {tuple(x.shape)} {x.size(0)}")
    print(tuple(torch.Size([2, 3])), x.shape == (2,), list(x.shape))
    print(torch.arange(12).reshape(3, 4).tolist())
    print(torch.ones(2, 2, dtype=torch.int32).tolist(), torch.tensor(2.5).tolist())
    print(torch.tensor([0.5]).item(), type(torch.tensor([3]).item()).__name__)
    print(torch.arange(2000.0))
    torch.set_printoptions(precision=2)
    print(torch.tensor([1.23456, 2.5]))
    torch.set_printoptions(sci_mode=False)
    print(torch.tensor([1e-5, 1.0, 1000.0]))
    torch.set_printoptions(profile="default")
    print(torch.tensor([[0.001, 2e5]]))
    print(list(torch.randn(2, 3).shape), torch.ones(3).dtype == torch.float32)
    print(sum(p.numel() for p in net.parameters() if p.requires_grad))
    for name, module in net.named_children():
        print(name, type(module).__name__)
    print([n for n, _ in net.named_modules()][:6])
    print({k: tuple(v.shape) for k, v in net.state_dict().items() if k.startswith("features")})
RESULTS = {"printed": buf.getvalue().splitlines()}
