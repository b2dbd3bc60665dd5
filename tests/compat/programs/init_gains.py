# nn.init: gains and fans decide the bounds; constant/ones/zeros fill in place under no_grad.
import math
import torch
from torch import nn

gains = [nn.init.calculate_gain(n) for n in ("linear", "relu", "tanh", "sigmoid")]
gains.append(nn.init.calculate_gain("leaky_relu", 0.2))
w = torch.empty(3, 5)
nn.init.constant_(w, 0.3)
b = torch.empty(4)
nn.init.ones_(b)
lin = nn.Linear(5, 3)
nn.init.zeros_(lin.bias)
nn.init.xavier_uniform_(lin.weight)
bound = math.sqrt(6.0 / (5 + 3))
RESULTS = {"gains": gains, "w": w, "b": b, "bias": lin.bias,
           "in_bounds": bool((lin.weight.abs() <= bound).all()),
           "leaf": lin.weight.is_leaf, "version": w._version}
