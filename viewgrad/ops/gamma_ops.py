"""The gamma family and the modified Bessel functions as rows of the derivatives table:
lgamma, digamma, polygamma, mvlgamma and i0 (functions, methods, in-place methods, as in
``torch``), and torch.special's i0e, i1, i1e (functions only: torch has no such methods;
the compat ``torch.special`` namespace serves them, with gammaln, psi, multigammaln...).

The numerics are in ops/gamma.py. Each formula is PyTorch's (derivatives.yaml), written in
viewgrad ops so that double backward works: lgamma's derivative is digamma, digamma's is
polygamma(1, x), polygamma(n)'s is polygamma(n + 1), mvlgamma's a sum of digammas; i0's is
i1, and i1, i0e, i1e save their result as PyTorch does. Integer inputs become the default
float dtype first (``torch.lgamma`` of an int tensor is float32).
"""
from __future__ import annotations

from .. import backend as B
from . import gamma as G
from .args import float_input, with_out
from .signatures import INT, TENSOR, _method, _plain_function
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .table import apply_inplace, defop, dispatch, method
from .unary import _unary

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "i0", "i0e", "i1", "i1e"]


def _where(cond, a, b):
    from .pointwise import where
    return where(cond, a, b)


lgamma = _unary("lgamma", "LgammaBackward0", G.lgamma,
                lambda grad, self: grad * digamma(self),
                "The log of the absolute value of the gamma function (torch.special.gammaln "
                "too; inf at 0 and the negative integers)", "grad * digamma(x)")
digamma = _unary("digamma", "DigammaBackward0", G.digamma,
                 lambda grad, self: grad * polygamma(1, self),
                 "The digamma function ψ(x) = d/dx lgamma(x) (torch.special.digamma and "
                 "torch.special.psi too; ψ(±0) = ∓inf, nan at the negative integers)",
                 "grad * polygamma(1, x)")
i0 = _unary("i0", "I0Backward0", G.i0, lambda grad, self: grad * i1(self),
            "The modified Bessel function of the first kind of order 0 (torch.special.i0 "
            "too)", "grad * i1(x) (torch.special.i1)")


# -- polygamma(n, x): an integer argument n --------------------------------------------------

POLYGAMMA = defop("polygamma", "PolygammaBackward0", lambda self, n: G.polygamma(self, n),
                  attrs=("n",), self=lambda grad, self, n: grad * polygamma(n + 1, self))


def _n(n):
    # the kind (an int) is checked at the door (signatures.py); the value here
    n = int(n)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return n


def polygamma(n, input, *, out=None):
    """The n-th derivative of the digamma function, elementwise: ``vg.polygamma(n, x)`` or
    ``x.polygamma(n)``, as ``torch.polygamma`` (torch.special.polygamma too). n = 0 is
    digamma; n >= 1 is (-1)^(n+1) n! ζ(n+1, x) (Hurwitz zeta), ±inf at the poles 0, -1,
    -2, ... Integer inputs give float32.

    Backward (node ``PolygammaBackward0``, saving n and x): grad * polygamma(n + 1, x).
    ``out=`` as in PyTorch."""
    n = _n(n)
    _refuse(_CX.get(f"polygamma{n}", _CX["polygamma"]), input)   # Note [inputs PyTorch refuses]
    return with_out(dispatch(POLYGAMMA, (float_input(input),), (n,)), out, "polygamma")


def _polygamma_method(self, n):
    """``x.polygamma(n)``: the n-th derivative of digamma at x, as ``torch.Tensor.polygamma``
    (``vg.polygamma(n, x)``). Backward (node ``PolygammaBackward0``): grad *
    polygamma(n + 1, x)."""
    return polygamma(n, self)


def _polygamma_(self, n):
    """In-place ``polygamma``: ``x.polygamma_(n)`` overwrites x with polygamma(n, x), as
    ``torch.Tensor.polygamma_``; recorded as ``PolygammaBackward0`` on x's history."""
    _refuse(_CX.get(f"polygamma{_n(n)}", _CX["polygamma"]), self)
    return apply_inplace(POLYGAMMA, self, (), (_n(n),), name="polygamma_")


# -- mvlgamma(x, p) ----------------------------------------------------------------------------

def _mvlgamma_bwd(grad, self, p):
    # PyTorch's mvlgamma_backward: grad * Σ_i digamma(x - i/2), i = p-1 .. 0
    total = digamma(self - 0.5 * (p - 1))
    for i in range(p - 2, -1, -1):
        total = total + digamma(self - 0.5 * i)
    return grad * total


MVLGAMMA = defop("mvlgamma", "MvlgammaBackward0", lambda self, p: G.mvlgamma(self, p),
                 attrs=("p",), self=_mvlgamma_bwd)


def _p(p):
    p = int(p)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return p


def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma function of dimension p, elementwise:
    Σ_{i<p} lgamma(x - i/2) + p(p-1)/4 · log(π), as ``torch.mvlgamma`` (and
    torch.special.multigammaln): ``vg.mvlgamma(x, p)`` or ``x.mvlgamma(p)``. p >= 1 (else
    "p has to be greater than or equal to 1"); like torch 2.13, elements <= (p-1)/2 are not
    refused (they give lgamma's values there, inf at the poles).

    Backward (node ``MvlgammaBackward0``, saving x and p): grad * Σ_i digamma(x - i/2)."""
    _refuse(_CX["mvlgamma"], input)   # Note [inputs PyTorch refuses]
    p = _p(p)
    return with_out(dispatch(MVLGAMMA, (float_input(input),), (p,)), out, "mvlgamma")


def mvlgamma_(self, p):
    """In-place ``mvlgamma``: ``x.mvlgamma_(p)`` overwrites x, as ``torch.Tensor.mvlgamma_``;
    recorded as ``MvlgammaBackward0`` on x's history."""
    _refuse(_CX["mvlgamma"], self)   # Note [inputs PyTorch refuses]
    return apply_inplace(MVLGAMMA, self, (), (_p(p),), name="mvlgamma_")


# PyTorch's argument parser for n and p (an int, a 0-d integer tensor: not a float, not a
# bool) and for the input of the functions, worded as it words them: positions count
# from 1 after self for a method and from the first argument for a function
_N, _P, _INPUT = (("n", INT),), (("p", INT),), (("input", TENSOR),)
method("polygamma")(_method(_polygamma_method, "polygamma", _N))
method("polygamma_")(_method(_polygamma_, "polygamma_", _N))
method("mvlgamma")(_method(mvlgamma, "mvlgamma", _P))
method("mvlgamma_")(_method(mvlgamma_, "mvlgamma_", _P))
polygamma = _plain_function(polygamma, "polygamma", _N + _INPUT)
mvlgamma = _plain_function(mvlgamma, "mvlgamma", _INPUT + _P)


# -- torch.special's i0e, i1, i1e ---------------------------------------------------------

def _safe(self):
    """(|x| > eps, x with the tiny ones replaced by eps): PyTorch's i1/i1e backward avoid
    0 * inf at x = 0, where the derivative is 0.5."""
    eps = _EPS.get(self.dtype, 0.0009765625)        # the dtype's machine epsilon
    not_tiny = self.abs() > eps
    return not_tiny, _where(not_tiny, self, eps)


_EPS = {B.float64: 2.220446049250313e-16, B.float32: 1.1920928955078125e-07}


def _i0e_bwd(grad, self, result):
    return grad * (i1e(self) - self.sign() * result)


def _i1_bwd(grad, self, result):
    not_tiny, safe = _safe(self)
    return grad * _where(not_tiny, i0(safe) - result * safe.reciprocal(), 0.5)


def _i1e_bwd(grad, self, result):
    not_tiny, safe = _safe(self)
    gx = i0e(safe) - result * (safe.sign() + safe.reciprocal())
    return grad * _where(not_tiny, gx, 0.5)


I0E = defop("special_i0e", "SpecialI0EBackward0", G.i0e, self=_i0e_bwd)
I1 = defop("special_i1", "SpecialI1Backward0", G.i1, self=_i1_bwd)
I1E = defop("special_i1e", "SpecialI1EBackward0", G.i1e, self=_i1e_bwd)


def _special(op, name, doc):
    def fn(input, *, out=None):
        return with_out(dispatch(op, (float_input(input),)), out, name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return _plain_function(fn, "special_" + name, _INPUT)   # torch's words: special_i0e()


i0e = _special(I0E, "i0e", """The exponentially scaled modified Bessel function of order 0,
    i0(x) · exp(-|x|), elementwise, as ``torch.special.i0e`` (no overflow for large |x|).
    Backward (node ``SpecialI0EBackward0``, saving x and the result): grad * (i1e(x) -
    sign(x) * i0e(x)).""")
i1 = _special(I1, "i1", """The modified Bessel function of the first kind of order 1,
    elementwise, as ``torch.special.i1``. Backward (node ``SpecialI1Backward0``, saving x
    and the result): grad * (i0(x) - i1(x) / x), and grad * 0.5 at x = 0.""")
i1e = _special(I1E, "i1e", """The exponentially scaled i1(x) · exp(-|x|), elementwise, as
    ``torch.special.i1e``. Backward (node ``SpecialI1EBackward0``, saving x and the
    result): grad * (i0e(x) - i1e(x) * (sign(x) + 1/x)), and grad * 0.5 at x = 0.""")
