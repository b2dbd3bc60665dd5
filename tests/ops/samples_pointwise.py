"""Gradcheck samples for the pointwise math rows (ops/unary.py, ops/binary.py).

Inputs are standard normal (see test_gradcheck_sweep._make); ops with a restricted domain
compose a squashing op first (``(0.9 * a.tanh()).asin()``), so their gradient is still
checked on the whole sample.
"""
import viewgrad as vg


def _unit(a):
    return 0.9 * a.tanh()   # values in (-0.9, 0.9)


SAMPLES = {
    "sin": [(lambda a: a.sin(), [(2, 3)]), (lambda a: vg.sin(a).sin_(), [(3,)])],
    "cos": [(lambda a: vg.cos(a), [(2, 3)])],
    "tan": [(lambda a: _unit(a).tan(), [(3,)])],
    "asin": [(lambda a: _unit(a).asin(), [(3,)])],
    "acos": [(lambda a: vg.acos(_unit(a)), [(3,)])],
    "atan": [(lambda a: a.atan(), [(2, 2)])],
    "sinh": [(lambda a: a.sinh(), [(3,)])],
    "cosh": [(lambda a: a.cosh(), [(3,)])],
    "asinh": [(lambda a: a.asinh(), [(3,)])],
    "acosh": [(lambda a: (a * a + 1.5).acosh(), [(3,)])],
    "atanh": [(lambda a: _unit(a).atanh(), [(3,)])],
    "exp2": [(lambda a: a.exp2(), [(3,)])],
    "expm1": [(lambda a: a.expm1(), [(3,)]), (lambda a: a.clone().expm1_(), [(2,)])],
    "log2": [(lambda a: a.log2(), [("pos", (3,))])],
    "log10": [(lambda a: a.log10(), [("pos", (3,))])],
    "log1p": [(lambda a: a.log1p(), [("pos", (3,))])],
    "erf": [(lambda a: a.erf(), [(2, 3)])],
    "erfc": [(lambda a: vg.erfc(a), [(3,)])],
    "erfinv": [(lambda a: _unit(a).erfinv(), [(3,)])],
    "floor": [(lambda a: a.floor() + a, [("away", (3,))])],
    "ceil": [(lambda a: a.ceil() * a, [("away", (3,))])],
    "round": [(lambda a: a.round() * a, [("away", (3,))])],
    "round_decimals": [(lambda a: a.round(decimals=1) + a, [("away", (3,))])],
    "trunc": [(lambda a: a.trunc() * a, [("away", (3,))])],
    "frac": [(lambda a: a.frac(), [("away", (3,))])],
    "rsqrt": [(lambda a: a.rsqrt(), [("pos", (3,))])],
    "logit": [(lambda a: a.sigmoid().logit(), [(3,)]),
              (lambda a: (0.45 * a.tanh() + 0.5).logit(eps=0.2), [("away", (4,))])],
    "atan2": [(lambda a, b: a.atan2(b), [(2, 3), ("pos", (3,))])],
    "hypot": [(lambda a, b: vg.hypot(a, b), [("away", (2, 3)), ("away", (2, 1))])],
    "fmod": [(lambda a, b: vg.fmod(a, b), [(3,), ("pos", (3,))])],
    "fmod_scalar": [(lambda a: a.fmod(0.7), [(3,)])],
    "remainder": [(lambda a, b: a % b, [(2, 3), ("pos", (3,))])],
    "remainder_scalar": [(lambda a: a.remainder(0.7), [(3,)])],
    "lerp": [(lambda a, b: a.lerp(b, 0.3), [(2, 3), (3,)])],
    "lerp_tensor": [(lambda a, b, w: vg.lerp(a, b, w), [(2, 3), (2, 3), (3,)])],
    "addcmul": [(lambda a, b, c: a.addcmul(b, c, value=0.5), [(2, 3), (3,), (2, 1)])],
    "addcdiv": [(lambda a, b, c: vg.addcdiv(a, b, c, value=2), [(2, 3), (2, 3), ("pos", (3,))])],
}


def _g():
    return vg.Generator().manual_seed(0)  # a fresh stream per call: the same sample each time


# in-place samplers (ops/random.py): the sample replaces the values, its gradient is zero
SAMPLES.update({
    "uniform": [(lambda a: a.clone().uniform_(-1, 1, generator=_g()) * a, [(3,)])],
    "normal": [(lambda a: a.clone().normal_(generator=_g()) * a, [(3,)])],
    "bernoulli": [(lambda a: a.clone().bernoulli_(0.5, generator=_g()) * a, [(4,)])],
    "exponential": [(lambda a: a.clone().exponential_(generator=_g()) + a, [(3,)])],
    "random": [(lambda a: a.clone().random_(0, 5, generator=_g()) * a, [(3,)])],
    "log_normal": [(lambda a: a.clone().log_normal_(generator=_g()) * a, [(3,)])],
    "cauchy": [(lambda a: a.clone().cauchy_(generator=_g()) * a, [(3,)])],
    "geometric": [(lambda a: a.clone().geometric_(0.3, generator=_g()) * a, [(3,)])],
})
