"""PyTorch's CPU random streams, number for number.

``torch.manual_seed(0); torch.randn(3)`` gives the same numbers here as in PyTorch, so a
script written for PyTorch (``viewgrad run --torch``) trains from the same initial
weights, drops out the same units and shuffles its data the same way. That takes two
things, both public behaviour of PyTorch's CPU generator (``at::CPUGeneratorImpl``):

1. The engine: a 32-bit Mersenne Twister seeded with the seed's low 32 bits
   (``backend.host_mt19937``). ``random32`` is one 32-bit output; ``random64`` is two,
   the first one high.
2. The transforms, each the one PyTorch's CPU kernels apply to those outputs:

   ====================  ==========================================================
   uniform (float32)     the low 24 bits of one output, times 2^-24, scaled to [a, b)
   uniform (float64)     the low 53 bits of a random64, times 2^-53
   normal, n >= 16       Box-Muller on 16 values at a time: 16 uniforms u, then
                         r = sqrt(-2 log(1 - u[j])), θ = 2π u[j+8], out[j] = r cos θ,
                         out[j+8] = r sin θ; a tail shorter than 16 is redone on the
                         LAST 16 slots with 16 fresh uniforms
   normal, n < 16        one double at a time: two float64 uniforms give r cos θ and
                         r sin θ; the sine is KEPT in the generator for the next call
   randint [lo, hi)      lo + output % (hi - lo) (random64 when hi - lo >= 2^32)
   randperm(n)           Fisher-Yates: swap i with i + random32 % (n - i)
   bernoulli_(p)         float64 uniform < p    (a tensor p: float32 uniform < p)
   exponential_(λ)       -log1p(-u) / λ with a float64 uniform
   ====================  ==========================================================

float32 normals are computed in float32, as PyTorch's vectorised kernel does, so they
agree with PyTorch's to a few units in the last place rather than bit for bit (and a
float64 uniform in [a, b) may differ in its last bit: PyTorch rounds the scaling once). Every
array here is a host array; ops/random.py copies the numbers to the tensor's device.
"""
from __future__ import annotations

import math

from .. import backend as B

H = B.host_numpy()   # host arrays only: these numbers are drawn on the CPU, as PyTorch's

_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


class Stream:
    """One generator's position: the Mersenne Twister and the cached normal."""

    __slots__ = ("engine", "next_normal")

    def __init__(self, seed: int):
        self.engine = B.host_mt19937(seed)
        self.next_normal = None   # the sine half of the last scalar Box-Muller pair

    # -- raw outputs --------------------------------------------------------------------

    def random32(self, n: int):
        return self.engine.random_raw(int(n)).astype(H.uint64)

    def random64(self, n: int):
        r = self.random32(2 * n)
        return (r[0::2] << H.uint64(32)) | r[1::2]

    # -- PyTorch's transforms -----------------------------------------------------------

    def uniform(self, n, dtype, low=0.0, high=1.0):
        """n uniforms in [low, high) of ``dtype``, as ``uniform_`` fills a tensor."""
        dtype = H.dtype(dtype)
        digits = _DIGITS.get(dtype.name, 24)
        bits = self.random64(n) if digits == 53 else self.random32(n)
        x = (bits & H.uint64((1 << digits) - 1)).astype(H.float64) * 2.0 ** -digits
        low, high = (float(H.array(v, dtype=dtype)) for v in (low, high))
        # PyTorch's compiler fuses x * (high - low) + low into one rounding (an FMA);
        # extended precision gets that rounding too, all but a few times in 10^4.
        # The range is computed in the dtype first (as PyTorch's kernel: a float32 tensor's
        # high - low is a float32), exact for symmetric bounds, not for others.
        wide = x.astype(H.longdouble)
        span = H.longdouble(dtype.type(high - low))
        return (wide * span + H.longdouble(low)).astype(dtype)

    def normal(self, n, dtype, mean=0.0, std=1.0, contiguous=True):
        """n normals of ``dtype``, as ``normal_`` fills a tensor (see the table above)."""
        dtype = H.dtype(dtype)
        if n >= 16 and contiguous:
            work = H.float32 if dtype == H.float32 else H.float64
            data = self.uniform(n, dtype).astype(work)
            whole = n - n % 16
            data[:whole] = _box_muller16(data[:whole], mean, std, work)
            if n % 16:
                data[n - 16:] = _box_muller16(self.uniform(16, dtype).astype(work),
                                              mean, std, work)
            return data.astype(dtype)
        out = H.empty(n, dtype=H.float64)
        for k in range(n):
            if self.next_normal is not None:
                z, self.next_normal = self.next_normal, None
            else:
                u1, u2 = self.uniform(2, H.float64)
                r = math.sqrt(-2.0 * math.log1p(-float(u2)))
                theta = 2.0 * math.pi * float(u1)
                self.next_normal = r * math.sin(theta)
                z = r * math.cos(theta)
            out[k] = z * std + mean
        return out.astype(dtype)

    def randint(self, n, low, high):
        """n integers in [low, high), as ``random_(low, high)`` / ``randint``."""
        span = int(high) - int(low)
        bits = self.random64(n) if span >= 1 << 32 else self.random32(n)
        return (bits % H.uint64(span)).astype(H.int64) + int(low)

    def random_full(self, n, dtype):
        """n whole numbers as ``random_()`` with no bounds draws them for ``dtype``:
        [0, 2^mantissa] for floats, [0, max] for integers."""
        dtype = H.dtype(dtype)
        if dtype == H.bool_:
            return (self.random32(n) & H.uint64(1)).astype(dtype)
        wide = dtype in (H.float64, H.int64)
        bits = self.random64(n) if wide else self.random32(n)
        if dtype.kind == "f":
            mod = (1 << _DIGITS.get(dtype.name, 24)) + 1
        else:
            mod = int(H.iinfo(dtype).max) + 1
        return (bits % H.uint64(mod)).astype(dtype)

    def randperm(self, n):
        """A permutation of 0..n-1, shuffled as PyTorch's CPU ``randperm``."""
        perm = list(range(n))
        draws = self.random32(max(n - 1, 0)).tolist()
        for i in range(n - 1):
            z = i + draws[i] % (n - i)
            perm[i], perm[z] = perm[z], perm[i]
        return H.array(perm, dtype=H.int64)

    def bernoulli(self, n, p):
        """n draws of 1 with probability p (a number), as ``bernoulli_(p)``."""
        return self.uniform(n, H.float64) < float(p)

    def bernoulli_tensor(self, probs, shape=None):
        """One draw per element of the host array ``probs`` (broadcast to ``shape``), as
        ``bernoulli(probs)`` / ``bernoulli_(probs)``."""
        probs = H.broadcast_to(probs, probs.shape if shape is None else shape)
        u = self.uniform(probs.size, H.float32).astype(H.float64)
        return u.reshape(probs.shape) < probs.astype(H.float32).astype(H.float64)

    def exponential(self, n, lambd=1.0):
        return -H.log1p(-self.uniform(n, H.float64)) / float(lambd)

    def cauchy(self, n, median=0.0, sigma=1.0):
        return median + sigma * H.tan(math.pi * (self.uniform(n, H.float64) - 0.5))

    def log_normal(self, n, mean=1.0, std=2.0):
        return H.exp(self.normal(n, H.float64, mean, std, contiguous=False))

    def geometric(self, n, p):
        return H.ceil(H.log(self.uniform(n, H.float64)) / math.log1p(-float(p)))

    def poisson(self, rates):
        """One Poisson sample per element of the host array ``rates``, as PyTorch's CPU
        sampler: multiplying float64 uniforms for rates below 10, Hörmann's transformed
        rejection (PTRS) from 10 up."""
        flat = [self._poisson_one(float(lam)) for lam in rates.reshape(-1).tolist()]
        return H.array(flat, dtype=H.float64).reshape(rates.shape)

    def _poisson_one(self, lam):
        def u():
            return float(self.uniform(1, H.float64)[0])
        if lam >= 10:
            slam, loglam = math.sqrt(lam), math.log(lam)
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            invalpha = 1.1239 + 1.1328 / (b - 3.4)
            vr = 0.9277 - 3.6224 / (b - 2)
            while True:
                U = u() - 0.5
                V = u()
                us = 0.5 - abs(U)
                k = math.floor((2 * a / us + b) * U + lam + 0.43)
                if us >= 0.07 and V <= vr:
                    return k
                if k < 0 or (us < 0.013 and V > us):
                    continue
                if (math.log(V) + math.log(invalpha) - math.log(a / (us * us) + b)
                        <= -lam + k * loglam - math.lgamma(k + 1)):
                    return k
        if lam == 0:
            return 0
        enlam, x, prod = math.exp(-lam), 0, 1.0
        while True:
            prod *= u()
            if prod > enlam:
                x += 1
            else:
                return x

    def multinomial(self, rows, num_samples, replacement):
        """Indices drawn per row of the host float array ``rows`` (weights), as PyTorch:
        with replacement, a binary search of each float64 uniform in the row's cumulative
        sum (in the weights' dtype); without, the top ``num_samples`` of weights / E with
        E ~ Exp(1) (the exponential-race form of sampling without replacement)."""
        if replacement:
            out = []
            for row in rows:
                cum = H.cumsum(row)
                cum = cum / cum[-1]
                u = self.uniform(num_samples, H.float64)
                out.append(H.searchsorted(cum.astype(H.float64), u, side="left"))
            return H.minimum(H.array(out, dtype=H.int64), rows.shape[1] - 1)
        q = self.exponential(rows.size).astype(rows.dtype).reshape(rows.shape)
        race = rows / q
        return H.argsort(-race, axis=1, kind="stable")[:, :num_samples].astype(H.int64)

    # -- state ----------------------------------------------------------------------------

    def get_state(self) -> dict:
        st = self.engine.state["state"]
        return {"key": [int(k) for k in st["key"]], "pos": int(st["pos"]),
                "next_normal": self.next_normal}

    def set_state(self, d: dict) -> None:
        key = H.array(d["key"], dtype=H.uint32)
        if key.shape != (624,) or not 0 <= int(d["pos"]) <= 624:
            raise ValueError("not a Mersenne Twister state")
        self.engine.state = {"bit_generator": "MT19937",
                             "state": {"key": key, "pos": int(d["pos"])}}
        nn = d.get("next_normal")
        self.next_normal = None if nn is None else float(nn)


def _box_muller16(data, mean, std, work):
    """PyTorch's ``normal_fill_16`` on every block of 16 uniforms in ``data``."""
    blocks = data.reshape(-1, 16)
    u1 = work(1) - blocks[:, :8]
    u2 = blocks[:, 8:]
    radius = H.sqrt(work(-2) * H.log(u1))
    theta = work(2.0 * math.pi) * u2
    mean, std = work(mean), work(std)
    out = H.empty_like(blocks)
    out[:, :8] = radius * H.cos(theta) * std + mean
    out[:, 8:] = radius * H.sin(theta) * std + mean
    return out.reshape(-1)

