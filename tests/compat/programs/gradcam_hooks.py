# Grad-CAM with module hooks: a forward hook stores activations, a full backward hook stores the
# gradients; also register_forward_pre_hook input rewriting and hook handle removal.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(6, 3))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.4, tuple(p.shape)), dtype=torch.float32))
store = {}


def fwd_hook(module, inp, out):
    store["act"] = out.detach()
    store["inp_shapes"] = [tuple(i.shape) for i in inp]


def bwd_hook(module, grad_input, grad_output):
    store["grad"] = grad_output[0].detach()
    store["gin_none"] = [g is None for g in grad_input]


target_layer = net[2]
h1 = target_layer.register_forward_hook(fwd_hook)
h2 = target_layer.register_full_backward_hook(bwd_hook)
img = torch.tensor(rng.standard_normal((1, 3, 6, 6)), dtype=torch.float32, requires_grad=True)
logits = net(img)
cls = logits.argmax(dim=1).item()
net.zero_grad()
logits[0, cls].backward()
weights = store["grad"].mean(dim=(2, 3), keepdim=True)
cam = F.relu((weights * store["act"]).sum(1, keepdim=True))
cam = F.interpolate(cam, size=(12, 12), mode="bilinear", align_corners=False)
cam = (cam - cam.min()) / (cam.max() - cam.min() + 1e-8)
h1.remove()
h2.remove()
store.pop("act")
net(img)
still = "act" in store

calls = []
pre = net[0].register_forward_pre_hook(lambda m, args: (args[0] * 2,))
out_hook = net[6].register_forward_hook(lambda m, a, o: o + 1)
doubled = net(img)
pre.remove()
out_hook.remove()
plain = net(img)
lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor(rng.normal(0, 1, (2, 3)), dtype=torch.float32))
lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 0.5,))
xin = torch.ones(1, 3, requires_grad=True)
lin(xin).sum().backward()
RESULTS = {"cls": cls, "cam": cam, "weights": weights, "img_grad": img.grad,
           "gin_none": store["gin_none"], "inp_shapes": store["inp_shapes"], "still": still,
           "doubled": doubled, "plain": plain, "pre_hook_grad": xin.grad, "lin_w_grad": lin.weight.grad}
