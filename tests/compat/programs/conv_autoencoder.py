# Convolutional autoencoder: strided Conv2d encoder, ConvTranspose2d decoder, MSE training.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 4, 3, stride=2, padding=1),  # 8 -> 4
            nn.LeakyReLU(0.1),
            nn.Conv2d(4, 6, 3, stride=2, padding=1),  # 4 -> 2
            nn.Tanh())
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(6, 4, 3, stride=2, padding=1, output_padding=1),  # 2 -> 4
            nn.ELU(),
            nn.ConvTranspose2d(4, 1, 3, stride=2, padding=1, output_padding=1),  # 4 -> 8
            nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


ae = AutoEncoder()
for m in ae.modules():
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        with torch.no_grad():
            m.weight.copy_(torch.as_tensor(rng.normal(0, 0.4, m.weight.shape), dtype=torch.float32))
            m.bias.copy_(torch.as_tensor(rng.normal(0, 0.1, m.bias.shape), dtype=torch.float32))

imgs = torch.as_tensor(rng.uniform(0, 1, (4, 1, 8, 8)), dtype=torch.float32)
crit = nn.MSELoss()
opt = torch.optim.Adam(ae.parameters(), lr=1e-2, betas=(0.9, 0.99), amsgrad=True)
losses = []
for it in range(6):
    recon = ae(imgs)
    loss = crit(recon, imgs)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())

ct = nn.ConvTranspose2d(2, 3, (2, 3), stride=(2, 1), padding=(0, 1), dilation=(1, 2), groups=1)
with torch.no_grad():
    ct.weight.copy_(torch.as_tensor(rng.standard_normal(ct.weight.shape), dtype=torch.float32))
    ct.bias.zero_()
z = torch.as_tensor(rng.standard_normal((1, 2, 3, 4)), dtype=torch.float32).requires_grad_()
o = ct(z)
o.sum().backward()
RESULTS = {"losses": losses, "recon": ae(imgs), "latent_shape": list(ae.encoder(imgs).shape),
           "ct_out": o, "ct_zgrad": z.grad, "ct_shape": o.shape}
TOL = 1e-3
