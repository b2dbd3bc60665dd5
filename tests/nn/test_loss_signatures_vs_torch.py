"""The core losses take PyTorch's arguments in PyTorch's order — functional forms and
modules — including the deprecated ``size_average``/``reduce`` and the per-element
``weight`` of mse/l1/huber, with PyTorch's values."""
import inspect

import numpy as np
import pytest

import viewgrad as vg
import viewgrad.nn.functional as VF
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")

FUNCTIONS = ["mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "nll_loss",
             "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits"]
MODULES = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "BCELoss",
           "BCEWithLogitsLoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss"]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functional_signature_is_torchs(name):
    torch = torch_or_skip()
    theirs = list(inspect.signature(getattr(torch.nn.functional, name)).parameters)
    assert list(inspect.signature(getattr(VF, name)).parameters) == theirs


@pytest.mark.parametrize("name", MODULES)
def test_module_signature_is_torchs(name):
    torch = torch_or_skip()
    theirs = list(inspect.signature(getattr(torch.nn, name).__init__).parameters)
    assert list(inspect.signature(getattr(vg.nn, name).__init__).parameters) == theirs


LEGACY = [(None, None), (False, None), (None, False), (True, True), (False, True)]


@pytest.mark.parametrize("size_average,reduce", LEGACY)
def test_legacy_reduction_arguments_positionally(size_average, reduce):
    torch = torch_or_skip()
    rng = np.random.default_rng(2)
    a, b = rng.random((4, 3)), rng.random((4, 3))
    logits, target = rng.standard_normal((4, 3)), np.array([0, 2, 1, 1])
    for M, F in ((torch, torch.nn.functional), (vg, VF)):
        out = [F.mse_loss(M.tensor(a), M.tensor(b), size_average, reduce),
               F.l1_loss(M.tensor(a), M.tensor(b), size_average, reduce),
               F.cross_entropy(M.tensor(logits), M.tensor(target), None, size_average, -100,
                               reduce),
               F.nll_loss(M.tensor(logits), M.tensor(target), None, size_average, -100, reduce),
               F.binary_cross_entropy(M.tensor(a), M.tensor(b), None, size_average, reduce),
               M.nn.MSELoss(size_average, reduce)(M.tensor(a), M.tensor(b)),
               M.nn.CrossEntropyLoss(None, size_average, -100, reduce)(M.tensor(logits),
                                                                       M.tensor(target))]
        if M is torch:
            theirs = [o.numpy() for o in out]
        else:
            for o, t in zip(out, theirs):
                np.testing.assert_allclose(o.numpy(), t, rtol=1e-12)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_per_element_weights(name, reduction):
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    a, b, w = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.random((4, 3))
    res = []
    for M, F in ((torch, torch.nn.functional), (vg, VF)):
        x = M.tensor(a, requires_grad=True)
        loss = getattr(F, name)(x, M.tensor(b), reduction=reduction, weight=M.tensor(w))
        loss.sum().backward()
        res.append((loss.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-12)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-12)
    with pytest.raises(ValueError, match="Weights and input must have the same size"):
        getattr(VF, name)(vg.tensor(a), vg.tensor(b), weight=vg.ones(3))
