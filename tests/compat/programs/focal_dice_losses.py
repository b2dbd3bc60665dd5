# Segmentation losses: binary/multiclass focal loss and soft Dice, on a tiny 1x1-conv "UNet".
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)


class FocalLoss(nn.Module):
    def __init__(self, alpha=0.25, gamma=2.0, reduction="mean"):
        super().__init__()
        self.alpha, self.gamma, self.reduction = alpha, gamma, reduction

    def forward(self, inputs, targets):
        p = torch.sigmoid(inputs)
        ce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        loss = ce * ((1 - p_t) ** self.gamma)
        alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
        loss = alpha_t * loss
        return loss.mean() if self.reduction == "mean" else loss.sum()


def multiclass_focal(logits, target, gamma=2.0):
    logpt = F.log_softmax(logits, dim=1).gather(1, target.unsqueeze(1)).squeeze(1)
    pt = logpt.exp()
    return (-(1 - pt) ** gamma * logpt).mean()


def dice_loss(logits, target, num_classes, smooth=1.0):
    probs = logits.softmax(dim=1)
    onehot = F.one_hot(target, num_classes).permute(0, 3, 1, 2).float()
    dims = (0, 2, 3)
    inter = torch.sum(probs * onehot, dims)
    card = torch.sum(probs + onehot, dims)
    dice = (2. * inter + smooth) / (card + smooth)
    return 1 - dice.mean(), dice


seg = nn.Sequential(nn.Conv2d(2, 6, 3, padding=1), nn.ReLU(), nn.Conv2d(6, 3, 1))
with torch.no_grad():
    for p in seg.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
img = torch.tensor(rng.standard_normal((2, 2, 5, 5)), dtype=torch.float32)
mask = torch.tensor(rng.integers(0, 3, (2, 5, 5)))
logits = seg(img)
dl, per_class = dice_loss(logits, mask, 3)
mf = multiclass_focal(logits, mask)
bin_logits = logits[:, 0]
bin_target = (mask == 0).float()
fl = FocalLoss()(bin_logits, bin_target)
total = dl + mf + fl
total.backward()
RESULTS = {"dice": dl, "per_class": per_class, "mf": mf, "fl": fl, "total": total.item(),
           "g0": seg[0].weight.grad, "g2b": seg[2].bias.grad,
           "ce2d": F.cross_entropy(logits, mask, reduction="none"),
           "nll2d_w": F.nll_loss(F.log_softmax(logits, 1), mask, weight=torch.tensor([.2, 1., 3.]))}
