# ESPCN-style super-resolution with PixelShuffle, and a spatial transformer (affine_grid + grid_sample).
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)


class ESPCN(nn.Module):
    def __init__(self, r=2):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, r * r, 3, padding=1)
        self.ps = nn.PixelShuffle(r)
        self.unps = nn.PixelUnshuffle(r)

    def forward(self, x):
        return self.ps(self.conv2(torch.tanh(self.conv1(x))))


sr = ESPCN()
with torch.no_grad():
    for p in sr.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.3, tuple(p.shape)), dtype=torch.float32))
lr_img = torch.tensor(rng.uniform(0, 1, (2, 1, 4, 4)), dtype=torch.float32)
hr_img = torch.tensor(rng.uniform(0, 1, (2, 1, 8, 8)), dtype=torch.float32)
out = sr(lr_img)
loss = F.l1_loss(out, hr_img) + F.mse_loss(F.interpolate(out, scale_factor=0.5, mode="bilinear", align_corners=False),
                                          lr_img)
loss.backward()
round_trip = torch.equal(sr.ps(sr.unps(hr_img)), hr_img)

theta = torch.tensor([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.05]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]],
                     dtype=torch.float32, requires_grad=True)
img = torch.tensor(rng.standard_normal((2, 2, 5, 6)), dtype=torch.float32, requires_grad=True)
grid = F.affine_grid(theta, list(img.size()), align_corners=False)
warped = F.grid_sample(img, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
grid2 = F.affine_grid(theta, [2, 2, 3, 4], align_corners=True)
warped2 = F.grid_sample(img, grid2, mode="nearest", padding_mode="border", align_corners=True)
(warped.square().sum() + warped2.sum()).backward()
RESULTS = {"out": out, "loss": loss, "g": sr.conv1.weight.grad, "round_trip": round_trip,
           "grid": grid, "warped": warped, "warped2": warped2, "theta_grad": theta.grad,
           "img_grad": img.grad, "ps_repr": repr(sr.ps)}
