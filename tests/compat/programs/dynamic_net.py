# "Learning PyTorch with examples": a dynamic graph (control flow picks the depth), SGD momentum.
import math
import numpy as np
import torch


class DynamicNet(torch.nn.Module):
    def __init__(self, init):
        super().__init__()
        self.a, self.b, self.c, self.d, self.e = (torch.nn.Parameter(torch.tensor(v))
                                                  for v in init)

    def forward(self, x, depth):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, depth):
            y = y + self.e * x ** exp
        return y


rng = np.random.default_rng(SEED)
x = torch.linspace(-math.pi, math.pi, 100)
y = torch.tensor(np.sin(np.linspace(-math.pi, math.pi, 100)), dtype=torch.float32)
model = DynamicNet([float(v) * 0.1 for v in rng.standard_normal(5)])
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
depths = rng.integers(4, 6, size=60)
for t in range(60):
    y_pred = model(x, int(depths[t]))
    loss = criterion(y_pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

TOL = 1e-3
RESULTS = {"loss": loss.item(), "params": [p.item() for p in model.parameters()]}
