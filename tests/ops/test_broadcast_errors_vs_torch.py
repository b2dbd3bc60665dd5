"""Operands whose shapes do not broadcast: PyTorch's error (``infer_size``'s words, the
first mismatching dim numbered in the broadcast result), never NumPy's, whichever way the
op is reached — a function, a method, an in-place method, a loss or a composite
(``backend.shapes_error``; ``dispatch`` turns an elementwise row's NumPy error into it)."""
import pytest

from tests.helpers import assert_same_as_torch

CALLS = {
 "atan2": lambda M,a,b: M.atan2(a,b), "hypot": lambda M,a,b: M.hypot(a,b), "fmod": lambda M,a,b: M.fmod(a,b),
 "remainder": lambda M,a,b: M.remainder(a,b), "maximum": lambda M,a,b: M.maximum(a,b), "minimum": lambda M,a,b: M.minimum(a,b),
 "fmax": lambda M,a,b: M.fmax(a,b), "fmin": lambda M,a,b: M.fmin(a,b), "copysign": lambda M,a,b: M.copysign(a,b),
 "logaddexp": lambda M,a,b: M.logaddexp(a,b), "logaddexp2": lambda M,a,b: M.logaddexp2(a,b), "heaviside": lambda M,a,b: M.heaviside(a,b),
 "xlogy": lambda M,a,b: M.xlogy(a,b), "nextafter": lambda M,a,b: M.nextafter(a,b), "pow": lambda M,a,b: a.pow(b),
 "clamp": lambda M,a,b: a.clamp(min=b), "clamp_max": lambda M,a,b: a.clamp(max=b), "clamp2": lambda M,a,b: a.clamp(b, b),
 "lerp": lambda M,a,b: M.lerp(a,b,0.5), "lerp_t": lambda M,a,b: M.lerp(a,a,b), "mse": lambda M,a,b: M.nn.functional.mse_loss(a,b),
 "l1": lambda M,a,b: M.nn.functional.l1_loss(a,b), "smooth_l1": lambda M,a,b: M.nn.functional.smooth_l1_loss(a,b), "huber": lambda M,a,b: M.nn.functional.huber_loss(a,b),
 "bce": lambda M,a,b: M.nn.functional.binary_cross_entropy(a.sigmoid(),b.sigmoid()), "bcel": lambda M,a,b: M.nn.functional.binary_cross_entropy_with_logits(a,b),
 "kl": lambda M,a,b: M.nn.functional.kl_div(a,b), "soft_margin": lambda M,a,b: M.nn.functional.soft_margin_loss(a,b),
 "masked_select": lambda M,a,b: a.masked_select(b>0), "masked_fill": lambda M,a,b: a.masked_fill(b>0, 1.0), "where": lambda M,a,b: M.where(a>0,a,b),
 "eq": lambda M,a,b: a==b, "lt": lambda M,a,b: a<b, "logical_and": lambda M,a,b: M.logical_and(a,b), "bitwise": lambda M,a,b: (a>0)&(b>0),
 "addcmul": lambda M,a,b: M.addcmul(a,a,b), "addcdiv": lambda M,a,b: M.addcdiv(a,a,b), "isclose": lambda M,a,b: M.isclose(a,b), "allclose": lambda M,a,b: M.allclose(a,b),
 "dist": lambda M,a,b: M.dist(a,b), "cosine": lambda M,a,b: M.nn.functional.cosine_similarity(a,b), "pairwise": lambda M,a,b: M.nn.functional.pairwise_distance(a,b),
 "gaussian_nll": lambda M,a,b: M.nn.functional.gaussian_nll_loss(a,b,M.ones(2,3)), "poisson": lambda M,a,b: M.nn.functional.poisson_nll_loss(a,b),
 "add_": lambda M,a,b: a.clone().add_(b), "mul_": lambda M,a,b: a.clone().mul_(b), "copy_": lambda M,a,b: a.clone().copy_(b),
 "floor_divide": lambda M,a,b: M.floor_divide(a,b), "float_power": lambda M,a,b: M.float_power(a,b), "ldexp": lambda M,a,b: M.ldexp(a,b),
 "margin_rank": lambda M,a,b: M.nn.functional.margin_ranking_loss(a,b,a),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_shapes_that_do_not_broadcast_raise_torchs_error(name):
    def run(M):
        return CALLS[name](M, M.ones(2, 3), M.ones(3, 2))
    assert_same_as_torch(run, wording_too=True)


@pytest.mark.parametrize("name", ["add_", "mul_"])
def test_in_place_into_a_smaller_self_keeps_its_own_words(name):
    """Shapes that broadcast, but not into self's: PyTorch's "doesn't match the broadcast
    shape" case, a RuntimeError on both sides."""
    assert_same_as_torch(lambda M: CALLS[name](M, M.ones(1, 3), M.ones(2, 3)))
