"""Lazy modules against torch 2.13: ``nn.LazyLinear``, ``nn.LazyConv*``,
``nn.LazyConvTranspose*``, ``nn.LazyBatchNorm*``, ``nn.LazyInstanceNorm*``, the placeholders
``nn.parameter.UninitializedParameter`` / ``UninitializedBuffer`` and
``nn.modules.lazy.LazyModuleMixin``: the repr before and after the first call, the class
the module becomes, the shapes and (same seed) the values of the initialised parameters,
outputs and gradients with torch's weights copied in, state-dict round trips, and the
errors of an uninitialised parameter."""
import copy
import re

import numpy as np
import pytest

import viewgrad as vg
from viewgrad.nn.lazy import LazyModuleMixin as VgMixin

torch = pytest.importorskip("torch", reason="PyTorch (the test-only oracle) is not installed")
from torch.nn.modules.lazy import LazyModuleMixin as TorchMixin  # noqa: E402

# (class name, constructor args, kwargs, input shape)
CASES = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyLinear", (4,), {"bias": False}, (2, 3, 6)),
    ("LazyConv1d", (4, 3), {}, (2, 3, 8)),
    ("LazyConv1d", (4, 3), {"padding": 1, "padding_mode": "reflect"}, (3, 8)),
    ("LazyConv2d", (4, 3), {"groups": 2, "stride": 2}, (2, 6, 7, 7)),
    ("LazyConv2d", (2, (2, 3)), {"bias": False, "dilation": 2}, (1, 3, 8, 9)),
    ("LazyConv3d", (2, 2), {}, (2, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), {"stride": 2, "output_padding": 1}, (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3), {"groups": 2}, (2, 4, 5, 5)),
    ("LazyConvTranspose3d", (2, 2), {"bias": False}, (1, 3, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (6, 3)),
    ("LazyBatchNorm1d", (), {"affine": False}, (4, 3, 5)),
    ("LazyBatchNorm2d", (), {"momentum": 0.3}, (4, 3, 2, 2)),
    ("LazyBatchNorm3d", (), {"track_running_stats": False}, (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (4, 3, 5)),
    ("LazyInstanceNorm2d", (), {"affine": False, "track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"bias": False}, (2, 3, 2, 3, 2)),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def _input(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _pair(name, args, kwargs, seed=0):
    torch.manual_seed(seed)
    theirs = getattr(torch.nn, name)(*args, **kwargs)
    vg.manual_seed(seed)
    ours = getattr(vg.nn, name)(*args, **kwargs)
    return ours, theirs


def _np(t):
    return t.detach().cpu().numpy() if hasattr(t, "cpu") else t.detach().numpy()


def _state(m):
    return {k: _np(v) for k, v in m.state_dict().items()}


@pytest.mark.parametrize("name,args,kwargs,shape", CASES, ids=IDS)
def test_first_call_infers_sizes_and_becomes_the_layer(name, args, kwargs, shape):
    ours, theirs = _pair(name, args, kwargs)
    assert repr(ours) == repr(theirs)
    assert ours.has_uninitialized_params() == theirs.has_uninitialized_params()
    x = _input(shape)
    out_t = theirs(torch.tensor(x))
    out_v = ours(vg.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__ == name[len("Lazy"):]
    assert repr(ours) == repr(theirs)
    assert not isinstance(ours, VgMixin) or type(ours).__name__.startswith("Lazy")
    st_t, st_v = _state(theirs), _state(ours)
    assert list(st_v) == list(st_t)
    for k in st_t:
        assert st_v[k].shape == st_t[k].shape, k
        assert st_v[k].dtype == st_t[k].dtype, k
        # the same seed draws the same initial values (the non-lazy layer's init)
        np.testing.assert_allclose(st_v[k], st_t[k], rtol=1e-6, atol=1e-7, err_msg=k)
    assert [type(p).__name__ for p in ours.parameters()] == \
        [type(p).__name__ for p in theirs.parameters()]
    np.testing.assert_allclose(_np(out_v), _np(out_t), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,args,kwargs,shape", CASES, ids=IDS)
def test_outputs_and_gradients_with_torchs_weights(name, args, kwargs, shape):
    ours, theirs = _pair(name, args, kwargs, seed=1)
    x = _input(shape, seed=3)
    theirs(torch.tensor(x))
    ours(vg.tensor(x))
    # torch's initialised weights copied in: the layers must then compute the same
    ours.load_state_dict({k: vg.tensor(_np(v)) for k, v in theirs.state_dict().items()})
    x2 = _input(shape, seed=4)
    xt = torch.tensor(x2, requires_grad=True)
    xv = vg.tensor(x2, requires_grad=True)
    out_t, out_v = theirs(xt), ours(xv)
    w = _input(tuple(out_t.shape), seed=5)
    (out_t * torch.tensor(w)).sum().backward()
    (out_v * vg.tensor(w)).sum().backward()
    np.testing.assert_allclose(_np(out_v), _np(out_t), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_np(xv.grad), _np(xt.grad), rtol=1e-4, atol=1e-5)
    for (n, pv), (_, pt) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(_np(pv.grad), _np(pt.grad), rtol=1e-4, atol=1e-5,
                                   err_msg=n)
    for k, v in _state(theirs).items():   # (running statistics updated alike)
        np.testing.assert_allclose(_state(ours)[k], v, rtol=1e-5, atol=1e-6, err_msg=k)


def test_uninitialised_state_dict_and_repr_of_placeholders():
    for lib in (vg, torch):
        m = lib.nn.LazyBatchNorm2d()
        sd = m.state_dict()
        assert list(sd) == ["weight", "bias", "running_mean", "running_var",
                            "num_batches_tracked"]
        assert [repr(v) for v in list(sd.values())[:4]] == \
            ["<UninitializedParameter>"] * 2 + ["<UninitializedBuffer>"] * 2
        assert sd["weight"] is m.weight   # (a placeholder goes in itself)
        assert int(sd["num_batches_tracked"]) == 0
        assert isinstance(m.weight, lib.nn.Parameter)
        assert isinstance(m.weight, lib.nn.parameter.UninitializedParameter)
        assert isinstance(m.running_mean, lib.nn.parameter.UninitializedBuffer)
        assert lib.nn.parameter.is_lazy(m.weight) and not lib.nn.parameter.is_lazy(
            m.num_batches_tracked)


def test_loading_real_tensors_materialises_and_the_size_comes_at_the_call():
    src_t = torch.nn.Linear(4, 3)
    sd = {k: _np(v) for k, v in src_t.state_dict().items()}
    res = {}
    for lib in (vg, torch):
        m = lib.nn.LazyLinear(3)
        keys = m.load_state_dict({k: lib.tensor(v) for k, v in sd.items()})
        r = [repr(keys), type(m).__name__, type(m.weight).__name__, tuple(m.weight.shape),
             m.in_features, m.has_uninitialized_params()]
        m(lib.ones(2, 4))
        r += [type(m).__name__, m.in_features, repr(m)]
        np.testing.assert_allclose(_np(m.weight), sd["weight"])
        m2 = lib.nn.LazyLinear(3)
        m2.load_state_dict({k: lib.tensor(v) for k, v in sd.items()})
        with pytest.raises(AssertionError) as e:
            m2(lib.ones(2, 5))
        r.append(str(e.value))
        res[lib.__name__] = r
    assert res["viewgrad"] == res["torch"]
    assert res["torch"][4] == 0 and res["torch"][7] == 4


def test_lazy_into_lazy_stays_uninitialised_and_lazy_into_real_is_refused():
    for lib in (vg, torch):
        a, b = lib.nn.LazyConv2d(4, 3), lib.nn.LazyConv2d(4, 3)
        assert repr(b.load_state_dict(a.state_dict())) == "<All keys matched successfully>"
        assert b.has_uninitialized_params()
        assert type(b.weight).__name__ == "UninitializedParameter"
        with pytest.raises(RuntimeError) as e:
            lib.nn.Conv2d(2, 4, 3).load_state_dict(a.state_dict())
        assert str(e.value).startswith("Can't access the shape of an uninitialized parameter")
        # an initialised lazy module saves and loads as its layer
        b(lib.ones(1, 2, 5, 5))
        c = lib.nn.Conv2d(2, 4, 3)
        c.load_state_dict(b.state_dict())
        assert np.array_equal(_np(c.weight), _np(b.weight))


def _message(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001  (the point is which one)
        return type(e).__name__, str(e)
    return None, None


def _core(msg):
    # the op's repr differs (torch's C functions, viewgrad's Python ones): compared apart
    return re.sub(r" in <.*?>\. This error", " in <OP>. This error", msg)


@pytest.mark.parametrize("op,name", [
    (lambda p: p + 1, "add"), (lambda p: 2 * p, "mul"), (lambda p: p.sum(), "sum"),
    (lambda p: p.numel(), "numel"), (lambda p: p.detach(), "detach"),
    (lambda p: p.clone(), "clone"), (lambda p: -p, "neg"), (lambda p: p.view(-1), "view"),
    (lambda p: p.requires_grad_(False), "requires_grad_"), (lambda p: p.zero_(), "zero_"),
    (lambda p: p.item(), "item"), (lambda p: p.dim(), "dim"), (lambda p: p[0], "__getitem__"),
    (lambda p: bool(p), "__bool__")])
def test_using_a_placeholder_is_a_value_error_naming_the_op(op, name):
    got = {}
    for lib in (vg, torch):
        got[lib.__name__] = _message(lambda: op(lib.nn.parameter.UninitializedParameter()))
    kind, msg = got["viewgrad"]
    assert kind == got["torch"][0] == "ValueError"
    assert _core(msg) == _core(got["torch"][1])
    assert f"'{name}'" in msg and f"'{name}'" in got["torch"][1]


def test_functions_and_buffers_refuse_placeholders_too():
    for fn in (lambda lib, p: lib.nn.functional.linear(lib.ones(2, 2), p),
               lambda lib, p: lib.matmul(lib.ones(2), p),
               lambda lib, p: lib.nn.init.normal_(p)):
        got = [_message(lambda: fn(lib, lib.nn.parameter.UninitializedParameter()))
               for lib in (vg, torch)]
        assert got[0][0] == got[1][0] == "ValueError"
        assert _core(got[0][1]) == _core(got[1][1])
    got = [_message(lambda: lib.nn.parameter.UninitializedBuffer() * 2) for lib in (vg, torch)]
    assert got[0][0] == "ValueError" and _core(got[0][1]) == _core(got[1][1])
    assert "torch.nn.parameter.UninitializedBuffer" in got[0][1]


def test_what_a_placeholder_allows():
    for lib in (vg, torch):
        p = lib.nn.parameter.UninitializedParameter()
        with pytest.raises(RuntimeError, match=re.escape(
                "Can't access the shape of an uninitialized parameter or buffer. This error "
                "usually happens in `load_state_dict` when trying to load an uninitialized "
                "parameter into an initialized one. Call `forward` to initialize the "
                "parameters before accessing their attributes.")):
            p.shape
        assert (str(p.dtype).split(".")[-1], p.requires_grad, tuple(p.size()), p.is_leaf,
                p.grad, p.ndim, p.is_floating_point()) == \
            ("float32", True, (0,), True, None, 1, True)
        assert repr(p) == str(p) == "<UninitializedParameter>"
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being "
                                               "used in an in-place operation."):
            p.copy_(lib.ones(0))
        with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized"):
            p.share_memory_()
        q = copy.deepcopy(p)
        assert q is not p and type(q) is type(p)
        d = lib.nn.parameter.UninitializedParameter(dtype=lib.float64, requires_grad=False)
        assert str(d.dtype).endswith("float64") and not d.requires_grad
        b = lib.nn.parameter.UninitializedBuffer()
        assert not b.requires_grad and repr(b) == "<UninitializedBuffer>"
        assert type(b.double()).__name__ == "UninitializedBuffer"
        assert str(b.double().dtype).endswith("float64")
        assert type(p.double()).__name__ == "Tensor"   # (a Parameter's conversions: plain)
        p.materialize((2, 3))
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad


def test_module_conversions_and_dtype_before_the_first_call():
    for lib in (vg, torch):
        m = lib.nn.LazyBatchNorm1d()
        m.double()
        assert type(m.weight).__name__ == "UninitializedParameter"
        assert type(m.running_mean).__name__ == "UninitializedBuffer"
        assert str(m.running_mean.dtype).endswith("float64")
        m(lib.ones(4, 3, dtype=lib.float64))
        assert str(m.weight.dtype).endswith("float64") and tuple(m.running_var.shape) == (3,)
        lin = lib.nn.LazyLinear(2, dtype=lib.float64)
        lin(lib.ones(1, 3, dtype=lib.float64))
        assert str(lin.weight.dtype).endswith("float64")
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
            lib.nn.LazyLinear(3).requires_grad_(False)


@pytest.mark.parametrize("name,args,shape", [
    ("LazyConv2d", (4, 3), (3, 5)), ("LazyConv1d", (4, 3), (1, 2, 3, 5)),
    ("LazyConvTranspose3d", (2, 2), (2, 3))])
def test_conv_input_rank_error(name, args, shape):
    got = []
    for lib in (vg, torch):
        got.append(_message(lambda: getattr(lib.nn, name)(*args)(lib.ones(*shape))))
    assert got[0] == got[1] and got[0][0] == "RuntimeError"


def test_instance_norm_without_affine_keeps_num_features_0_and_warns_as_torch():
    got = []
    for lib in (vg, torch):
        m = lib.nn.LazyInstanceNorm1d(affine=False, track_running_stats=False)
        with pytest.warns(UserWarning) as rec:
            m(lib.ones(2, 3, 4))
        got.append((repr(m), [str(w.message) for w in rec]))
    assert got[0] == got[1] and got[0][0].startswith("InstanceNorm1d(0,")


def test_groups_and_unbatched_instance_norm_errors():
    got = []
    for lib in (vg, torch):
        got.append((_message(lambda: lib.nn.LazyConv2d(4, 3, groups=2)(lib.ones(1, 3, 5, 5))),
                    _message(lambda: lib.nn.LazyInstanceNorm1d()(lib.ones(3, 5)))))
    assert got[0] == got[1]
    assert got[0][0] == ("ValueError", "in_channels must be divisible by groups")
    assert got[0][1][0] == "ValueError"   # (num_features is read from dim 1, as PyTorch does)


def _custom(lib, mixin, init):
    class Scale(mixin, lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.parameter.UninitializedParameter()

        def forward(self, x):
            return x * self.w
    if init is not None:
        Scale.initialize_parameters = init
    return Scale()


def test_a_lazy_module_of_ones_own():
    def fill(self, x):
        self.w.materialize(x.shape)
        with self_lib["lib"].no_grad():
            self.w.fill_(2.0)
    self_lib = {}
    for lib, mixin in ((vg, VgMixin), (torch, TorchMixin)):
        self_lib["lib"] = lib
        assert _message(lambda: _custom(lib, mixin, None)(lib.ones(2))) == (
            "NotImplementedError", "initialize_parameters is not implemented for Scale")
        assert _message(lambda: _custom(lib, mixin, lambda self, x: None)(lib.ones(2))) == (
            "RuntimeError", "module Scale has not been fully initialized")
        m = _custom(lib, mixin, fill)
        out = m(lib.ones(3))
        assert type(m).__name__ == "Scale" and not m.has_uninitialized_params()
        assert _np(out).tolist() == [2.0, 2.0, 2.0]


def test_deepcopy_before_the_first_call_initialises_the_copy_only():
    for lib in (vg, torch):
        m = lib.nn.LazyLinear(2)
        c = copy.deepcopy(m)
        c(lib.ones(1, 5))
        assert type(c).__name__ == "Linear" and tuple(c.weight.shape) == (2, 5)
        assert type(m).__name__ == "LazyLinear" and m.has_uninitialized_params()


def test_training_a_lazy_sequential_as_torch():
    x = _input((8, 5), seed=7)
    y = _input((8, 2), seed=8)
    res = {}
    for lib in (vg, torch):
        lib.manual_seed(3)
        net = lib.nn.Sequential(lib.nn.LazyLinear(6), lib.nn.LazyBatchNorm1d(), lib.nn.ReLU(),
                                lib.nn.LazyLinear(2))
        net(lib.tensor(x))   # (the dry run that sizes it, before the optimizer is made)
        opt = lib.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(net(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        res[lib.__name__] = (repr(net), losses, _state(net))
    assert res["viewgrad"][0] == res["torch"][0]
    np.testing.assert_allclose(res["viewgrad"][1], res["torch"][1], rtol=1e-5)
    for k, v in res["torch"][2].items():
        np.testing.assert_allclose(res["viewgrad"][2][k], v, rtol=1e-4, atol=1e-6, err_msg=k)
