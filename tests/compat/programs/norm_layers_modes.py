# Normalisation layers in all their modes: BatchNorm momentum=None (cumulative average),
# track_running_stats=False, affine=False, eval switching, InstanceNorm with running stats,
# GroupNorm/LayerNorm without affine, reset_running_stats, Embedding(max_norm) renormalising.
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)


def batch(*shape):
    return torch.tensor(rng.standard_normal(shape) * 2 + 1, dtype=torch.float32)


R = {}
bn_cma = nn.BatchNorm1d(3, momentum=None)
for _ in range(3):
    bn_cma(batch(5, 3))
R["cma_mean"], R["cma_var"], R["cma_n"] = bn_cma.running_mean, bn_cma.running_var, bn_cma.num_batches_tracked
bn_nostats = nn.BatchNorm2d(2, track_running_stats=False, affine=False)
xb = batch(3, 2, 2, 2)
bn_nostats.eval()
R["nostats_eval"] = bn_nostats(xb)
R["nostats_buffers"] = [n for n, _ in bn_nostats.named_buffers()]
R["nostats_sd"] = list(bn_nostats.state_dict().keys())
bn = nn.BatchNorm1d(4, eps=1e-3, momentum=0.3)
with torch.no_grad():
    bn.weight.copy_(torch.tensor(rng.uniform(0.5, 1.5, 4), dtype=torch.float32))
    bn.bias.copy_(torch.tensor(rng.normal(0, 0.1, 4), dtype=torch.float32))
x3 = batch(6, 4, 3).requires_grad_()
out_train = bn(x3)
out_train.pow(2).sum().backward()
R["bn3d_grad"] = x3.grad
bn.eval()
R["bn_eval"] = bn(x3.detach())
bn.reset_running_stats()
R["after_reset"] = [bn.running_mean, bn.running_var, bn.num_batches_tracked]
inorm = nn.InstanceNorm1d(2, affine=True, track_running_stats=True)
xi = batch(3, 2, 5)
R["inorm_train"] = inorm(xi)
R["inorm_rm"] = inorm.running_mean
inorm.eval()
R["inorm_eval"] = inorm(xi)
R["gn"] = nn.GroupNorm(2, 4, affine=False)(batch(2, 4, 3))
R["ln_noaffine"] = nn.LayerNorm([2, 3], elementwise_affine=False)(batch(2, 2, 3))
R["ln_nobias"] = nn.LayerNorm(3, bias=False)(batch(2, 3))
R["rms"] = nn.RMSNorm(3)(batch(2, 3)) if hasattr(nn, "RMSNorm") else None
R["local_rn"] = nn.LocalResponseNorm(2)(batch(1, 4, 2, 2))

emb = nn.Embedding(6, 3, max_norm=1.0, norm_type=2.0)
with torch.no_grad():
    emb.weight.copy_(torch.tensor(rng.standard_normal((6, 3)) * 2, dtype=torch.float32))
idx = torch.tensor([[0, 2], [2, 5]])
e = emb(idx)
R["emb_out"] = e
R["emb_weight_after"] = emb.weight.detach().clone()
e.sum().backward()
R["emb_grad"] = emb.weight.grad
eb = nn.EmbeddingBag(6, 3, mode="max")
with torch.no_grad():
    eb.weight.copy_(torch.tensor(rng.standard_normal((6, 3)), dtype=torch.float32))
R["bag_max"] = eb(torch.tensor([1, 2, 4, 5, 0]), torch.tensor([0, 2]))
ebs = nn.EmbeddingBag.from_pretrained(eb.weight.detach(), mode="sum", freeze=False)
R["bag_psw"] = ebs(torch.tensor([[1, 2], [3, 3]]), per_sample_weights=torch.tensor([[0.5, 2.0], [1.0, -1.0]]))
R["pretrained_frozen"] = nn.Embedding.from_pretrained(torch.ones(2, 2)).weight.requires_grad
RESULTS = R
