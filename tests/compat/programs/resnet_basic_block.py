# ResNet BasicBlock (CIFAR style): BatchNorm train/eval switching, running stats, 1x1 downsample.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes, momentum=0.2)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, planes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.layer1 = BasicBlock(4, 4)
        self.layer2 = BasicBlock(4, 8, stride=2)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = F.relu(self.bn(self.stem(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.pool(x), 1))


model = TinyResNet()
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dim() > 1:
            p.copy_(torch.from_numpy(rng.normal(0, 0.4, p.shape).astype(np.float32)))
for m in model.modules():
    if isinstance(m, nn.BatchNorm2d):
        nn.init.constant_(m.weight, 1.0)
        nn.init.constant_(m.bias, 0.0)
nn.init.zeros_(model.fc.bias)

x = torch.from_numpy(rng.standard_normal((6, 3, 8, 8)).astype(np.float32))
y = torch.from_numpy(rng.integers(0, 4, 6))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4, nesterov=True)
losses = []
model.train()
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())

model.eval()
with torch.no_grad():
    eval_logits = model(x)
    acc = (eval_logits.argmax(dim=1) == y).float().mean().item()
model.train()
train_logits = model(x[:3])

RESULTS = {
    "losses": losses,
    "eval_logits": eval_logits,
    "acc": acc,
    "train_logits": train_logits,
    "rm": model.layer2.bn2.running_mean,
    "rv": model.layer2.shortcut[1].running_var,
    "nbt": model.layer1.bn1.num_batches_tracked.item(),
    "n_params": sum(p.numel() for p in model.parameters()),
    "n_buffers": len(list(model.buffers())),
    "sd_keys": [k for k in model.state_dict() if "layer2" in k],
}
TOL = 1e-3
