"""A Module's everyday API against PyTorch's: load_state_dict's result and errors,
dotted lookups (get_submodule, get_parameter, get_buffer), conversions (double, half),
containers, and the errors of layers called with the wrong shapes — the same values, the
same exception types, PyTorch's words first."""
import warnings

import pytest

from tests.helpers import torch_or_skip, wording

CODES = [
 "nn.Linear(2,3).load_state_dict({'weight': M.zeros(3,2), 'bias': M.zeros(3)})",
 "nn.Linear(2,3).load_state_dict({'weight': M.zeros(3,2)}, strict=False)",
 "nn.Linear(2,3).load_state_dict({'weight': M.zeros(3,2)})",
 "nn.Linear(2,3).load_state_dict({'weight': M.zeros(3,2), 'bias': M.zeros(3), 'extra': M.zeros(1)})",
 "nn.Linear(2,3).load_state_dict({'weight': M.zeros(2,2), 'bias': M.zeros(3)})",
 "nn.Sequential(nn.Linear(2,3), nn.ReLU()).train(False).training",
 "[n for n,_ in nn.Sequential(nn.Linear(2,3), nn.Sequential(nn.ReLU(), nn.Linear(3,1))).named_modules()]",
 "[n for n,_ in nn.Sequential(nn.Linear(2,3), nn.Sequential(nn.ReLU(), nn.Linear(3,1))).named_parameters(prefix='m')]",
 "list(nn.Sequential(nn.Linear(2,3)).state_dict(prefix='x.').keys())",
 "nn.Linear(2,3).requires_grad_(False).weight.requires_grad",
 "nn.Sequential(nn.Linear(2,3), nn.ReLU())[0]",
 "nn.Sequential(nn.Linear(2,3), nn.ReLU())[-1:]",
 "len(nn.Sequential(nn.Linear(2,3), nn.ReLU()))",
 "nn.ModuleList([nn.Linear(2,3)]).append(nn.ReLU())",
 "nn.Linear(2,3).get_parameter('weight').shape",
 "nn.Sequential(nn.Linear(2,3)).get_submodule('0')",
 "sum(p.numel() for p in nn.Linear(5,3).parameters())",
 "nn.Linear(2,3).to(M.float64).weight.dtype",
 "nn.Linear(2,3).double().bias.dtype",
 "nn.Linear(2,3).half().weight.dtype",
 "type(nn.Linear(2,3).state_dict()).__name__",
 "nn.Linear(2,3).state_dict(keep_vars=True)['weight'].requires_grad",
 "nn.Linear(2,3).state_dict()['weight'].requires_grad",
 "nn.BatchNorm1d(3).eval().training",
 "nn.Dropout(0.5).extra_repr()",
 "nn.Linear(2,3).apply(lambda m: None).__class__.__name__",
 "list(nn.Sequential(nn.Linear(2,3), nn.ReLU()).children())",
 "nn.Sequential(nn.Linear(2,3), nn.ReLU()).zero_grad()",
 "nn.Linear(2,3).register_buffer('b', M.zeros(1), persistent=False)",
 "nn.utils.clip_grad_norm_(nn.Linear(2,3).parameters(), 1.0)",
 "nn.utils.parameters_to_vector(nn.Linear(2,3).parameters()).shape",
 "nn.Linear(2,3,bias=False).bias",
 "nn.Linear(2,3).weight.grad",
 "nn.Identity()(M.ones(2))",
 "nn.Flatten()(M.ones(2,3,4)).shape",
 "nn.Linear(2,3)(M.ones(4,5))",
 "nn.Conv2d(2,3,3)(M.ones(1,4,5,5))",
 "nn.Embedding(3,2)(M.tensor([3]))",
 "nn.CrossEntropyLoss()(M.ones(2,3), M.tensor([0,3]))",
 "nn.MSELoss()(M.ones(2,3), M.ones(3,2))",
]

# viewgrad's dtypes are NumPy's (repr "dtype('float64')" where PyTorch's is torch.float64)
_DTYPES = {"nn.Linear(2,3).to(M.float64).weight.dtype", "nn.Linear(2,3).double().bias.dtype",
           "nn.Linear(2,3).half().weight.dtype"}


def _run(M, code):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            v = eval(code, {"M": M, "nn": M.nn})   # noqa: S307 - the sweep's own code
        except Exception as e:   # noqa: BLE001 - compared
            return ("raise", type(e).__name__, wording(str(e)))
    if code in _DTYPES:
        return ("ok", str(v).replace("dtype('", "").replace("')", "").split(".")[-1])
    r = repr(v).replace(", device='strict'", "")   # (the test device's name)
    return ("ok", r.replace("torch.", "viewgrad.").replace("torch", "viewgrad"))


@pytest.mark.parametrize("code", CODES)
def test_module_api_is_torchs(code):
    torch = torch_or_skip()
    import viewgrad as vg
    ours, theirs = _run(vg, code), _run(torch, code)
    assert ours == theirs


LOOKUP_ERRORS = ["nn.Sequential(nn.Linear(2,3)).get_submodule('1')",
                 "nn.Sequential(nn.Linear(2,3)).get_submodule('0.weight')",
                 "nn.Sequential(nn.Linear(2,3)).get_parameter('0.nope')",
                 "nn.Sequential(nn.BatchNorm1d(3)).get_parameter('0.running_mean')",
                 "nn.Sequential(nn.BatchNorm1d(3)).get_buffer('0.weight')",
                 "nn.Sequential(nn.BatchNorm1d(3)).get_buffer('0.running_var').shape",
                 "nn.Sequential(nn.Sequential(nn.Linear(2,3))).get_submodule('0.0')",
                 "nn.Linear(2,3).get_submodule('')"]


@pytest.mark.parametrize("code", LOOKUP_ERRORS)
def test_dotted_lookups_are_torchs(code):
    torch = torch_or_skip()
    import viewgrad as vg
    assert _run(vg, code) == _run(torch, code)
