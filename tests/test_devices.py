"""Devices (DESIGN §10, issue 8): cpu, cuda through CuPy, and the strict test devices.

The whole suite already runs on every test device (tests/conftest.py). The tests here are
about devices themselves: factories with ``device=``, moves (``to``/``cuda``/``cpu``),
the mixing errors, ``.numpy()`` on a device tensor, the strict arrays' refusals, every
derivatives-table sample on a device against the cpu result, views + in-place (CopySlices
in geometry mode and in forced view replay), AccumulateGrad's layout contract, and that
no op relies on the default device.

Tests that name their devices themselves are marked ``once``: they run in the first pass
only (their own parametrization covers the devices).
"""
import inspect
import os

import numpy as np
import pytest

import viewgrad as vg
from viewgrad import backend as B
from viewgrad.ops.table import OPS

from .ops.samples import SAMPLES

CUDA_WHY = B.cuda_unavailable_reason()
DEVICES = ["strict", "strict_nostride"] + ([] if CUDA_WHY else ["cuda"])
ONCE = pytest.mark.once


@pytest.fixture
def on_cpu_default():
    """Default device cpu for this test (the pass's default comes back after)."""
    prev = B.get_default_device()
    B.set_default_device("cpu")
    yield
    B.set_default_device(prev)


def host(t):
    return t.detach().cpu().numpy()


# -- the cuda pass ---------------------------------------------------------------------------

@ONCE
def test_cuda_pass():
    """Says, in the summary, why the suite did not run on cuda here."""
    if CUDA_WHY:
        pytest.skip(f"no cuda pass on this machine: {CUDA_WHY}")
    x = vg.randn(64, 32, device="cuda", requires_grad=True)
    (x @ x.t()).relu().sum().backward()
    assert x.grad.device.type == "cuda" and x.grad.is_cuda


# -- devices and factories ---------------------------------------------------------------------

@ONCE
def test_device_objects():
    assert vg.device("cpu") is B.cpu and vg.device(None) is B.get_default_device()
    s = vg.device("strict")
    assert s == "strict" and str(s) == "strict" and repr(s) == "device(type='strict')"
    assert s != vg.device("strict_nostride") and s.as_strided is not None
    assert vg.device("strict_nostride").as_strided is None
    with pytest.raises(RuntimeError, match="Expected one of .*cpu.*cuda.*strict.* device type"):
        vg.device("tpu")


@ONCE
def test_cuda_unavailable_is_explained():
    if not CUDA_WHY:
        pytest.skip("cuda is available here")
    assert not vg.cuda.is_available()
    with pytest.raises(RuntimeError, match="needs CuPy and a GPU"):
        vg.zeros(2, device="cuda")
    with pytest.raises(RuntimeError, match="needs CuPy and a GPU"):
        vg.ones(2).cuda()


@ONCE
@pytest.mark.parametrize("dev", DEVICES)
def test_factories_take_device(dev, on_cpu_default):
    d = vg.device(dev)
    vg.manual_seed(3)
    cpu_r = vg.randn(2, 3)
    vg.manual_seed(3)
    made = {
        "tensor": vg.tensor([[1.0, 2.0]], device=dev),
        "zeros": vg.zeros(2, 3, device=dev), "ones": vg.ones((2,), device=dev),
        "full": vg.full((2, 2), 7.0, device=dev), "empty": vg.empty(3, device=dev),
        "arange": vg.arange(5, device=dev), "linspace": vg.linspace(0, 1, 5, device=dev),
        "eye": vg.eye(3, device=dev), "randn": vg.randn(2, 3, device=dev),
        "rand": vg.rand(2, device=dev), "randint": vg.randint(0, 5, (3,), device=dev),
        "empty_strided": vg.empty_strided((2, 3), (1, 2), device=dev),
        "as_tensor": vg.as_tensor([1, 2], device=dev),
    }
    src = vg.zeros(2, 2, device=dev)
    for f in ("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"):
        made[f] = getattr(vg, f)(src)
    made["full_like"] = vg.full_like(src, 3.0)
    for name, t in made.items():
        assert t.device == d, name
        assert type(t._data) in d.array_types, name
    assert made["randn"].tolist() == cpu_r.tolist()      # one host generator for all devices
    assert made["arange"].dtype == vg.int64 and made["zeros"].dtype == vg.float32
    assert vg.tensor([1.0]).device == B.cpu              # default device is cpu here
    if d.as_strided is not None:
        assert made["empty_strided"].stride() == (1, 2)


@ONCE
@pytest.mark.parametrize("dev", DEVICES)
def test_default_device_follows_set_default_device(dev):
    prev = B.get_default_device()
    try:
        B.set_default_device(dev)
        for t in (vg.tensor([1.0]), vg.zeros(2), vg.randn(2), vg.arange(3), vg.Tensor([1.0])):
            assert t.device.type == dev
        B.set_default_device(None)
        assert vg.zeros(1).device is B.cpu
    finally:
        B.set_default_device(prev)


# -- moving between devices -------------------------------------------------------------------

@ONCE
@pytest.mark.parametrize("dev", DEVICES)
def test_to_and_cpu_round_trip_with_gradients(dev, on_cpu_default):
    x = vg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x.to(dev)
    assert y.device.type == dev and y.grad_fn.name() == "ToCopyBackward0"
    z = (y * y).cpu()
    assert z.device is B.cpu and z.tolist() == [1.0, 4.0, 9.0]
    z.sum().backward()
    assert x.grad.device is B.cpu and x.grad.tolist() == [2.0, -4.0, 6.0]
    assert x.to(dev).to(dev).device.type == dev
    assert y.to("cpu").to(vg.float64).dtype == vg.float64
    w = vg.ones(2, device=dev)
    assert x.to(w).device == w.device
    leaf = vg.ones(2, requires_grad=True, device=dev)
    (leaf.cpu() * 3).sum().backward()
    assert leaf.grad.device.type == dev and leaf.grad.tolist() == [3.0, 3.0]


@ONCE
@pytest.mark.parametrize("dev", DEVICES)
def test_numpy_on_a_device_tensor_says_cpu_first(dev):
    t = vg.ones(2, device=dev)
    with pytest.raises(TypeError, match=r"can't convert .* to numpy. Use Tensor.cpu\(\)"):
        t.numpy()
    assert t.cpu().numpy().tolist() == [1.0, 1.0]
    assert np.asarray(t).tolist() == [1.0, 1.0]     # __array__ copies to the host
    assert "device='" + dev + "'" in repr(t)


# -- mixing devices is an error naming both ----------------------------------------------------

MIXED = {
    "add": lambda a, b: a + b, "mul": lambda a, b: a * b, "sub": lambda a, b: b - a,
    "div": lambda a, b: a / b, "pow": lambda a, b: a ** b,
    "matmul": lambda a, b: a.view(1, 3) @ b.view(3, 1), "mm": lambda a, b: vg.mm(
        a.view(1, 3), b.view(3, 1)), "dot": lambda a, b: vg.dot(a, b),
    "cat": lambda a, b: vg.cat([a, b]), "stack": lambda a, b: vg.stack([a, b]),
    "where": lambda a, b: vg.where(a > 0, a, b), "where_cond": lambda a, b: vg.where(
        b > 0, a, a), "maximum_cmp": lambda a, b: a > b,
    "add_": lambda a, b: a.add_(b), "mul_": lambda a, b: a.mul_(b),
    "masked_fill_": lambda a, b: a.masked_fill_(b > 0, 1.0),
    "mse_loss": lambda a, b: vg.ops.nnops.mse_loss(a, b),
    "gather": lambda a, b: a.gather(0, vg.zeros(2, dtype=vg.int64, device=b.device)),
    "linear": lambda a, b: vg.ops.nnops.linear(a.view(1, 3), b.view(1, 3)),
}


@ONCE
@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", sorted(MIXED))
def test_mixing_devices_names_both(op, dev, on_cpu_default):
    a = vg.tensor([1.0, 2.0, 3.0])
    b = vg.tensor([3.0, 2.0, 1.0], device=dev)
    with pytest.raises(RuntimeError, match=f"Expected all tensors to be on the same device.*"
                                           f"(cpu and {dev}|{dev} and cpu)"):
        MIXED[op](a, b)


@ONCE
def test_two_strict_devices_do_not_mix_either():
    a = vg.ones(3, device="strict")
    b = vg.ones(3, device="strict_nostride")
    with pytest.raises(RuntimeError, match="strict and strict_nostride"):
        a + b
    with pytest.raises(TypeError, match="were mixed in one operation"):
        a._data + b._data


@ONCE
@pytest.mark.parametrize("dev", DEVICES)
def test_cpu_indices_and_cross_device_copy_are_allowed(dev, on_cpu_default):
    """As PyTorch: index tensors may live on the cpu; copy_ moves between devices."""
    x = vg.arange(6.0, device=dev).view(2, 3)
    assert x[vg.tensor([1, 0])].device.type == dev
    assert x[vg.tensor([1, 0])].tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]
    assert x[:, [2, 0]].tolist() == [[2.0, 0.0], [5.0, 3.0]]
    x[vg.tensor([0])] = 9.0
    x.copy_(vg.tensor([[1.0, 2.0, 3.0]]))
    assert x.tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    x[0] = vg.tensor([7.0, 8.0, 9.0])
    assert x.tolist()[0] == [7.0, 8.0, 9.0]


# -- the strict arrays refuse host numpy ------------------------------------------------------

@ONCE
@pytest.mark.parametrize("dev", ["strict", "strict_nostride"])
def test_strict_arrays_refuse_host_numpy(dev):
    d = vg.device(dev)
    a = d.xp.arange(6.0).reshape(2, 3)
    host_arr = np.ones((2, 3))
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        np.asarray(a)
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.array([a, a])
    for bad in (lambda: a + host_arr, lambda: host_arr * a, lambda: d.xp.where(a > 1, host_arr, a),
                lambda: a.__setitem__(np.array([0]), 1.0), lambda: d.xp.concatenate([a, host_arr]),
                lambda: np.add(a, host_arr), lambda: d.as_strided(host_arr, (2,), (8,))
                if d.as_strided else d.to_host(host_arr)):
        with pytest.raises(TypeError, match="plain numpy|Unsupported type"):
            bad()
    # what CuPy allows, strict allows
    assert (a * np.float32(2) + 1).tolist() == [[1.0, 3.0, 5.0], [7.0, 9.0, 11.0]]
    assert type(np.exp(a)) is type(a) and type(np.where(a > 1, a, 0.0)) is type(a)
    assert type(a.sum()) is type(a) and a.sum().ndim == 0    # never a numpy scalar
    assert type(a[0, 1]) is type(a) and float(a[0, 1]) == 1.0 and a[1, 2].item() == 5.0
    assert type(d.xp.asarray(host_arr)) is type(a)           # explicit host -> device copy
    assert d.to_host(a).tolist() == a.tolist() and type(d.to_host(a)) is np.ndarray
    v = a[:, 1]
    v[...] = 0.0                                              # views share memory
    assert a.tolist() == [[0.0, 0.0, 2.0], [3.0, 0.0, 5.0]]


@pytest.mark.parametrize("dev", ["strict", "strict_nostride"])
def test_strict_arrays_have_cupys_api_where_numpys_is_wider(dev):
    """What the first run on a GPU found (every backward failed on cuda): strict answers
    as CuPy does where numpy accepts more, so the cpu-only CI catches such code."""
    d = vg.device(dev)
    a = d.xp.arange(6.0).reshape(2, 3)
    f = a.flags   # CuPy's Flags: no writeable (a CuPy array is always writable)
    assert (f.c_contiguous, f.f_contiguous, f.owndata, f["C_CONTIGUOUS"]) == (
        True, False, False, True)
    assert not hasattr(f, "writeable") and B.writeable(a) and not B.writeable(
        np.broadcast_to(np.ones(1), (2,)))
    with pytest.raises(TypeError):            # cupy.indices has no sparse=
        d.xp.indices((2, 3), sparse=True)
    z = d.xp.asarray(np.array(2.0))
    for bad in (lambda: z.max(axis=0), lambda: z.argmax(0), lambda: d.xp.sum(z, 0),
                lambda: d.xp.argmin(z, axis=-1)):
        with pytest.raises(np.exceptions.AxisError, match="0-d array takes no axis"):
            bad()
    assert float(z.max()) == 2.0 and float(d.xp.sum(z, axis=())) == 2.0


@pytest.mark.parametrize("dev", DEVICES)
def test_zero_dim_reductions_negative_zero_and_multiply_scatter_on_device(dev):
    """The ops the cuda pass found wrong, on every device, against the cpu's answers."""
    x = vg.tensor(2.0, device=dev, requires_grad=True)
    assert [x.argmax(0).item(), x.max(0).values.item(), x.softmax(0).item()] == [0, 2.0, 1.0]
    x.log_softmax(-1).backward()
    assert x.grad.item() == 0.0
    for t in (vg.tensor(-0.0, device=dev), vg.full((2,), -0.0, device=dev),
              vg.zeros(2, device=dev).fill_(-0.0), vg.tensor([-0.0, 1.0], device=dev)[:1]):
        assert np.signbit(t.cpu().numpy()).all()
    assert np.signbit(vg.tensor([-0.0], device=dev).clamp(min=0.0).cpu().numpy()).all()
    out = vg.ones(2, 3, device=dev).scatter(0, vg.tensor([[0, 0, 1], [0, 1, 1]], device=dev),
                                            vg.full((2, 3), 3.0, device=dev), reduce="multiply")
    assert out.tolist() == [[9.0, 3.0, 1.0], [1.0, 3.0, 9.0]]
    assert vg.tensor([-1.7, 300.2], device=dev).to(vg.uint8).tolist() == [255, 44]
    assert vg.tensor([-2.675], device=dev).round(decimals=2).tolist() == pytest.approx([-2.68])
    with pytest.raises(vg.linalg.LinAlgError, match="diagonal element 3 is zero"):
        vg.linalg.inv(vg.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
                                device=dev))
    a = vg.eye(3, device=dev).expand(2, 3, 3)
    assert vg.linalg.solve(a, vg.ones(3, 1, device=dev)).shape == (2, 3, 1)


@ONCE
def test_strict_device_catches_a_host_leak():
    """A forward that builds a host array (np.zeros) instead of using xp fails on strict,
    as it would on cuda, and works on cpu: this is why the suite runs on strict."""
    from viewgrad.ops.table import defop, dispatch
    op = OPS.get("_test_leaky") or defop(
        "_test_leaky", "LeakyBackward0", lambda self: self + np.zeros(self.shape, self.dtype),
        self=lambda grad: grad)
    SAMPLES.setdefault("_test_leaky", [])   # keep the gradcheck sweep's coverage test happy
    try:
        assert dispatch(op, (vg.ones(2, device="cpu"),)).tolist() == [1.0, 1.0]
        with pytest.raises(TypeError, match="plain numpy"):
            dispatch(op, (vg.ones(2, device="strict"),))
    finally:
        OPS.pop("_test_leaky", None)
        SAMPLES.pop("_test_leaky", None)


# -- every derivatives-table sample on every device ---------------------------------------------

def _make_host(spec, rng):
    kind, shape = spec if isinstance(spec, tuple) and spec and isinstance(spec[0], str) \
        else ("any", spec)
    a = rng.standard_normal(shape)
    if kind == "pos":
        a = np.abs(a) + 0.5
    elif kind == "away":
        a = np.where(np.abs(a) < 0.2, np.sign(a + 1e-9) * 0.3 + a, a)
    return a


def _sample_cases():
    for name in sorted(SAMPLES):
        for i, case in enumerate(SAMPLES[name]):
            yield pytest.param(name, case[0], case[1], id=f"{name}-{i}")


def _run_sample(fn, hosts, dev):
    ins = [vg.tensor(h, dtype=vg.float64, device=dev, requires_grad=True) for h in hosts]
    vg.manual_seed(0)
    out = fn(*ins)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    outs = [o for o in outs if isinstance(o, vg.Tensor) and o.is_floating_point()]
    loss = None
    for k, o in enumerate(outs):
        w = vg.tensor(np.linspace(-1, 1, max(o.numel(), 1)).reshape(o.shape) if o.numel()
                      else np.zeros(o.shape), dtype=vg.float64, device=dev)
        term = (o * w).sum() * (k + 1)
        loss = term if loss is None else loss + term
    vals = [host(o) for o in outs]
    grads = []
    if loss is not None and loss.requires_grad:
        loss.backward()
        grads = [None if x.grad is None else host(x.grad) for x in ins]
        for x in ins:
            if x.grad is not None:
                assert x.grad.device.type == dev, "a gradient came back on another device"
    return vals, grads


@ONCE
@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name,fn,specs", list(_sample_cases()))
def test_every_op_on_device_matches_cpu(name, fn, specs, dev):
    """Forward values and gradients of every derivatives-table sample, on ``dev`` (it is
    the default device meanwhile, so the samples' index tensors land there too) and on cpu."""
    rng = np.random.default_rng(sum(map(ord, name)))
    hosts = [_make_host(s, rng) for s in specs]
    if name.startswith("as_strided") and vg.device(dev).as_strided is None:
        # as_strided, as_strided_ and as_strided_scatter need the device's as_strided:
        # without it they say so, naming the device
        with pytest.raises(RuntimeError, match=f"{name.rstrip('_')} is not supported on "
                                               f"device {dev}"):
            _run_sample(fn, hosts, dev)
        return
    prev = B.get_default_device()
    try:
        B.set_default_device("cpu")
        want_v, want_g = _run_sample(fn, hosts, "cpu")
        B.set_default_device(dev)
        got_v, got_g = _run_sample(fn, hosts, dev)
    finally:
        B.set_default_device(prev)
    assert len(got_v) == len(want_v)
    for g, w in zip(got_v, want_v):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    assert [g is None for g in got_g] == [w is None for w in want_g]
    for g, w in zip(got_g, want_g):
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


_LIB = os.path.dirname(vg.__file__)
_CORE = tuple(os.path.join(_LIB, p) + os.sep for p in ("ops", "autograd"))
_FACTORY_FILES = {*(os.path.join(_LIB, "backend", f) for f in os.listdir(os.path.join(_LIB, "backend"))),
                  os.path.join(_LIB, "tensor.py"),
                  os.path.join(_LIB, "ops", "factories.py"),
                  os.path.join(_LIB, "ops", "signatures.py"),
                  os.path.join(_LIB, "ops", "out_variants.py")}   # (the factories' wrappers)


@ONCE
@pytest.mark.parametrize("name,fn,specs", list(_sample_cases()))
def test_no_op_relies_on_the_default_device(name, fn, specs, monkeypatch):
    """Ops and autograd make their tensors on their inputs' device, never on the default
    device: with tensors on 'strict' and the default elsewhere, an op that calls
    ``zeros(shape)`` without ``device=`` would build a cpu tensor (a bug on cuda). The
    samples run with default 'strict'; every use of the default device is traced back to
    its caller, and callers inside viewgrad/ops or viewgrad/autograd fail the test."""
    culprits = []
    real = B.device

    def spying_device(spec=None):
        if spec is None:
            for fr in inspect.stack(context=0)[1:]:
                f = fr.filename
                if f in _FACTORY_FILES:
                    continue
                if f.startswith(_CORE):
                    culprits.append(f"{os.path.relpath(f, _LIB)}:{fr.lineno} in {fr.function}")
                break
        return real(spec)

    rng = np.random.default_rng(sum(map(ord, name)))
    hosts = [_make_host(s, rng) for s in specs]
    prev = B.get_default_device()
    monkeypatch.setattr(B, "device", spying_device)
    try:
        B.set_default_device("strict")
        _run_sample(fn, hosts, "strict")
    finally:
        B.set_default_device(prev)
    assert not culprits, ("these library lines rely on the default device instead of their "
                          "inputs' device (pass device=x.device):\n" + "\n".join(culprits))


# -- views and in-place on devices: CopySlices, stale views, forced view replay ---------------

def _seed(dev):
    a = vg.tensor([1.0, 2.0, 3.0], dtype=vg.float64, requires_grad=True, device=dev)
    y = vg.tensor(4.0, dtype=vg.float64, requires_grad=True, device=dev)
    b = a.clone()
    x = b[2]
    other = b[1:]
    x.mul_(y)
    return a, y, b, x, other


@ONCE
@pytest.mark.parametrize("dev", DEVICES)
def test_seed_example_on_device(dev, on_cpu_default):
    a, y, b, x, other = _seed(dev)
    assert b.grad_fn.name() == "torch::autograd::CopySlices" and b.grad_fn.fn.name() == "MulBackward0"
    replay = vg.device(dev).as_strided is None      # forced view replay without as_strided
    assert x.grad_fn.name() == ("SelectBackward0" if replay else "AsStridedBackward0")
    assert other.grad_fn.name() == ("SliceBackward0" if replay else "AsStridedBackward0")
    assert b.grad_fn.replay is replay
    (b * vg.tensor([1.0, -2.0, 3.0], dtype=vg.float64, device=dev)).sum().backward()
    assert a.grad.device.type == dev and a.grad.tolist() == [1.0, -2.0, 12.0]
    assert y.grad.tolist() == 9.0
    assert x._version == b._version == 1
    assert vg.autograd.gradcheck(lambda a, y: _seed_f(a, y), (a.detach().requires_grad_(),
                                                              y.detach().requires_grad_()))


def _seed_f(a, y):
    b = a.clone()
    b[1:][::1].mul_(y)
    v = b.t() if b.dim() == 2 else b
    return (v.exp() * 2).sum()


@ONCE
@pytest.mark.parametrize("dev", DEVICES)
def test_views_and_inplace_match_cpu(dev):
    """A longer chain: in-place through views of views, expand, unfold, diagonal, setitem,
    the stale view's regenerated grad_fn, then backward — the same grads as on cpu."""
    def run(d):
        B.set_default_device(d)
        w = vg.tensor(np.arange(12.0).reshape(3, 4) / 7, dtype=vg.float64, requires_grad=True)
        s = vg.tensor(0.5, dtype=vg.float64, requires_grad=True)
        b = w * 1.0
        row = b[1]
        win = b.unfold(1, 2, 2)                  # (3, 2, 2) windows: a view
        diag = b.diagonal()
        row[1:3].mul_(s)                          # CopySlices on b
        b[0, ::2] = s * 3                         # __setitem__ -> copy_ on a view
        diag.add_(1.0)
        b.t()[2].sub_(s)                          # through a transposed view
        out = (b * b).sum() + (win.exp()).sum() + diag.sum() + row.sum() * s
        out = out + b[:, :1].expand(3, 5).sum()
        out.backward()
        return [host(out), host(w.grad), host(s.grad), [b.grad_fn.name(), row.grad_fn.name()]]
    prev = B.get_default_device()
    try:
        want = run("cpu")
        got = run(dev)
    finally:
        B.set_default_device(prev)
    for g, w in zip(got[:3], want[:3]):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    if vg.device(dev).as_strided is None:
        assert got[3] == ["torch::autograd::CopySlices", "SelectBackward0"]
    else:
        assert got[3] == want[3]


@ONCE
def test_without_as_strided_the_user_op_says_so():
    x = vg.ones(4, device="strict_nostride")
    with pytest.raises(RuntimeError, match="as_strided is not supported on device "
                                           "strict_nostride"):
        x.as_strided((2,), (2,))
    assert x.expand(2, 4).stride() == (0, 1)        # views still work, via the xp module
    with pytest.raises(RuntimeError, match="more than one element of the written-to"):
        x.expand(2, 4).add_(1.0)


@ONCE
@pytest.mark.parametrize("dev", DEVICES)
def test_accumulate_grad_layout_on_device(dev):
    """The layout contract holds on devices: a dense non-contiguous param gets a grad with
    its strides; accumulation adds in place (same object, same device)."""
    d = vg.device(dev)
    p = vg.randn(3, 2, dtype=vg.float64, device=dev).t().detach().requires_grad_()
    (p * 2).sum().backward()
    assert p.grad.device == d
    if d.as_strided is not None:
        assert p.grad.stride() == p.stride() == (1, 2)
    g = p.grad
    (p * 3).sum().backward()
    assert p.grad is g and p.grad.tolist() == [[5.0] * 3] * 2


@ONCE
@pytest.mark.parametrize("dev", DEVICES)
def test_saved_tensor_checks_on_device(dev):
    x = vg.randn(3, device=dev, requires_grad=True)
    y = x.exp()
    z = y.exp()
    with vg.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    r = x.sigmoid()
    assert r.grad_fn._saved_result.device.type == dev
