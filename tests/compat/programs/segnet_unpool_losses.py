# SegNet-style encoder/decoder with MaxPool2d(return_indices=True) + MaxUnpool2d, adaptive max
# pooling with indices, and a zoo of less common losses as research code uses them.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)


def T(*shape, scale=1.0, grad=False):
    return torch.tensor(rng.standard_normal(shape) * scale, dtype=torch.float32, requires_grad=grad)


class SegNetLite(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(1, 3, 3, padding=1)
        self.pool = nn.MaxPool2d(2, stride=2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2, stride=2)
        self.dec = nn.Conv2d(3, 2, 3, padding=1)

    def forward(self, x):
        h = F.relu(self.enc(x))
        size = h.size()
        p, idx = self.pool(h)
        u = self.unpool(p, idx, output_size=size)
        return self.dec(u), idx


net = SegNetLite()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
x = T(2, 1, 5, 6, grad=True)
out, idx = net(x)
target = torch.tensor(rng.integers(0, 2, (2, 5, 6)))
seg_loss = F.cross_entropy(out, target)
seg_loss.backward()
amp, aidx = F.adaptive_max_pool2d(T(1, 2, 5, 7), (2, 3), return_indices=True)

a, b = T(6, 4, grad=True), T(6, 4, grad=True)
lab = torch.tensor([1, -1, 1, 1, -1, -1])
mean, var = T(6, 2, grad=True), torch.tensor(rng.uniform(0.1, 2, (6, 2)), dtype=torch.float32, requires_grad=True)
tgt = T(6, 2)
rate = T(6, grad=True)
counts = torch.tensor(rng.poisson(2, 6), dtype=torch.float32)
logp = F.log_softmax(T(6, 5, grad=True), -1)
q_log = F.log_softmax(T(6, 5), -1)
losses = {
    "cos_emb": nn.CosineEmbeddingLoss(margin=0.2)(a, b, lab),
    "margin_rank": nn.MarginRankingLoss(margin=0.5)(a[:, 0], b[:, 0], lab),
    "triplet": nn.TripletMarginLoss(margin=1.0, p=2, swap=True)(a, b, T(6, 4)),
    "triplet_dist": nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: 1 - F.cosine_similarity(u, v),
                                                      margin=0.3)(a, b, T(6, 4)),
    "hinge": nn.HingeEmbeddingLoss(margin=1.5)(a[:, 0].abs(), lab),
    "gauss_nll": nn.GaussianNLLLoss(full=True, eps=1e-4)(mean, tgt, var),
    "gauss_nll_1col": F.gaussian_nll_loss(mean, tgt, var[:, :1]),
    "poisson_nll": nn.PoissonNLLLoss(log_input=True, full=True)(rate, counts),
    "kl_batchmean": nn.KLDivLoss(reduction="batchmean")(logp, q_log.exp()),
    "kl_logtarget": F.kl_div(logp, q_log, reduction="sum", log_target=True),
    "multilabel_soft": nn.MultiLabelSoftMarginLoss()(a, (b > 0).float()),
    "multi_margin": nn.MultiMarginLoss(p=2, margin=0.7)(a, torch.tensor([0, 1, 2, 3, 0, 1])),
    "soft_margin": nn.SoftMarginLoss()(a[:, 1], lab.float()),
    "bce_posw": nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1., 2., 3., 4.]))(a, (b > 0).float()),
    "l1_sum": nn.L1Loss(reduction="sum")(a, b),
    "huber": nn.HuberLoss(delta=0.3)(a, b),
}
total = sum(losses.values())
total.backward()
RESULTS = {"out": out, "idx": idx, "x_grad": x.grad, "seg_loss": seg_loss, "amp": amp, "aidx": aidx,
           "losses": losses, "a_grad": a.grad, "b_grad": b.grad, "var_grad": var.grad, "rate_grad": rate.grad,
           "is_loss": [isinstance(m, nn.modules.loss._Loss) for m in (nn.MSELoss(), nn.CrossEntropyLoss(), nn.BCELoss())],
           "unpool_repr": repr(net.unpool)}
