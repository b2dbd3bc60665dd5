# A tiny encoder-decoder for images: Conv2d + InstanceNorm2d + PReLU, MaxPool2d with
# indices undone by MaxUnpool2d, bilinear nn.Upsample and F.interpolate(nearest), a
# PixelShuffle head, AdaptiveMaxPool2d; trained with MSE plus a TripletMarginLoss on
# pooled embeddings and a CosineEmbeddingLoss; also an EmbeddingBag text classifier step.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.InstanceNorm2d(4, affine=True),
                                 nn.PReLU(4))
        self.pool = nn.MaxPool2d(2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.head = nn.Sequential(nn.Conv2d(8, 4, 3, padding=1), nn.PixelShuffle(2),
                                  nn.Conv2d(1, 1, 3, stride=2, padding=1))
        self.embed = nn.AdaptiveMaxPool2d((2, 2))

    def forward(self, x):
        h = self.enc(x)
        p, idx = self.pool(h)
        a = self.unpool(p, idx)
        b = self.up(p) + F.interpolate(p, size=h.shape[-2:], mode="nearest")
        y = self.head(torch.cat([a, b], 1))
        return y, self.embed(h).flatten(1)


net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.4, tuple(p.shape)), dtype=torch.float32))
x = torch.tensor(rng.standard_normal((3, 1, 6, 6)), dtype=torch.float32)
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
triplet = nn.TripletMarginLoss(margin=0.5)
cosine = nn.CosineEmbeddingLoss(margin=0.1)
losses = []
for step in range(3):
    y, e = net(x)
    loss = F.mse_loss(y, x) + triplet(e[0:1], e[1:2], e[2:3]) + \
        cosine(e[:2], e[1:], torch.tensor([1.0, -1.0]))
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())

bag = nn.EmbeddingBag(10, 4, mode="mean")
fc = nn.Linear(4, 2)
with torch.no_grad():
    for p in list(bag.parameters()) + list(fc.parameters()):
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
text = torch.tensor([1, 4, 2, 9, 3, 3, 7])
offsets = torch.tensor([0, 2, 5])
logits = fc(bag(text, offsets))
ce = F.cross_entropy(logits, torch.tensor([0, 1, 1]))
ce.backward()
RESULTS = {"losses": losses, "y": y, "enc_w": net.enc[0].weight, "prelu": net.enc[2].weight,
           "logits": logits, "bag_grad": bag.weight.grad, "repr": repr(net)}
