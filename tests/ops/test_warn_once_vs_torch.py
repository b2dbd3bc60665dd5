"""Note [warnings given once] (viewgrad/ops/warn_once.py): the deprecations PyTorch's C++
core gives with TORCH_WARN_ONCE appear once per process, word for word as torch 2.13's
(less its "(Triggered internally at ...)" suffix), pointing at the user's line. torch's
own texts are read in a fresh process, where none has been given yet."""
import json
import subprocess
import sys
import warnings

import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip
from viewgrad.ops import warn_once as W

pytestmark = pytest.mark.once   # (warning texts and process state: not per device)

CALLS = {   # key -> a call that gives it, written for either module as M
    "chain_matmul": "M.chain_matmul(M.eye(2), M.eye(2))",
    "lu": "M.lu(M.eye(2))",
    "lu_solve": "M.lu_solve(M.ones(2, 1), *M.linalg.lu_factor(M.eye(2)))",
    "adjoint_0d": "M.adjoint(M.tensor(2.0))",
    "typed_storage": "M.ones(2).storage()",
    "H_0d": "M.tensor(2.0).H",
    "triangular_solve": "M.triangular_solve(M.ones(2, 1), M.eye(2))",
    "qr": "M.qr(M.eye(2))",
    "cross": "M.cross(M.ones(3, 3), M.ones(3, 3))",
    "meshgrid": "M.meshgrid(M.ones(2), M.ones(2))",
    "index_reduce": "M.ones(2).index_reduce(0, M.tensor([0]), M.ones(1), 'prod')",
}

_TORCH = r"""
import json, sys, warnings, torch as M
out = {}
for key, call in json.loads(sys.argv[1]).items():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        eval(call); eval(call)
    out[key] = [str(x.message).split(" (Triggered internally at")[0] for x in w]
print(json.dumps(out))
"""


def _ours(key, calls=2):
    W._given.discard(key)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(calls):
            eval(CALLS[key], {"M": vg})
        eval(CALLS[key], {"M": vg})   # (another line: still nothing)
    return w


def test_the_texts_and_their_count_are_torchs():
    torch_or_skip()
    r = subprocess.run([sys.executable, "-c", _TORCH, json.dumps(CALLS)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    theirs = json.loads(r.stdout)
    assert set(theirs) == set(W.ONCE)
    for key in CALLS:
        assert theirs[key] == [W.ONCE[key]], (key, theirs[key])
        got = _ours(key)
        assert [str(x.message) for x in got] == [W.ONCE[key]], key
        # (pointing at the line that called the op: here the eval'd call)
        assert got[0].category is UserWarning and got[0].filename == "<string>", key


def test_once_means_once_until_forgotten():
    assert len(_ours("qr", calls=3)) == 1
    assert len(_ours("qr", calls=1)) == 1   # (_ours forgets it first: the warning again)


def test_lu_on_a_singular_matrix_returns_as_torch():
    # torch.lu never checks the pivots (PyTorch's _lu_with_info runs lu_factor_ex
    # unchecked): the factors and pivots of a singular matrix come back
    torch = torch_or_skip()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rows in ([[1.0, 1.0], [1.0, 1.0]], [[0.0] * 3] * 3, [[2.0, 4.0], [1.0, 2.0]]):
            ours, theirs = vg.lu(vg.tensor(rows)), torch.lu(torch.tensor(rows))
            assert [t.tolist() for t in ours] == [t.tolist() for t in theirs]
            LU, piv, info = vg.lu(vg.tensor(rows), get_infos=True)
            assert info.item() == torch.lu(torch.tensor(rows), get_infos=True)[2].item() > 0
