"""The gamma-function family and the modified Bessel functions I0, I1 on any device's array
module: lgamma, digamma, polygamma (through the Hurwitz zeta function), mvlgamma's sum, and
i0, i0e, i1, i1e (``torch.special``'s names).

NumPy has none of these (SciPy does, and viewgrad does not depend on it), so, like erf in
ops/special.py, they are written once with the array module's elementary functions and run
unchanged on numpy, CuPy and the strict test device. They compute in float64 and give back
the input's dtype (integer inputs: the default float dtype). Every branch is evaluated on
the whole array with its argument clipped into the branch's range, then ``where`` picks:
vectorised code has no per-element ``if``.

Note [lgamma by series and Stirling]
    Near 1 and 2, where lgamma crosses zero, no subtraction of large terms is allowed, so
    with z in [-0.5, 0.5) (Abramowitz & Stegun 6.1.41, ζ Riemann's zeta):
        lgamma(2 + z) = (1 - γ) z + T(z),   T(z) = Σ_{n>=2} (-1)^n (ζ(n) - 1) z^n / n,
        lgamma(1 + z) = lgamma(2 + z) - log1p(z).
    ζ(n) - 1 ~ 2^-n, so T's terms fall like 4^-n: 32 terms reach float64 precision. Below
    0.5, lgamma(x) = lgamma(1 + x) - log(x); on [2.5, 10) the recurrence steps down to
    [1.5, 2.5) (lgamma > 0.28 there, a product of at most 8 factors, nothing cancels); from
    10 Stirling's series, written x (log x - 1) - log(x)/2 + ... so that it overflows only
    where lgamma itself does. Negative x by reflection:
        lgamma(x) = log(π / |sin(π x)|) - lgamma(1 - x),
    with sin(π x) taken at x - round(x) (exact), so poles (0, negative integers) give inf.

Note [digamma as PyTorch computes it]
    The same steps as PyTorch's calc_digamma (Cephes): ψ(±0) = ∓inf, ψ(negative integer)
    = nan, reflection ψ(x) = ψ(1 - x) - π / tan(π frac(x)) for x < 0, the recurrence
    ψ(x) = ψ(x + 1) - 1/x up to 10, then the asymptotic series log x - 1/(2x) -
    Σ B_2k / (2k x^2k). Near ψ's positive root (1.4616...) the result is small and both
    PyTorch's and this one carry an absolute (not relative) error of a few 1e-16.

Note [polygamma through the Hurwitz zeta]
    ψ^(n)(x) = (-1)^(n+1) n! ζ(n + 1, x) for n >= 1, ζ(s, q) = Σ_{k>=0} (q + k)^-s. For
    q > 0: the terms up to w = q + N >= max(10, s), then Euler–Maclaurin:
        Σ_{k>=N} = w^(1-s)/(s-1) + w^-s/2 + Σ_j B_2j/(2j)! s(s+1)...(s+2j-2) w^(1-s-2j).
    For q < 0 (not an integer) write q = -M - f, f in (0, 1): the negative terms are the
    positive ones of f mirrored. For M <= 64 each negative term is paired with its
    positive mirror (j+1-f)^-s + (-1)^s (j+f)^-s, the pairs summed smallest first (plus
    ζ(s, M+2-f)); below -64, with three positive-q sums
        ζ(s, q) = ζ(s, 1 - f) + (-1)^s (ζ(s, f) - ζ(s, M + 1 + f)),
    whose work does not grow with |q|. Poles (q = 0, negative integers) give inf. PyTorch's
    trigamma (n = 1) truncates its asymptotic series early (about 3e-10 relative error at
    0.5, and finite values like 6.6e32 at negative integers): this one is accurate to
    float64 and gives the pole its inf.

Note [I0 and I1 by series and asymptotics]
    For |x| < 20 the power series I0 = Σ (x²/4)^k / k!², I1 = (x/2) Σ (x²/4)^k / (k! (k+1)!)
    (every term positive: nothing cancels; 42 terms suffice). From 20 the asymptotic series
    I_ν(x) e^-x = (2πx)^-1/2 Σ_k c_k, c_k = -c_{k-1} (4ν² - (2k-1)²) / (8 x k), whose
    smallest term (~e^-2x) is below float64's precision there. i0 = i0e · e^|x| overflows
    where PyTorch's does (e^x overflows in the tensor's dtype: past 88.7 in float32), and
    i0(±inf), i1(±inf) are nan as PyTorch's (its e^inf · 0).
"""
from __future__ import annotations

import contextlib
import functools
import math
from fractions import Fraction

from .. import backend as B

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "i0", "i0e", "i1", "i1e"]

_EULER = 0.57721566490153286061
_LOG_PI = math.log(math.pi)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _bernoulli(n_max):
    """B_0..B_n_max as Fractions (Akiyama–Tanigawa), for the series' coefficients."""
    out, a = [], [Fraction(0)] * (n_max + 1)
    for m in range(n_max + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    return out


_BERN = _bernoulli(30)   # B_1 = +1/2 in this convention; only the even ones are used
# Stirling: lgamma(x) ~ ... + Σ_k B_2k / (2k (2k-1) x^(2k-1)), k = 1..9
_STIRLING = [float(_BERN[2 * k] / (2 * k * (2 * k - 1))) for k in range(1, 10)]
# digamma's asymptotic series: Σ_k B_2k / (2k) z^k, z = 1/x², k = 1..7 (PyTorch's A[])
_PSI_ASYM = [float(_BERN[2 * k] / (2 * k)) for k in range(1, 8)]
# Euler–Maclaurin: B_2j / (2j)!, j = 1..12
_EM = [float(_BERN[2 * j] / math.factorial(2 * j)) for j in range(1, 13)]
_PSI_10 = 2.25175258906672110764   # ψ(10), as PyTorch returns it at exactly 10


def _quietly(fn):
    """Run ``fn`` with the array module's floating-point warnings off: its poles and
    overflows are values here (inf, nan), as in PyTorch (Note [floating-point warnings]
    in backend/__init__.py silences viewgrad's warnings by a filter, which pytest resets)."""
    @functools.wraps(fn)
    def run(a, *args):
        errstate = getattr(B.xp_of(a), "errstate", None)
        with errstate(all="ignore") if errstate is not None else contextlib.nullcontext():
            return fn(a, *args)
    return run


def _f64(a):
    xp = B.xp_of(a)
    return xp, xp.asarray(a, dtype=B.float64)


def out_dtype(a):
    """The dtype of a result: the input's float dtype, else the default float dtype."""
    d = a.dtype
    return d if d.kind == "f" else B.default_float()


def _horner(coefs, z):
    """c[0] + c[1] z + c[2] z² + ... (coefs lowest degree first)."""
    acc = coefs[-1]
    for c in reversed(coefs[:-1]):
        acc = acc * z + c
    return acc


# -- the Hurwitz zeta function (Note [polygamma through the Hurwitz zeta]) -----------------

def _zeta_pos(xp, s, q):
    """ζ(s, q) for an integer s >= 2 and q > 0 (any q <= 0 in ``q`` must be masked out)."""
    cut = float(max(10, s))
    a = q
    total = xp.zeros_like(q)
    for _ in range(int(cut) + 1):          # q > 0: at most cut + 1 steps reach cut
        m = a < cut
        total = total + xp.where(m, a ** -s, 0.0)
        a = xp.where(m, a + 1.0, a)
    w = a
    b = w ** -s
    tail = w ** (1.0 - s) / (s - 1) + 0.5 * b   # (not w * b: w^-s underflows first)
    inv_w2 = 1.0 / (w * w)
    rising = float(s)                       # s (s+1) ... (s + 2j - 2)
    pw = b / w                              # w^(-s-2j+1), j = 1
    for j in range(len(_EM)):
        tail = tail + _EM[j] * rising * pw
        rising *= (s + 2 * j + 1) * (s + 2 * j + 2)
        pw = pw * inv_w2
    return total + tail


_BACK = 64   # -64 <= q < 0: the terms in pairs; below, the mirrored sums


def _zeta_paired(xp, s, q, m, m_max):
    """ζ(s, q) for q = -m - f, m in 0..m_max (<= 64), f in (0, 1):
        Σ_{j<=m} ((j+1-f)^-s + (-1)^s (j+f)^-s) + ζ(s, m+2-f),
    the pairs summed smallest first. A pair of odd s is a difference of close numbers,
    taken without cancellation; nothing large is left in the running sum, so ψ^(n)'s small
    values near its zeros on the negative axis stay accurate, and ψ^(12)(-1.5) is
    ψ^(12)(2.5) to the last bit. The arguments are q + k (exact: q's own terms), not
    j + 1 - f (which rounds when f < 1/2)."""
    total = _zeta_pos(xp, s, q + (2.0 * m + 2.0))
    for j in range(m_max, -1, -1):
        a, b = q + (m + 1.0 + j), -(q + (m - j))      # the positive term, the mirrored one
        if s % 2:
            # close a and b: a^-s - b^-s = -a^-s expm1(s log1p((a - b)/b)), a - b exact, so
            # the difference keeps its relative accuracy; apart (a ratio over 2), directly
            close = (a < 2.0 * b) & (b < 2.0 * a)
            pair = xp.where(close, -(a ** -s) * xp.expm1(s * xp.log1p((a - b) / b)),
                            a ** -s - b ** -s)
        else:
            pair = a ** -s + b ** -s
        total = total + xp.where(j <= m, pair, 0.0)
    return total


def _zeta(xp, s, q):
    """ζ(s, q) for an integer s >= 2 and finite q; inf at q = 0 and negative integers."""
    pos = q > 0
    m = xp.floor(-q)
    f = xp.where(pos, 0.5, -q - m)          # q = -M - f, f in [0, 1) (exact)
    pole = ~pos & (f == 0.0)
    near = ~pos & ~pole & (q >= -_BACK)
    r = _zeta_pos(xp, s, xp.where(pos, q, 1.0))
    if bool(near.any()):
        # on those elements only, and as many pairs as the farthest needs
        mn = m[near]
        r = xp.array(r, copy=True)
        r[near] = _zeta_paired(xp, s, q[near], mn, int(mn.max()))
    far = ~pos & ~pole & ~near
    if bool(far.any()):
        fs = xp.where(far, f, 0.5)
        sign = (-1.0) ** s
        # the two big sums first: for odd s and f = 1/2 they cancel exactly, and the
        # small third one is not lost in them
        head = _zeta_pos(xp, s, 1.0 - fs) + sign * _zeta_pos(xp, s, fs)
        neg = head - sign * _zeta_pos(xp, s, xp.where(far, m + 1.0 + fs, 1.0))
        r = xp.where(far, neg, r)
    return xp.where(pole, math.inf, r)


def _zeta_minus_one_table():
    """ζ(n) - 1 = ζ(n, 2) for n = 2..33: T(z)'s coefficients (Note [lgamma by series and
    Stirling]), computed once on the host."""
    xp = B.xp_of(0.0)
    two = xp.asarray([2.0])
    return [float(_zeta_pos(xp, n, two)[0]) for n in range(2, 34)]


_ZM1 = _zeta_minus_one_table()
_T_COEFS = [0.0, 0.0] + [(-1) ** n * _ZM1[n - 2] / n for n in range(2, 34)]


# -- lgamma (Note [lgamma by series and Stirling]) -------------------------------------------

def _lgamma2(xp, z):
    """lgamma(2 + z) for z in [-0.5, 0.5]."""
    return (1.0 - _EULER) * z + _horner(_T_COEFS, z)


def _lgamma_pos(xp, p):
    """lgamma(p) for p > 0 (finite)."""
    # (0, 0.5): lgamma(1 + p) - log p
    zs = xp.minimum(p, 0.5)
    small = _lgamma2(xp, zs) - xp.log1p(zs) - xp.log(zs)
    # [0.5, 1.5): lgamma(1 + z), z = p - 1
    z1 = xp.clip(p, 0.5, 1.5) - 1.0
    near1 = _lgamma2(xp, z1) - xp.log1p(z1)
    # [1.5, 10): step down into [1.5, 2.5), then lgamma(2 + z)
    q = xp.clip(p, 1.5, 10.0)
    prod = xp.ones_like(q)
    for _ in range(8):
        m = q >= 2.5
        prod = xp.where(m, prod * (q - 1.0), prod)
        q = xp.where(m, q - 1.0, q)
    mid = xp.log(prod) + _lgamma2(xp, q - 2.0)
    # [10, inf): Stirling
    x = xp.maximum(p, 10.0)
    r = 1.0 / x
    big = x * (xp.log(x) - 1.0) - 0.5 * xp.log(x) + _HALF_LOG_2PI + r * _horner(_STIRLING, r * r)
    return xp.where(p < 0.5, small, xp.where(p < 1.5, near1, xp.where(p < 10.0, mid, big)))


def _lgamma64(xp, x):
    neg = x <= 0.0
    p = xp.where(neg, 1.0 - x, x)
    p = xp.where(xp.isfinite(p), p, 1.0)
    lp = _lgamma_pos(xp, p)
    xf = xp.where(xp.isfinite(x), x, 0.5)
    d = xp.abs(xf - xp.round(xf))                                 # distance to an integer
    refl = _LOG_PI - xp.log(xp.sin(math.pi * d)) - lp
    r = xp.where(neg, refl, lp)
    r = xp.where(xp.isinf(x), math.inf, r)
    return xp.where(xp.isnan(x), x, r)


@_quietly
def lgamma(a):
    """log |Γ(a)|, elementwise (torch.lgamma's values; inf at the poles)."""
    xp, x = _f64(a)
    return _lgamma64(xp, x).astype(out_dtype(a), copy=False)


# -- digamma (Note [digamma as PyTorch computes it]) -----------------------------------------

def _digamma64(xp, x):
    neg = x < 0.0
    fin = xp.isfinite(x)
    xf = xp.where(fin, x, 1.0)
    frac = xf - xp.trunc(xf)
    p = xp.where(neg, 1.0 - xf, xf)
    a = xp.where(p == 0.0, 1.0, p)
    res = xp.zeros_like(a)
    for _ in range(10):                        # a > 0: ten steps reach 10
        m = a < 10.0
        res = res - xp.where(m, 1.0 / a, 0.0)
        a = xp.where(m, a + 1.0, a)
    z = 1.0 / xp.square(xp.where(a < 1e17, a, 1.0))
    y = xp.where(a < 1e17, z * _horner(_PSI_ASYM, z), 0.0)
    asym = xp.where(a == 10.0, _PSI_10, xp.log(a) - 0.5 / a - y)
    r = res + asym
    tan = xp.tan(math.pi * xp.where(frac == 0.0, 0.5, frac))
    r = xp.where(neg, r - math.pi / tan, r)
    r = xp.where(neg & (frac == 0.0), math.nan, r)            # negative integers
    r = xp.where(x == 0.0, xp.copysign(math.inf, -x), r)       # ψ(±0) = ∓inf
    r = xp.where(x == math.inf, math.inf, xp.where(x == -math.inf, math.nan, r))
    return xp.where(xp.isnan(x), x, r)


@_quietly
def digamma(a):
    """ψ(a) = d/da lgamma(a), elementwise (torch.digamma's values)."""
    xp, x = _f64(a)
    return _digamma64(xp, x).astype(out_dtype(a), copy=False)


@_quietly
def polygamma(a, n):
    """The n-th derivative of digamma, elementwise (torch.polygamma(n, a)'s values)."""
    xp, x = _f64(a)
    if n == 0:
        return _digamma64(xp, x).astype(out_dtype(a), copy=False)
    s = n + 1
    fin = xp.isfinite(x)
    z = _zeta(xp, s, xp.where(fin, x, 1.0))
    fact = float(math.factorial(n)) if n <= 170 else math.inf
    r = (1.0 if n % 2 else -1.0) * fact * z
    # ±inf as PyTorch gives them: trigamma 0 at +inf and nan at -inf; for n >= 2 its
    # zeta gives nan at +inf and a pole's inf at -inf
    if n == 1:
        r = xp.where(x == math.inf, 0.0, xp.where(x == -math.inf, math.nan, r))
    else:
        r = xp.where(x == math.inf, math.nan,
                     xp.where(x == -math.inf, (1.0 if n % 2 else -1.0) * math.inf, r))
    r = xp.where(xp.isnan(x), x, r)
    return r.astype(out_dtype(a), copy=False)


@_quietly
def mvlgamma(a, p):
    """The multivariate log-gamma: Σ_{i<p} lgamma(a - i/2) + p (p-1)/4 log π, elementwise."""
    xp, x = _f64(a)
    total = xp.zeros_like(x)
    for i in range(p - 1, -1, -1):           # PyTorch's order: a - (p-1)/2, ..., a - 0
        # the arguments rounded to a's dtype first, as PyTorch forms them: in float32,
        # 1e-8 - 1 is -1, a pole
        arg = (a - 0.5 * i).astype(a.dtype, copy=False) if a.dtype.kind == "f" else x - 0.5 * i
        total = total + _lgamma64(xp, xp.asarray(arg, dtype=B.float64))
    return (total + p * (p - 1) / 4.0 * _LOG_PI).astype(out_dtype(a), copy=False)


# -- I0, I1 (Note [I0 and I1 by series and asymptotics]) -------------------------------------

_BESSEL_SPLIT = 20.0
_SERIES_TERMS = 42
_ASYM_TERMS = 35


def _bessel_e(xp, ax, nu):
    """I_nu(|x|) e^-|x| for nu in (0, 1), |x| = ax >= 0 (may be inf)."""
    # series on [0, 20)
    x = xp.minimum(ax, _BESSEL_SPLIT)
    y = 0.25 * x * x
    term = xp.ones_like(x) if nu == 0 else 0.5 * x
    total = term
    for k in range(1, _SERIES_TERMS):
        term = term * y / (k * (k + nu))
        total = total + term
    series = total * xp.exp(-x)
    # asymptotics on [20, inf]
    xa = xp.maximum(ax, _BESSEL_SPLIT)
    mu = 4.0 * nu * nu
    c = xp.ones_like(xa)
    acc = c
    inv8x = 1.0 / (8.0 * xa)
    for k in range(1, _ASYM_TERMS):
        c = c * (-(mu - (2 * k - 1) ** 2) / k) * inv8x
        acc = acc + c
    asym = acc / xp.sqrt(2.0 * math.pi * xa)
    return xp.where(ax < _BESSEL_SPLIT, series, asym)


def _exp_limit(dt):
    """Where e^x overflows in the dtype PyTorch computes it in (float32 for float16)."""
    return 709.782712893384 if dt == B.float64 else 88.72283935546875


def _scaled(a, nu, scaled):
    xp, x = _f64(a)
    dt = out_dtype(a)
    ax = xp.abs(x)
    r = _bessel_e(xp, ax, nu)
    if not scaled:
        big = ax > _exp_limit(dt)
        r = xp.where(big, math.inf, r * xp.exp(xp.where(big, 0.0, ax)))
        r = xp.where(ax == math.inf, math.nan, r)   # PyTorch's e^inf · 0: nan at ±inf
    if nu == 1:
        r = xp.where(x < 0.0, -r, r)
    return xp.where(xp.isnan(x), x, r).astype(dt, copy=False)


@_quietly
def i0(a):
    """The modified Bessel function of the first kind, order 0 (torch.i0's values)."""
    return _scaled(a, 0, False)


@_quietly
def i0e(a):
    """i0(a) · exp(-|a|), without the overflow (torch.special.i0e's values)."""
    return _scaled(a, 0, True)


@_quietly
def i1(a):
    """The modified Bessel function of the first kind, order 1 (torch.special.i1)."""
    return _scaled(a, 1, False)


@_quietly
def i1e(a):
    """i1(a) · exp(-|a|), without the overflow (torch.special.i1e's values)."""
    return _scaled(a, 1, True)
