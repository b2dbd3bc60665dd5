# "Learning PyTorch with examples": a custom nn.Module with four Parameters and torch.optim.SGD.
import math
import numpy as np
import torch


class Polynomial3(torch.nn.Module):
    def __init__(self, init):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(init[0]))
        self.b = torch.nn.Parameter(torch.tensor(init[1]))
        self.c = torch.nn.Parameter(torch.tensor(init[2]))
        self.d = torch.nn.Parameter(torch.tensor(init[3]))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f'y = {self.a.item():.3f} + {self.b.item():.3f} x'


rng = np.random.default_rng(SEED)
x = torch.linspace(-math.pi, math.pi, 200)
y = torch.tensor(np.sin(np.linspace(-math.pi, math.pi, 200)), dtype=torch.float32)
model = Polynomial3([float(v) for v in rng.standard_normal(4)])
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(300):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

TOL = 1e-3
RESULTS = {"loss": loss.item(), "names": [n for n, _ in model.named_parameters()],
           "params": [p.item() for p in model.parameters()]}
