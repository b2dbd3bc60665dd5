"""save/load: tensors, state dicts and nested containers round-trip through a safe .npz
archive; anything pickled — PyTorch's own torch.save files included — is refused."""
import io
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import viewgrad as vg


def test_round_trip_of_nested_containers(tmp_path):
    obj = {"w": vg.tensor([[1.0, 2.0]], dtype=vg.float64), "n": 3, "f": 0.5, "s": "x",
           "none": None, "l": [vg.arange(3), (1, 2.5)], 7: OrderedDict(b=1, a=2),
           "g": vg.ones(2, requires_grad=True), "p": vg.nn.Parameter(vg.zeros(1))}
    path = tmp_path / "ckpt.pt"
    vg.save(obj, path)
    back = vg.load(path)
    assert back["w"].tolist() == [[1.0, 2.0]] and back["w"].dtype == vg.float64
    assert back["n"] == 3 and back["f"] == 0.5 and back["s"] == "x" and back["none"] is None
    assert back["l"][0].tolist() == [0, 1, 2] and back["l"][1] == (1, 2.5)
    assert isinstance(back[7], OrderedDict) and list(back[7]) == ["b", "a"]
    assert back["g"].requires_grad and back["g"].is_leaf
    assert isinstance(back["p"], vg.nn.Parameter)


def test_model_and_optimizer_state_dicts(tmp_path):
    torch_free = vg.nn.Sequential(vg.nn.Linear(2, 3), vg.nn.BatchNorm1d(3))
    opt = vg.optim.Adam(torch_free.parameters(), lr=0.1)
    torch_free(vg.randn(4, 2)).sum().backward()
    opt.step()
    buf = io.BytesIO()
    vg.save({"model": torch_free.state_dict(), "opt": opt.state_dict()}, buf)
    buf.seek(0)
    ck = vg.load(buf)
    m2 = vg.nn.Sequential(vg.nn.Linear(2, 3), vg.nn.BatchNorm1d(3))
    m2.load_state_dict(ck["model"])
    o2 = vg.optim.Adam(m2.parameters(), lr=0.1)
    o2.load_state_dict(ck["opt"])
    x = vg.randn(4, 2)
    torch_free.eval(), m2.eval()
    assert torch_free(x).tolist() == m2(x).tolist()
    assert o2.state_dict()["param_groups"][0]["betas"] == (0.9, 0.999)
    assert o2.state[m2[0].weight]["exp_avg"].tolist() == opt.state[
        torch_free[0].weight]["exp_avg"].tolist()


def test_refuses_pickles_and_other_objects(tmp_path):
    bad = tmp_path / "evil.pt"
    bad.write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(RuntimeError, match="is not a viewgrad archive .*never unpickles"):
        vg.load(bad)
    np.savez(tmp_path / "obj.npz", x=np.array([{"a": 1}], dtype=object))
    with pytest.raises(RuntimeError, match="pickled data"):
        vg.load(tmp_path / "obj.npz")
    with pytest.raises(TypeError, match=r"cannot store obj\['m'\], a .*Linear"):
        vg.save({"m": vg.nn.Linear(1, 1)}, tmp_path / "m.pt")


def test_refuses_a_pytorch_file(tmp_path):
    torch = pytest.importorskip("torch", reason="torch writes the file this test refuses")
    torch.save({"w": torch.ones(2)}, tmp_path / "t.pt")
    with pytest.raises(RuntimeError, match="PyTorch's torch.save"):
        vg.load(tmp_path / "t.pt")


def test_plain_npz_state_dicts_load(tmp_path):
    m = vg.nn.Linear(2, 2)
    vg.nn.save(m.state_dict(), tmp_path / "m.npz")
    sd = vg.load(tmp_path / "m.npz")
    assert list(sd) == ["weight", "bias"]


def test_views_saved_together_share_memory_again_like_torch():
    import io
    from tests.helpers import assert_same_as_torch

    def scenario(M):
        x = M.arange(6.0).reshape(2, 3)
        buf = io.BytesIO()
        M.save({"x": x, "v": x[:, 1:], "w": x.t(), "r": x[1], "e": M.ones(3, 1).expand(3, 2)},
               buf)
        buf.seek(0)
        d = M.load(buf)
        X, V, W, R, E = d["x"], d["v"], d["w"], d["r"], d["e"]
        geometry = [(t.stride(), t.storage_offset()) for t in (X, V, W, R, E)]
        V.mul_(10)              # one memory: the others see the write
        return (geometry, V._is_view(), V._base is X, X.tolist(), W.tolist(), R.tolist(),
                E.tolist())
    assert_same_as_torch(scenario)


def test_a_geometry_that_does_not_fit_its_storage_is_refused(tmp_path):
    import json
    import numpy as np
    p = tmp_path / "t.npz"
    vg.save([vg.arange(4.0)[1:]], p)
    with np.load(p) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(bytes(arrays["__meta__"]).decode())
    meta["root"][0]["geometry"] = [[5], [1], 1]
    arrays["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(p, **arrays)
    with pytest.raises(RuntimeError, match="does not fit its storage of 4 elements"):
        vg.load(p)
