import torch
import torch.nn as nn
torch.manual_seed(123)
G = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Dropout(0.1), nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optD = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
optG = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
real_data = torch.randn(256, 2) * 0.5 + torch.tensor([2.0, -1.0])
for step in range(30):
    idx = torch.randint(0, 256, (32,))
    real = real_data[idx]
    z = torch.randn(32, 4)
    fake = G(z)
    optD.zero_grad()
    lossD = criterion(D(real), torch.ones(32, 1)) + criterion(D(fake.detach()), torch.zeros(32, 1))
    alpha = torch.rand(32, 1)
    interp = (alpha * real + (1 - alpha) * fake.detach()).requires_grad_(True)
    grads = torch.autograd.grad(D(interp).sum(), interp, create_graph=True)[0]
    gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
    (lossD + 0.1 * gp).backward()
    optD.step()
    optG.zero_grad()
    lossG = criterion(D(fake), torch.ones(32, 1))
    lossG.backward()
    optG.step()
    if step % 10 == 0:
        print(step, f"{lossD.item():.5f} {lossG.item():.5f} {gp.item():.5f}")
print(G(torch.randn(3, 4)))
