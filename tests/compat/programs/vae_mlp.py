# Variational autoencoder (Kingma & Welling): reparameterisation trick, KL term, BCE sum loss.
import numpy as np
import torch
from torch import nn, optim
from torch.nn import functional as F

rng = np.random.default_rng(SEED)


class VAE(nn.Module):
    def __init__(self, d=12, h=10, z=3):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.fc21 = nn.Linear(h, z)
        self.fc22 = nn.Linear(h, z)
        self.fc3 = nn.Linear(z, h)
        self.fc4 = nn.Linear(h, d)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar, eps):
        std = torch.exp(0.5 * logvar)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x, eps):
        mu, logvar = self.encode(x.view(-1, 12))
        z = self.reparameterize(mu, logvar, eps)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 12), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD, BCE, KLD


model = VAE()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.3, p.shape), dtype=torch.float32))
optimizer = optim.Adam(model.parameters(), lr=1e-3)
data = torch.tensor(rng.uniform(0, 1, (8, 3, 4)) > 0.5, dtype=torch.float32)
train_loss = 0
parts = []
for batch_idx in range(3):
    eps = torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32)
    optimizer.zero_grad()
    recon_batch, mu, logvar = model(data, eps)
    loss, bce, kld = loss_function(recon_batch, data, mu, logvar)
    loss.backward()
    train_loss += loss.item()
    optimizer.step()
    parts.append((bce.item(), kld.item()))
print('====> Average loss: {:.4f}'.format(train_loss / len(data)))
with torch.no_grad():
    sample = model.decode(torch.tensor(rng.standard_normal((2, 3)), dtype=torch.float32))

RESULTS = {"train_loss": train_loss, "parts": parts, "sample": sample,
           "grad_mu_layer": model.fc21.weight.grad, "logvar": logvar,
           "msg": '====> Average loss: {:.4f}'.format(train_loss / len(data))}
TOL = 1e-3
