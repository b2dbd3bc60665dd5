"""Forward values and gradients of viewgrad.nn.functional against PyTorch (the test-only
oracle; these tests are skipped, saying why, when torch is not installed)."""
import itertools

import numpy as np
import pytest

import viewgrad as vg
from viewgrad.nn import functional as F

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these "
                                            "comparisons and is not installed")
TF = torch.nn.functional
pytestmark = pytest.mark.filterwarnings("ignore:Using padding=.same. with even kernel")


def _pair(rng, shapes):
    arrays = [rng.standard_normal(s) if s is not None else None for s in shapes]
    t = [torch.tensor(a, requires_grad=True) if a is not None else None for a in arrays]
    v = [vg.tensor(a, dtype=vg.float64, requires_grad=True) if a is not None else None
         for a in arrays]
    return t, v


def _compare(tf, vf, shapes, seed=0):
    rng = np.random.default_rng(seed)
    t, v = _pair(rng, shapes)
    ty, vy = tf(*t), vf(*v)
    if isinstance(ty, tuple):
        assert np.array_equal(vy[1].cpu().numpy(), ty[1].cpu().numpy()), "indices differ"
        ty, vy = ty[0], vy[0]
    assert tuple(vy.shape) == tuple(ty.shape)
    np.testing.assert_allclose(vy.detach().cpu().numpy(), ty.detach().numpy(), rtol=1e-10,
                               atol=1e-10)
    g = rng.standard_normal(tuple(ty.shape))
    ty.backward(torch.tensor(g))
    vy.backward(vg.tensor(g, dtype=vg.float64))
    for a, b in zip(t, v):
        if a is not None:
            np.testing.assert_allclose(b.grad.cpu().numpy(), a.grad.numpy(), rtol=1e-10,
                                       atol=1e-10)


@pytest.mark.parametrize("stride,padding,dilation,groups,bias",
                         list(itertools.product((1, 2, 3), (0, 2), (1, 2), (1, 3), (True,)))
                         + [(1, "same", 2, 1, False), (1, "same", 1, 3, True),
                            (2, "valid", 1, 1, False), ((2, 1), (1, 0), (1, 3), 1, True)])
def test_conv2d(stride, padding, dilation, groups, bias):
    shapes = [(2, 6, 9, 8), (6, 6 // groups, 3, 2), (6,) if bias else None]
    _compare(lambda x, w, b: TF.conv2d(x, w, b, stride, padding, dilation, groups),
             lambda x, w, b: F.conv2d(x, w, b, stride, padding, dilation, groups), shapes)


@pytest.mark.parametrize("stride,padding,dilation,groups",
                         [(1, 0, 1, 1), (2, 1, 2, 2), (3, "same", 1, 1), (1, "same", 3, 2)])
def test_conv1d(stride, padding, dilation, groups):
    if padding == "same" and stride != 1:
        stride = 1
    _compare(lambda x, w, b: TF.conv1d(x, w, b, stride, padding, dilation, groups),
             lambda x, w, b: F.conv1d(x, w, b, stride, padding, dilation, groups),
             [(2, 4, 11), (4, 4 // groups, 4), (4,)])


@pytest.mark.parametrize("stride,padding,output_padding,dilation,groups",
                         [(1, 0, 0, 1, 1), (2, 1, 1, 1, 1), (3, 2, 2, 1, 2), (2, 0, 1, 2, 2),
                          (1, 1, 1, 2, 1), ((2, 3), (0, 1), (1, 2), 1, 1)])
def test_conv_transpose2d(stride, padding, output_padding, dilation, groups):
    _compare(lambda x, w, b: TF.conv_transpose2d(x, w, b, stride, padding, output_padding,
                                                 groups, dilation),
             lambda x, w, b: F.conv_transpose2d(x, w, b, stride, padding, output_padding,
                                                groups, dilation),
             [(2, 4, 4, 5), (4, 6 // groups, 3, 2), (6,)])


def test_conv_unbatched_and_3d():
    _compare(lambda x, w: TF.conv2d(x, w, padding=1), lambda x, w: F.conv2d(x, w, padding=1),
             [(3, 5, 5), (2, 3, 3, 3)])
    _compare(lambda x, w: TF.conv3d(x, w, stride=2), lambda x, w: F.conv3d(x, w, stride=2),
             [(1, 2, 5, 4, 5), (3, 2, 2, 2, 2)])


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1),
                                     dilation=(2, 1), ceil_mode=True),
                                dict(kernel_size=2, stride=2, ceil_mode=True)])
def test_max_pool2d(kw):
    _compare(lambda x: TF.max_pool2d(x, return_indices=True, **kw),
             lambda x: F.max_pool2d(x, return_indices=True, **kw), [(2, 3, 7, 6)])


def test_max_pool1d():
    _compare(lambda x: TF.max_pool1d(x, 3, 2, 1, return_indices=True),
             lambda x: F.max_pool1d(x, 3, 2, 1, return_indices=True), [(2, 3, 9)])


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                     count_include_pad=False),
                                dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1),
                                     ceil_mode=True),
                                dict(kernel_size=2, divisor_override=3)])
def test_avg_pool2d(kw):
    _compare(lambda x: TF.avg_pool2d(x, **kw), lambda x: F.avg_pool2d(x, **kw), [(2, 3, 7, 6)])


@pytest.mark.parametrize("size", [(3, 2), (7, 6), 4, (None, 5), 1])
def test_adaptive_avg_pool2d(size):
    _compare(lambda x: TF.adaptive_avg_pool2d(x, size),
             lambda x: F.adaptive_avg_pool2d(x, size), [(2, 3, 7, 6)])


@pytest.mark.parametrize("training,affine,shape", [(True, True, (4, 3, 5, 2)),
                                                  (True, False, (6, 3)),
                                                  (False, True, (4, 3, 5)),
                                                  (False, False, (2, 3, 2, 2))])
def test_batch_norm(training, affine, shape):
    rng = np.random.default_rng(1)
    rm, rv = rng.standard_normal(3), rng.random(3) + 0.5
    trm, trv = torch.tensor(rm), torch.tensor(rv)
    vrm, vrv = vg.tensor(rm, dtype=vg.float64), vg.tensor(rv, dtype=vg.float64)
    shapes = [shape, (3,) if affine else None, (3,) if affine else None]
    _compare(lambda x, w, b: TF.batch_norm(x, trm, trv, w, b, training, 0.3, 1e-3),
             lambda x, w, b: F.batch_norm(x, vrm, vrv, w, b, training, 0.3, 1e-3), shapes)
    np.testing.assert_allclose(vrm.cpu().numpy(), trm.cpu().numpy(), rtol=1e-12)
    np.testing.assert_allclose(vrv.cpu().numpy(), trv.cpu().numpy(), rtol=1e-12)


def test_batchnorm2d_module_running_stats_match_torch():
    rng = np.random.default_rng(2)
    tm = torch.nn.BatchNorm2d(3, momentum=None).double()
    vm = vg.nn.BatchNorm2d(3, momentum=None).double()
    for _ in range(3):
        x = rng.standard_normal((4, 3, 2, 2))
        tm(torch.tensor(x))
        vm(vg.tensor(x, dtype=vg.float64))
    np.testing.assert_allclose(vm.running_mean.cpu().numpy(), tm.running_mean.numpy(),
                               rtol=1e-12)
    np.testing.assert_allclose(vm.running_var.cpu().numpy(), tm.running_var.numpy(),
                               rtol=1e-12)
    assert int(vm.num_batches_tracked.item()) == int(tm.num_batches_tracked) == 3
    x = rng.standard_normal((2, 3, 2, 2))
    tm.eval(), vm.eval()
    np.testing.assert_allclose(vm(vg.tensor(x, dtype=vg.float64)).detach().cpu().numpy(),
                               tm(torch.tensor(x)).detach().cpu().numpy(), rtol=1e-10)


def test_pad():
    _compare(lambda x: TF.pad(x, (1, 2, -1, 1), value=0.25),
             lambda x: F.pad(x, (1, 2, -1, 1), value=0.25), [(2, 3, 4)])


def test_module_init_bounds_like_torch():
    """Same formulas, so the same bounds: Linear/Conv weights and biases lie within
    1/sqrt(fan_in), and their spread matches U(-b, b)."""
    vg.manual_seed(0)
    conv = vg.nn.Conv2d(8, 16, 3)
    bound = 1 / np.sqrt(8 * 9)
    w = conv.weight.detach().cpu().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.1 * bound
    lin = vg.nn.Linear(50, 10)
    assert np.abs(lin.bias.detach().cpu().numpy()).max() <= 1 / np.sqrt(50)
    t = torch.nn.Linear(50, 10)
    assert np.isclose(np.abs(t.weight.detach().cpu().numpy()).max(),
                      np.abs(lin.weight.detach().cpu().numpy()).max(), rtol=0.1)


@pytest.mark.parametrize("kw", [dict(kernel_size=2),
                                dict(kernel_size=(3, 2), dilation=(1, 2), padding=1,
                                     stride=(2, 1))])
def test_unfold(kw):
    _compare(lambda x: TF.unfold(x, **kw), lambda x: F.unfold(x, **kw), [(2, 3, 6, 5)])


def test_whole_model_matches_torch_through_state_dict():
    """The same Sequential in both libraries: torch's state dict (same key names) loads into
    viewgrad's model; outputs, loss, every parameter gradient and the updated running stats
    agree, in train and eval mode; then one SGD step keeps them together."""
    tnn, vnn = torch.nn, vg.nn

    def build(lib):
        return lib.Sequential(
            lib.Conv2d(2, 4, 3, padding=1), lib.BatchNorm2d(4), lib.ReLU(), lib.MaxPool2d(2),
            lib.Conv2d(4, 4, 2, stride=2, groups=2), lib.Tanh(), lib.ConvTranspose2d(4, 2, 2, 2),
            lib.Sigmoid(), lib.Flatten(), lib.Linear(2 * 4 * 4, 3))
    tm, vm = build(tnn).double(), build(vnn).double()
    sd = {k: vg.tensor(v.detach().cpu().numpy(), dtype=v.cpu().numpy().dtype) for k, v in
          tm.state_dict().items()}
    assert list(sd) == list(vm.state_dict())
    vm.load_state_dict(sd)
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((4, 2, 8, 8)), rng.integers(0, 3, 4)
    tloss = tnn.CrossEntropyLoss()(tm(torch.tensor(x)), torch.tensor(y))
    vloss = vnn.CrossEntropyLoss()(vm(vg.tensor(x, dtype=vg.float64)), vg.tensor(y))
    assert np.isclose(float(vloss), tloss.item(), rtol=1e-10)
    tloss.backward()
    vloss.backward()
    for (name, tp), vp in zip(tm.named_parameters(), vm.parameters()):
        np.testing.assert_allclose(vp.grad.cpu().numpy(), tp.grad.numpy(), rtol=1e-8, atol=1e-12,
                                   err_msg=name)
    for k, v in tm.state_dict().items():
        np.testing.assert_allclose(vm.state_dict()[k].cpu().numpy(), v.numpy(), rtol=1e-10,
                                   err_msg=k)
    torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9).step()
    vg.optim.SGD(vm.parameters(), lr=0.1, momentum=0.9).step()
    tm.eval(), vm.eval()
    mse_t = tnn.MSELoss()(tm(torch.tensor(x)), torch.zeros(4, 3, dtype=torch.float64))
    mse_v = vnn.MSELoss()(vm(vg.tensor(x, dtype=vg.float64)), vg.zeros(4, 3, dtype=vg.float64))
    assert np.isclose(float(mse_v), mse_t.item(), rtol=1e-10)
