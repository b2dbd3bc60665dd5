# Reinforcement-learning updates on recorded trajectories: REINFORCE with discounted, normalised
# returns (log_softmax + gather, no torch.distributions), and a DQN step with a target network,
# Huber loss, max(1)[0].detach(), gradient clamping of param.grad.data, and a Polyak soft update.
import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
GAMMA = 0.99


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 16)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(16, 2)

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        return F.softmax(self.affine2(F.relu(x)), dim=1)


policy = Policy()
with torch.no_grad():
    for p in policy.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
policy.eval()
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()
states = torch.tensor(rng.standard_normal((6, 4)), dtype=torch.float32)
actions = torch.tensor(rng.integers(0, 2, 6))
rewards = [1.0, 1.0, 0.0, 1.0, 1.0, -1.0]
R, returns = 0, []
for r in rewards[::-1]:
    R = r + GAMMA * R
    returns.insert(0, R)
returns = torch.tensor(returns)
returns = (returns - returns.mean()) / (returns.std() + eps)
probs = policy(states)
log_probs = torch.log(probs.gather(1, actions.unsqueeze(1)).squeeze(1))
policy_loss = (-log_probs * returns).sum()
opt.zero_grad()
policy_loss.backward()
opt.step()
entropy = -(probs * probs.log()).sum(1)

qnet = nn.Sequential(nn.Linear(4, 12), nn.ReLU(), nn.Linear(12, 3))
with torch.no_grad():
    for p in qnet.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
target = copy.deepcopy(qnet)
target.load_state_dict(qnet.state_dict())
target.eval()
qopt = torch.optim.RMSprop(qnet.parameters(), lr=1e-2)
s = torch.tensor(rng.standard_normal((5, 4)), dtype=torch.float32)
a = torch.tensor(rng.integers(0, 3, 5))
r = torch.tensor(rng.standard_normal(5), dtype=torch.float32)
s2 = torch.tensor(rng.standard_normal((5, 4)), dtype=torch.float32)
done = torch.tensor([0, 0, 1, 0, 1], dtype=torch.bool)
td = []
for it in range(3):
    q = qnet(s).gather(1, a.unsqueeze(1))
    non_final = ~done
    next_v = torch.zeros(5)
    with torch.no_grad():
        next_v[non_final] = target(s2[non_final]).max(1)[0]
    expected = r + GAMMA * next_v
    loss = F.smooth_l1_loss(q, expected.unsqueeze(1))
    qopt.zero_grad()
    loss.backward()
    for param in qnet.parameters():
        param.grad.data.clamp_(-0.1, 0.1)
    qopt.step()
    tau = 0.1
    tsd, psd = target.state_dict(), qnet.state_dict()
    for key in psd:
        tsd[key] = psd[key] * tau + tsd[key] * (1 - tau)
    target.load_state_dict(tsd)
    td.append(loss.item())
RESULTS = {"returns": returns, "policy_loss": policy_loss, "entropy": entropy, "w": policy.affine2.weight,
           "td": td, "target_w": target[2].weight, "greedy": qnet(s).argmax(1)}
TOL = 1e-3
