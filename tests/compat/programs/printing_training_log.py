# What a training script prints: repeated-block model summaries, optimizer reprs, grad_fn chains,
# summarised large tensors, wrapped rows, negative zero, f-string formats. (Non-default dtypes and
# ParameterList entries are left out: viewgrad spells their dtype viewgrad.float32.)
import contextlib
import io
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
buf = io.StringIO()


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(x + torch.relu(self.fc(x)))

    def extra_repr(self):
        return "residual=True"


class Deep(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(4) for _ in range(3)])
        self.seq = nn.Sequential(*[nn.Linear(4, 4) for _ in range(2)], nn.ReLU(), nn.ReLU(), nn.Linear(4, 2))
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))


with contextlib.redirect_stdout(buf):
    model = Deep()
    print(model)
    opt = torch.optim.Adam([{"params": model.blocks.parameters()}, {"params": model.seq.parameters(), "lr": 1e-4}],
                           lr=1e-3, weight_decay=0.01)
    print(opt)
    print(torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True))
    x = torch.tensor(rng.standard_normal((2, 4)), dtype=torch.float32, requires_grad=True)
    y = (x.exp() * 3).sum(dim=1).mean()
    print(y.grad_fn.name(), [type(f).__name__ if f else None for f, _ in y.grad_fn.next_functions])
    print(x.exp().grad_fn.next_functions[0][0].__class__.__name__, x.is_leaf, y.is_leaf, y.requires_grad)
    print(torch.arange(0, 3000, dtype=torch.float32).reshape(30, 100))
    print(torch.arange(1200).reshape(2, 600))
    print(torch.tensor(rng.standard_normal(25) * 100, dtype=torch.float32))
    print(torch.tensor([-0.0, 0.0, -1.5]))
    print(torch.tensor([[1e-8, 1.0], [2.0, 3.0]]))
    print(torch.tensor([1.0e10, -2.0]), torch.tensor([0.001, 0.0002]))
    print(torch.tensor([3, -1]), torch.tensor([[True], [False]]))
    print(torch.empty(0), torch.ones(1, 0, 2))
    print(torch.tensor([[[1., 2.], [3., 4.]], [[5., 6.], [7., 8.]]]))
    v = torch.tensor(0.123456789)
    print(f"{v:.3f} {v.item():.2e} {float(v):8.4f} {int(torch.tensor(7.9))} {v!r}")
    print("%.4f" % torch.tensor(2.5), "{:>10.2f}|".format(torch.tensor(3.14159).item()))
    print(str(torch.tensor([1.5, 2.5])), repr(torch.tensor(1.0, requires_grad=True) * 2))
    print(torch.tensor([1.0, 2.0]).mean().item() == 1.5, round(torch.tensor(2.675).item(), 2))
    for epoch in range(2):
        loss = torch.tensor(1.0 / (epoch + 3))
        acc = torch.tensor([1, 0, 1, 1]).float().mean()
        print(f"Epoch [{epoch + 1}/2], Loss: {loss.item():.4f}, Acc: {acc * 100:.2f}%")
        print("epoch", epoch, "loss", loss, "acc", acc.item())
    print(torch.finfo(torch.float32).eps, torch.finfo(torch.float64).max, torch.iinfo(torch.int64).max)
    print(torch.tensor([1, 2, 3]).tolist(), torch.tensor([[0.5]]).tolist(), torch.tensor(True).item())
    print(x.detach().numpy().dtype, type(x.detach().numpy()).__name__, x.shape[0], x.ndim, x.numel())
    print(len(model.state_dict()), list(model.state_dict())[:4], model.steps)
RESULTS = {"printed": buf.getvalue().splitlines()}
