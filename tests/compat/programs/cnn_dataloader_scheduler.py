# A small CNN trained for two epochs with a DataLoader, SGD momentum and a StepLR schedule.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(SEED)
X = torch.tensor(rng.standard_normal((24, 1, 6, 6)), dtype=torch.float32)
Y = torch.tensor(rng.integers(0, 3, 24))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 3 * 3, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.conv(x)))
        return self.fc(x.view(x.size(0), -1))


net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))
loader = DataLoader(TensorDataset(X, Y), batch_size=8, shuffle=False)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
criterion = nn.CrossEntropyLoss()
history = []
for epoch in range(2):
    running = 0.0
    for inputs, labels in loader:
        optimizer.zero_grad()
        loss = criterion(net(inputs), labels)
        loss.backward()
        optimizer.step()
        running += loss.item()
    scheduler.step()
    history.append((running / len(loader), scheduler.get_last_lr()[0]))

TOL = 1e-3
RESULTS = {"history": history, "fc": net.fc.weight, "batches": len(loader)}
