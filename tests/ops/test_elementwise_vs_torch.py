"""The elementwise ops of ops/elementwise.py and ops/logic.py against PyTorch: values,
node names, gradients (ties of maximum included), dtypes of integer inputs, and errors."""
import pytest

from tests.helpers import assert_same_as_torch

from .test_vs_torch import compare_with_torch

DIFFERENTIABLE = [
    ("maximum", lambda M, a, b: M.maximum(a, b) + a.minimum(b.round()), [(2, 3), (3,)]),
    ("maximum_ties", lambda M, a, b: M.maximum(a.round(), b.round()) * a, [(3, 4), (3, 4)]),
    ("minimum_ties", lambda M, a, b: M.minimum(a, a.detach().round().requires_grad_()), [(4,), (1,)]),
    ("fmax", lambda M, a, b: M.fmax(a, b) + M.fmin(b, a), [(2, 3), (2, 1)]),
    ("fmax_ties_nan", lambda M, a, b: M.fmax(a, M.where(b > 0, float("nan"), a)), [(5,), (5,)]),
    ("copysign", lambda M, a, b: M.copysign(a, b) + a.copysign(-1.0), [(2, 3), (3,)]),
    ("xlogy", lambda M, a, b: M.xlogy(a, b.abs() + 0.1) + M.xlogy(2.0, b.abs()) + a.xlogy(3.0), [(2, 3), (3,)]),
    ("xlogy_zero", lambda M, a, b: M.xlogy(a * (a > 0), b.abs()), [(4,), (4,)]),
    ("logaddexp", lambda M, a, b: M.logaddexp(a, b) * a.logaddexp2(b), [(2, 3), (3,)]),
    ("sinc", lambda M, a, b: M.sinc(a) + b.sinc(), [(2, 3), (3,)]),
    ("deg2rad", lambda M, a, b: M.deg2rad(a) * b.rad2deg(), [(3,), (3,)]),
    ("nan_to_num", lambda M, a, b: M.nan_to_num(a.log(), nan=0.5, neginf=-2.0) * b, [(4,), (4,)]),
    ("nan_to_num_", lambda M, a, b: (a / b.round()).nan_to_num_(posinf=3.0) * b, [(4,), (4,)]),
    ("div_floor", lambda M, a, b: M.div(3 * a, b, rounding_mode="floor") * a, [(2, 3), (3,)]),
    ("div_trunc", lambda M, a, b: (3 * a).div(0.7, rounding_mode="trunc") + b, [(3,), (3,)]),
    ("clamp_tensor", lambda M, a, b: a.clamp(b, b + 0.5) + M.clip(a, max=b), [(2, 3), (3,)]),
    ("clamp_crossed", lambda M, a, b: M.clamp(a, b + 0.5, b), [(4,), (4,)]),
    ("float_power", lambda M, a, b: M.float_power(a.abs(), b) + a.float_power(2), [(3,), (3,)]),
    ("nextafter", lambda M, a, b: M.nextafter(a, b), [(3,), (3,)]),
    ("clamp_min_max", lambda M, a, b: M.clamp_min(a, 0.2) + a.clamp_max(b) + M.clamp_max(a, -0.1)
     * M.clamp_min(a, b), [(2, 3), (3,)]),
    ("inplace_forms", lambda M, a, b: _inplace(M, a, b), [(3,), (3,)]),
]


def _inplace(M, a, b):
    y = a * 1
    y.clamp_min_(0.1).clamp_max_(b + 1)
    z = a.double() * 3
    z.div_(b.abs() + 0.5, rounding_mode="floor")
    w = a.detach().heaviside_(M.ones(3, dtype=a.dtype)) + (a * 1).nextafter_(b)
    v = (a * 2).float_power_(2) + M.xlogy_(b.abs() * 1, 2.0) + M.sinc_(a * 1) + M.deg2rad_(b * 1)
    return y + z + w + v


@pytest.mark.parametrize("name,fn,shapes", DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_differentiable_matches_torch(name, fn, shapes):
    compare_with_torch(lambda M, F, *xs: fn(M, *xs), shapes)


def _t(M, v, dtype=None):
    return M.tensor(v, dtype=dtype)


NAN, INF = float("nan"), float("inf")
VALUES = [  # (what, fn(M)) — values, dtypes and shapes (or the error) must match torch's
    ("maximum_int_float", lambda M: M.maximum(_t(M, [1, 2]), _t(M, [1.5, 0.0]))),
    ("maximum_nan", lambda M: M.maximum(_t(M, [1.0, NAN]), _t(M, [0.0, 1.0]))),
    ("fmax_nan", lambda M: M.fmax(_t(M, [1.0, NAN]), _t(M, [NAN, 1.0]))),
    ("maximum_number", lambda M: M.maximum(_t(M, [1, 2]), 2)),
    ("predicates", lambda M: [f(_t(M, [1.0, -INF, INF, NAN, -0.0])) for f in (
        M.isinf, M.isfinite, M.isposinf, M.isneginf, M.signbit, M.isnan)]),
    ("predicates_int", lambda M: [f(_t(M, [-1, 0, 3])) for f in (
        M.isinf, M.isfinite, M.isposinf, M.isneginf, M.signbit, M.isnan)]),
    ("nan_to_num", lambda M: M.nan_to_num(_t(M, [NAN, INF, -INF, 1.0], M.float64))),
    ("nan_to_num_int", lambda M: M.nan_to_num(_t(M, [1, 2]))),
    ("logical", lambda M: [M.logical_and(_t(M, [1.0, 0.0, 2.0]), _t(M, [2, 3, 0])),
                           _t(M, [1.0, 0.0]).logical_or(_t(M, [0.0, 0.0])),
                           M.logical_xor(_t(M, [1.0, 0.0]), _t(M, [True, True])),
                           M.logical_not(_t(M, [1.5, 0.0])), ~_t(M, [True, False])]),
    ("logical_number", lambda M: M.logical_and(_t(M, [1.0]), 1)),
    ("bitwise", lambda M: [_t(M, [1, 6]) & _t(M, [3, 3]), _t(M, [1, 6]) | 8, 5 ^ _t(M, [1, 6]),
                           ~_t(M, [1, 6]), M.bitwise_and(_t(M, [True]), _t(M, [3])),
                           _t(M, [1, 6], M.int32) | _t(M, [3, 3]),
                           M.bitwise_xor(_t(M, [1, 6], M.int32), True),
                           M.bitwise_not(_t(M, [True, False]))]),
    ("bitwise_float", lambda M: _t(M, [1.0]) & _t(M, [1.0])),
    ("bitwise_not_float", lambda M: M.bitwise_not(_t(M, [1.0]))),
    ("invert_float", lambda M: ~_t(M, [1.0])),
    ("bitwise_inplace", lambda M: _iand(M)),
    ("logical_inplace", lambda M: _t(M, [1.0, 0.0, 2.0]).logical_and_(_t(M, [1, 1, 0]))),
    ("div_modes_int", lambda M: [M.div(_t(M, [7, -7, 6]), 2, rounding_mode=m) for m in ("trunc", "floor")]),
    ("div_modes_int32", lambda M: M.div(_t(M, [7, -7], M.int32), 2, rounding_mode="trunc")),
    ("div_modes_float", lambda M: [M.div(_t(M, [7.0, -7.0, 0.0, -6.5]), d, rounding_mode=m)
                                   for m in ("trunc", "floor") for d in (2, -0.0, 0.0)]),
    ("div_mode_int_by_float", lambda M: M.div(_t(M, [7, -7]), 2.5, rounding_mode="floor")),
    ("div_mode_bad", lambda M: M.div(_t(M, [7, -7]), 2, rounding_mode="round")),
    ("div_mode_int_zero", lambda M: M.div(_t(M, [7, -7]), _t(M, [0, 2]), rounding_mode="floor")),
    ("div_mode_bool", lambda M: M.div(_t(M, [True]), _t(M, [True]), rounding_mode="floor")),
    ("true_divide", lambda M: [M.true_divide(_t(M, [7, -7]), 2), M.divide(_t(M, [7, -7]), 2),
                               M.divide(_t(M, [7, -7]), 2, rounding_mode="floor")]),
    ("copysign_ints", lambda M: [M.copysign(_t(M, [1, 2]), -1), M.copysign(_t(M, [1, 2]), _t(M, [-1, 0])),
                                 M.copysign(_t(M, [1.0, 2.0]), _t(M, [-0.0, 0.0]))]),
    ("heaviside", lambda M: [M.heaviside(_t(M, [-1.0, 0.0, 2.0]), _t(M, 0.5)),
                             M.heaviside(_t(M, [-1, 0, 2]), _t(M, [5]))]),
    ("heaviside_dtypes", lambda M: M.heaviside(_t(M, [-1.0, 0.0]), _t(M, [5]))),
    ("heaviside_number", lambda M: M.heaviside(_t(M, [-1.0, 0.0]), 0.5)),
    ("xlogy_edge", lambda M: [M.xlogy(_t(M, [0, 2, 0, 1]), _t(M, [0, 3, 4, 0])),
                              M.xlogy(_t(M, [0.0, 2.0, 1.0]), _t(M, [NAN, 3.0, -1.0])),
                              M.xlogy(2, _t(M, [1.0, 3.0])), M.xlogy(_t(M, [0.0, 1.0]), 0.0)]),
    ("sinc_int", lambda M: [M.sinc(_t(M, [0, 1])), M.deg2rad(_t(M, [180])),
                            M.rad2deg(_t(M, [True]))]),
    ("float_power_dtypes", lambda M: [M.float_power(_t(M, [2]), 2), M.float_power(2, _t(M, [2])),
                                      M.float_power(_t(M, [2.0]), _t(M, [3]))]),
    ("logaddexp_ints", lambda M: M.logaddexp(_t(M, [1, 2]), _t(M, [1, 2]))),
    ("logaddexp_mixed", lambda M: M.logaddexp(_t(M, [1.0, 2.0]), _t(M, [1, 2]))),
    ("logaddexp_number", lambda M: M.logaddexp(_t(M, [1.0]), 2.0)),
    ("nextafter", lambda M: M.nextafter(_t(M, [1.0, 2.0]), _t(M, [2.0, 0.0])) - _t(M, [1.0, 2.0])),
    ("nextafter_int", lambda M: M.nextafter(_t(M, [1]), _t(M, [2]))),
    ("clamp_int_float", lambda M: [M.clamp(_t(M, [1, 2, 3]), 1.5), M.clip(_t(M, [1, 2, 3]), _t(M, [2.5]))]),
    ("clip_inplace", lambda M: [_t(M, [1.0, 2.0, 3.0]).clip_(1.5, 2.5), M.clip_(_t(M, [1.0, 5.0]), 2, 3)]),
    ("clamp_min_int_float", lambda M: [M.clamp_min(_t(M, [1, 2]), 1.5), M.clamp_max(_t(M, [1, 2]), 1)]),
    ("shifts", lambda M: [_t(M, [1, -8]) << 2, _t(M, [1, -8]) >> 1, 3 << _t(M, [1]),
                          M.bitwise_left_shift(_t(M, [1], M.int32), _t(M, [3])), 2 | _t(M, [1], M.int32)]),
    ("shift_float", lambda M: _t(M, [1.0]) << 1),
    ("div_inplace_modes", lambda M: [_div_(M, m) for m in ("floor", "trunc")]),
    ("float_power_inplace_float32", lambda M: _t(M, [1.0, 2.0]).float_power_(2)),
]


def _div_(M, mode):
    x = _t(M, [7, -7, 6])
    x.div_(2, rounding_mode=mode)
    y = _t(M, [7.5, -7.5])
    y.divide_(_t(M, [2.0, 2.0]), rounding_mode=mode)
    return x, y


def _iand(M):
    x = _t(M, [1, 6, 7])
    x &= _t(M, [3, 3, 1])
    x |= 8
    x ^= _t(M, [1, 1, 1])
    return x


@pytest.mark.parametrize("what,fn", VALUES, ids=[v[0] for v in VALUES])
def test_values_dtypes_errors_match_torch(what, fn):
    assert_same_as_torch(fn)


def test_no_derivative_errors_match_torch():
    import viewgrad as vg
    x = vg.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    y = vg.heaviside(x, vg.tensor([0.5]))
    assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not implemented"):
        y.sum().backward()
