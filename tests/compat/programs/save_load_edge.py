# torch.save / torch.load beyond a plain state_dict: shared views, nested non-tensor payloads,
# dtype preservation, buffers (persistent or not), load_state_dict(assign=True), keep_vars, prefix.
import io
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(SEED)
R = {}
base = torch.tensor(rng.standard_normal(6), dtype=torch.float32)
view = base[2:5]
buf = io.BytesIO()
torch.save({"base": base, "view": view, "ints": torch.arange(3, dtype=torch.int32),
            "dbl": torch.ones(2, dtype=torch.float64), "flag": torch.tensor([True, False]),
            "list": [1, 2.5, "three"], "tuple": (torch.zeros(1), None), "nested": {"a": {"b": torch.ones(1)}}}, buf)
buf.seek(0)
obj = torch.load(buf)
obj["view"][0] = 100.0
R["shared"] = obj["base"]
R["dtypes"] = [obj["ints"].dtype == torch.int32, obj["dbl"].dtype == torch.float64, obj["flag"].dtype == torch.bool]
R["others"] = [obj["list"], obj["tuple"][1] is None, obj["nested"]["a"]["b"]]

# (a numpy array in the payload: viewgrad's save refuses it, by design: it never pickles)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.register_buffer("scale", torch.tensor([2.0, 3.0]))
        self.register_buffer("cache", torch.zeros(2), persistent=False)

    def forward(self, x):
        return self.fc(x) * self.scale + self.cache


net = Net()
with torch.no_grad():
    net.fc.weight.copy_(torch.tensor(rng.standard_normal((2, 2)), dtype=torch.float32))
    net.fc.bias.zero_()
    net.cache.fill_(1.0)
sd = net.state_dict()
R["keys"] = list(sd.keys())
net2 = Net()
old_w = net2.fc.weight
net2.load_state_dict(sd, assign=True)
R["assign_identity"] = net2.fc.weight is old_w
R["assign_is_param"] = isinstance(net2.fc.weight, nn.Parameter)
net3 = Net()
keep = net3.fc.weight
net3.load_state_dict(net.state_dict())   # (a fresh one: assign=True leaves a mark in sd._metadata)
R["copy_identity"] = net3.fc.weight is keep
R["net3_cache"] = net3.cache
x = torch.tensor(rng.standard_normal((3, 2)), dtype=torch.float32)
R["out_equal"] = torch.equal(net2(x) - net2.cache, net(x) - net.cache)
dnet = Net().double()
R["double"] = [p.dtype == torch.float64 for p in dnet.parameters()] + [dnet.scale.dtype == torch.float64]
buf = io.BytesIO()
torch.save(dnet.state_dict(), buf)
buf.seek(0)
net4 = Net()
net4.load_state_dict(torch.load(buf))
R["loaded_cast"] = net4.fc.weight.dtype == torch.float32
R["sd_detached"] = [v.requires_grad for v in net.state_dict().values()]
R["keep_vars"] = [v.requires_grad for v in net.state_dict(keep_vars=True).values()]
R["prefix"] = list(net.state_dict(prefix="model.").keys())
# (pickling a module: refused by design in viewgrad, which never pickles)
RESULTS = R
