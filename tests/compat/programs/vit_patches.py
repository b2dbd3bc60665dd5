# A tiny Vision Transformer: patches by F.unfold and by a strided Conv2d, a [CLS] token,
# learned position embeddings, pre-norm encoder with a final LayerNorm; fold() back as a check.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
IMG, P, C, D = 8, 4, 3, 12
N = (IMG // P) ** 2


class ViT(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.patch = nn.Conv2d(C, D, kernel_size=P, stride=P)
        self.cls = nn.Parameter(torch.zeros(1, 1, D))
        self.pos = nn.Parameter(torch.zeros(1, N + 1, D))
        layer = nn.TransformerEncoderLayer(D, 3, 24, dropout=0.0, activation=F.gelu,
                                           batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(D), enable_nested_tensor=False)
        self.head = nn.Linear(D, n_classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)             # B, N, D
        cls = self.cls.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1) + self.pos
        return self.head(self.enc(x)[:, 0])


vit = ViT()
with torch.no_grad():
    for p in vit.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.2, tuple(p.shape)), dtype=torch.float32))
imgs = torch.tensor(rng.standard_normal((3, C, IMG, IMG)), dtype=torch.float32)
labels = torch.tensor([1, 4, 0])
opt = torch.optim.AdamW(vit.parameters(), lr=1e-3, weight_decay=0.05)
hist = []
for _ in range(3):
    loss = F.cross_entropy(vit(imgs), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    hist.append(loss.item())

patches = F.unfold(imgs, kernel_size=P, stride=P)            # B, C*P*P, N
as_linear = patches.transpose(1, 2) @ vit.patch.weight.view(D, -1).t() + vit.patch.bias
same = torch.allclose(as_linear, vit.patch(imgs).flatten(2).transpose(1, 2), atol=1e-5)
refold = F.fold(patches, output_size=(IMG, IMG), kernel_size=P, stride=P)
overlap = F.fold(F.unfold(imgs, 3, padding=1), (IMG, IMG), 3, padding=1)
divisor = F.fold(F.unfold(torch.ones_like(imgs), 3, padding=1), (IMG, IMG), 3, padding=1)
x = imgs.clone().requires_grad_()
F.unfold(x, (2, 3), dilation=(1, 2), stride=(2, 1)).pow(2).sum().backward()
RESULTS = {"hist": hist, "same": same, "refold_equal": torch.equal(refold, imgs),
           "avg_equal": torch.allclose(overlap / divisor, imgs, atol=1e-6), "divisor": divisor[0, 0],
           "unfold_grad": x.grad, "cls_grad": vit.cls.grad, "pos_grad": vit.pos.grad[0, :2]}
TOL = 1e-3
