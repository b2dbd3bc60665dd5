"""Random sampling: ``Generator``, ``manual_seed``, the random factories (rand, randn,
randint, randperm, normal, bernoulli, multinomial, ``*_like``) and the in-place samplers
(uniform_, normal_, bernoulli_, exponential_, random_, log_normal_, cauchy_, geometric_).

Every function takes ``generator=`` (default: the global generator that ``manual_seed``
seeds), as in PyTorch. The numbers are PyTorch's own: a seed gives the same stream as
PyTorch's CPU generator, drawn and transformed the way its CPU kernels do (ops/streams.py
says how), so ``vg.manual_seed(0); vg.randn(3)`` prints what ``torch.manual_seed(0);
torch.randn(3)`` prints, and a PyTorch script run with ``--torch`` starts from the same
weights. Numbers are drawn on the host and copied to the tensor's device, so one seed
gives the same numbers on every device (PyTorch's CUDA generator has streams of its own).

Sampling has no gradient. The in-place samplers go through the in-place choke point like
every in-place op: on a tensor that is part of a graph they record PyTorch's node
(``UniformBackward0``...), whose gradient is zero — the old values no longer matter.
"""
from __future__ import annotations

import json

from .. import backend as B
from ..tensor import Tensor
from . import factories as _factories   # (empty_like; factories imports this module last)
from .args import with_out
from .streams import Stream
from .table import apply_inplace, defop, method, zeros_grad

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "rand", "randn", "randint", "randperm",
           "normal", "bernoulli", "multinomial", "poisson", "rand_like", "randn_like",
           "randint_like"]

_DEFAULT_SEED = 67280421310721  # a fresh torch.Generator() starts from this seed too


class Generator:
    """A random number generator, as ``torch.Generator``: pass it as ``generator=`` to any
    random function to get a stream of its own.

    ``g = vg.Generator().manual_seed(0)`` — seeding returns the generator, so a generator
    seeded twice with the same seed gives the same numbers again. ``g.seed()`` reseeds from
    the operating system's entropy; ``g.initial_seed()`` is the last seed;
    ``g.get_state()`` / ``g.set_state(state)`` save and restore the position in the
    stream (a uint8 tensor). ``device`` is recorded for compatibility: numbers are always
    drawn on the host and copied to the tensor's device."""

    def __init__(self, device="cpu"):
        self.device = B.device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Restart the stream from ``seed`` (an int); returns the generator."""
        seed = int(seed) & 0xFFFFFFFFFFFFFFFF   # PyTorch wraps negative seeds the same way
        self._initial_seed = seed
        self.rng = Stream(seed)
        return self

    def seed(self):
        """Reseed from the operating system's entropy; returns the new seed."""
        s = int(B.host_rng(None).integers(0, 2 ** 63))
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed the stream last started from."""
        return self._initial_seed

    def get_state(self):
        """The generator's position in its stream, as a uint8 tensor (for ``set_state``)."""
        raw = json.dumps({"seed": self._initial_seed,
                          "state": self.rng.get_state()}).encode("utf-8")
        return Tensor._make(B.host_array(list(raw), dtype=B.uint8), B.cpu)

    def set_state(self, new_state):
        """Go back to a position saved by ``get_state``; returns the generator."""
        if not isinstance(new_state, Tensor) or new_state.dtype != B.uint8:
            raise TypeError("set_state expects the uint8 tensor that get_state() returned")
        try:
            d = json.loads(bytes(new_state.cpu().tolist()).decode("utf-8"))
            stream = Stream(0)
            stream.set_state(d["state"])
            self._initial_seed, self.rng = int(d["seed"]), stream
        except (ValueError, KeyError, TypeError) as e:
            raise RuntimeError(f"set_state: not a state from Generator.get_state() ({e})"
                               ) from None
        return self

    def __repr__(self):
        return f"<viewgrad.Generator device={self.device.type} seed={self._initial_seed}>"


default_generator = Generator()   # PyTorch's starts from _DEFAULT_SEED too


def manual_seed(seed):
    """Seed the global generator (what rand, randn, dropout, init... use without
    ``generator=``); returns it, as ``torch.manual_seed``. The numbers that follow are
    PyTorch's: the same seed gives the same stream as PyTorch's CPU generator."""
    return default_generator.manual_seed(seed)


def seed():
    """Reseed the global generator from the system's entropy; returns the seed
    (``torch.seed``)."""
    return default_generator.seed()


def initial_seed():
    """The global generator's last seed (``torch.initial_seed``)."""
    return default_generator.initial_seed()


def get_rng_state():
    """The global generator's state (``torch.get_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the global generator's state (``torch.set_rng_state``)."""
    default_generator.set_state(new_state)


def rng_of(generator):
    """The stream behind ``generator=`` (None: the global one): an ops/streams.Stream."""
    if generator is None:
        return default_generator.rng
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a viewgrad.Generator, got "
                        f"{type(generator).__name__}")
    return generator.rng


def _size(args, size, fn):
    if size is not None:
        if args:
            raise TypeError(f"{fn}() got the size both positionally and as size=")
        args = (size,)
    from .factories import _shape
    return _shape(args)


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _finish(host, dtype, device, requires_grad, default=None):
    dev = B.device(device)
    host = host.astype(B.to_dtype(dtype) or default or B.default_float(), copy=False)
    t = Tensor._make(host if dev is B.cpu else dev.from_host(host), dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


def rand(*size, generator=None, out=None, dtype=None, device=None, requires_grad=False,
         **kw):
    """Uniform samples in [0, 1): ``vg.rand(3, 4)``, ``vg.rand((3, 4))``,
    ``vg.rand(size=(3, 4), generator=g)``, as ``torch.rand``."""
    shape = _size(size, kw.pop("size", None), "rand")
    _no_extra(kw, "rand")
    dt = _float_kernel(dtype, "check_uniform_bounds")
    host = rng_of(generator).uniform(_numel(shape), dt).reshape(shape)
    return with_out(_finish(host, dt, device, requires_grad), out, "rand")


def randn(*size, generator=None, out=None, dtype=None, device=None, requires_grad=False,
          **kw):
    """Standard normal samples: ``vg.randn(3, 4)``, ``vg.randn(size=(2,), generator=g)``,
    as ``torch.randn``."""
    shape = _size(size, kw.pop("size", None), "randn")
    _no_extra(kw, "randn")
    dt = _float_kernel(dtype, "normal_kernel_cpu")
    host = rng_of(generator).normal(_numel(shape), dt).reshape(shape)
    return with_out(_finish(host, dt, device, requires_grad), out, "randn")


def _float_kernel(dtype, kernel):
    """The dtype a float sampler fills (the default float), after PyTorch's refusal of an
    integer or bool one (``kernel``: the name its error gives)."""
    dt = B.to_dtype(dtype) or B.default_float()
    if dt.kind not in "fc":
        from .args import torch_type_name
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{torch_type_name(dt)}'")
    return dt


def _no_extra(kw, fn):
    kw.pop("layout", None)
    kw.pop("pin_memory", None)
    if kw:
        raise TypeError(f"{fn}() got an unexpected keyword argument {next(iter(kw))!r}")


def randint(*args, size=None, generator=None, out=None, dtype=None, device=None,
            requires_grad=False, low=None, high=None):
    """Random integers in [low, high): ``vg.randint(10, (3,))`` (low = 0) or
    ``vg.randint(3, 10, (2, 2))``, int64 by default, as ``torch.randint``."""
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        size = args.pop()
    if high is None:
        if not args:
            raise TypeError("randint() missing the upper bound 'high'")
        high = args.pop()
    if low is None:
        low = args.pop() if args else 0
    if size is None or args:
        raise TypeError("randint(low=0, high, size): size must be a tuple, e.g. "
                        "vg.randint(10, (3,))")
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low}"
                           f" >= to={high}")
    shape = _size((), tuple(size), "randint")
    host = rng_of(generator).randint(_numel(shape), low, high).reshape(shape)
    return with_out(_finish(host, dtype, device, requires_grad, B.int64), out, "randint")


def randperm(n, *, generator=None, out=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0..n-1 (int64), as ``torch.randperm``."""
    host = rng_of(generator).randperm(int(n))
    return with_out(_finish(host, dtype, device, requires_grad, B.int64), out, "randperm")


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    """Uniform samples in [0, 1) with the shape, dtype and device of ``input``: PyTorch's
    ``empty_like(input).uniform_()``, so laid out as ``input`` and drawn in memory order."""
    t = _factories.empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    dt = _float_kernel(t.dtype, "check_uniform_bounds")
    return _finish(_as_laid_out(_uniform(rng_of(generator), t), t), dt, t.device,
                   requires_grad)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
               memory_format=None):
    """Standard normal samples with the shape, dtype and device of ``input``: PyTorch's
    ``empty_like(input).normal_()`` (a tensor that is not contiguous is drawn one value
    at a time, as PyTorch's kernel draws it)."""
    t = _factories.empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    dt = _float_kernel(t.dtype, "normal_kernel_cpu")
    return _finish(_as_laid_out(_normal(rng_of(generator), t), t), dt, t.device,
                   requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False, memory_format=None):
    """Random integers in [low, high) with the shape, dtype and device of ``input``
    (``randint_like(x, 10)`` is low = 0), as ``torch.randint_like``: PyTorch's
    ``empty_like(input).random_(low, high)``."""
    if high is None:
        low, high = 0, low
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low}"
                           f" >= to={high}")
    t = _factories.empty_like(input, dtype=dtype, device=device, memory_format=memory_format)
    host = _fill(rng_of(generator).randint(t.numel(), low, high).astype(t.dtype), t)
    return _finish(_as_laid_out(host, t), t.dtype, t.device, requires_grad)


def _as_laid_out(host, t):
    """A *_like sampler's values (``_fill``'s host array) with ``t``'s exact strides, a
    size-1 dim's too (``_fill`` walks the memory order; the strides are empty_like's).
    Only ``t``'s geometry is read: no copy of it off its device."""
    return B.preserve_layout(host, t._data)


def _host(x):
    """A tensor's values as a host array (explicitly copied off its device)."""
    return x._device.to_host(x._data) if isinstance(x, Tensor) else x


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None,
           device=None, requires_grad=False):
    """Normal samples with the given ``mean`` and ``std``, as ``torch.normal``: each may be
    a tensor (elementwise, broadcast together) or a number; with two numbers, pass
    ``size``. Like any sampling it has no gradient (PyTorch records a node whose gradient
    is zero; use ``mean + std * vg.randn_like(mean)`` to differentiate through the noise
    — the reparameterisation trick)."""
    like = mean if isinstance(mean, Tensor) else std if isinstance(std, Tensor) else None
    if like is None:
        if size is None:
            raise TypeError("normal(mean, std, size): with a number for both mean and std, "
                            "give size")
        shape = _size((), tuple(size), "normal")
    else:
        shape = B.broadcast_shapes(*[tuple(t.shape) for t in (mean, std)
                                     if isinstance(t, Tensor)])
    m, s = _host(mean), _host(std)
    if not isinstance(std, Tensor) and s < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {s}")
    if isinstance(std, Tensor) and (s < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    stream = rng_of(generator)
    dt = B.to_dtype(dtype) or (like.dtype if like is not None else B.default_float())
    _float_kernel(dt, "normal_kernel_cpu")
    if like is None:
        host = stream.normal(_numel(shape), dt, float(m), float(s)).reshape(shape)
    elif isinstance(std, Tensor):   # PyTorch: normal_(0, 1), then * std + mean
        host = (stream.normal(_numel(shape), dt).reshape(shape) * s + m).astype(dt)
    else:                           # PyTorch: normal_(0, std), then + mean
        host = (stream.normal(_numel(shape), dt, 0.0, float(s)).reshape(shape)
                + m).astype(dt)
    if like is not None:
        dtype = dtype or like.dtype
        device = device or like.device
    return with_out(_finish(B.host_array(host), dtype, device, requires_grad), out, "normal")


@method("bernoulli")
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples: 1 with probability ``input`` elementwise (or with probability ``p``
    everywhere when given), with input's shape and dtype, as ``torch.bernoulli``. No
    gradient."""
    shape = tuple(input.shape)
    if p is None:
        probs = _host(input)
        if ((probs < 0) | (probs > 1)).any():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false."
                               "  (bernoulli: every probability must be in [0, 1])")
        host = rng_of(generator).bernoulli_tensor(probs)
    else:
        host = rng_of(generator).bernoulli(_numel(shape), p).reshape(shape)
    return with_out(_finish(host, input.dtype, input.device, False), out, "bernoulli")


@method("multinomial")
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices drawn from the categorical distribution(s) whose weights are the rows of
    ``input`` (1-D or 2-D, non-negative, not necessarily summing to 1), ``num_samples``
    per row, with or without replacement, as ``torch.multinomial``. Returns int64."""
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    w = _host(input)
    rows = w.reshape(1, -1) if input.dim() == 1 else w
    n = rows.shape[1]
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if (rows < 0).any() or (rows != rows).any():
        raise RuntimeError("invalid multinomial distribution (encountering probability "
                           "entry < 0 or nan)")
    sums = rows.sum(axis=1)
    if (sums <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    host = rng_of(generator).multinomial(rows, int(num_samples), bool(replacement))
    if input.dim() == 1:
        host = host.reshape(-1)
    return with_out(_finish(host, B.int64, input.device, False), out, "multinomial")


def poisson(input, generator=None):
    """Poisson samples whose rates are ``input`` (same shape and dtype), as
    ``torch.poisson``. No gradient."""
    host = rng_of(generator).poisson(_host(input))
    return _finish(host, input.dtype, input.device, False)


# -- in-place samplers: rows of the table whose gradient is zero ------------------------------

_zero = zeros_grad   # (table.py: zeros, not grad * 0)


def _sampler(name, node, draw, doc):
    """Declare the row and the method ``name_``; ``draw(stream, tensor, *args)`` -> host
    array of the tensor's shape."""
    op = defop(name, node, None, self=_zero)

    def fn_(self, *args, generator=None, **kw):
        host = draw(rng_of(generator), self, *args, **kw)
        host = B.host_array(host).astype(self.dtype, copy=False)
        dev = self._device
        sample = host if dev is B.cpu else dev.from_host(host)
        return apply_inplace(op, self, name=name + "_", compute=lambda _old: sample)

    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = (f"{doc} (``torch.Tensor.{name}_``), from ``generator=`` or the global "
                   f"generator. In place, through the choke point: on a tensor in a graph "
                   f"it records ``{node}`` (zero gradient).")
    method(name + "_")(fn_)
    return op


def _fill(values, t):
    """The drawn values (a flat host array) in ``t``'s shape, written in the order
    PyTorch's kernels visit ``t``'s elements: memory order (the C order of a contiguous
    tensor; for a transposed view, its base's order)."""
    shape = tuple(t.shape)
    if t.is_contiguous():
        return values.reshape(shape)
    order = sorted(range(t.dim()), key=lambda d: -t.stride(d))   # outermost dim first
    walked = values.reshape(tuple(shape[d] for d in order))
    return walked.transpose(tuple(order.index(d) for d in range(t.dim())))


def _uniform(st, t, from_=0.0, to=1.0, **kw):
    _float_kernel(t.dtype, "check_uniform_bounds")   # (an integer tensor: refused)
    from_ = kw.pop("from", from_)
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_} > to={to}")
    return _fill(st.uniform(t.numel(), t.dtype, from_, to), t)


def _normal(st, t, mean=0.0, std=1.0):
    _float_kernel(t.dtype, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill(st.normal(t.numel(), t.dtype, mean, std, t.is_contiguous()), t)


def _bernoulli(st, t, p=0.5):
    if isinstance(p, Tensor):
        return st.bernoulli_tensor(_host(p), tuple(t.shape))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return _fill(st.bernoulli(t.numel(), p), t)


def _exponential(st, t, lambd=1.0):
    return _fill(st.exponential(t.numel(), lambd), t)


def _random(st, t, from_=0, to=None, **kw):
    from_ = kw.pop("from", from_)
    if to is None and not from_:
        return _fill(st.random_full(t.numel(), t.dtype), t)   # random_()
    if to is None:
        from_, to = 0, from_                                    # random_(to)
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={from_} >= to={to}")
    return _fill(st.randint(t.numel(), from_, to), t)


def _log_normal(st, t, mean=1.0, std=2.0):
    return _fill(st.log_normal(t.numel(), mean, std), t)


def _cauchy(st, t, median=0.0, sigma=1.0):
    return _fill(st.cauchy(t.numel(), median, sigma), t)


def _geometric(st, t, p):
    return _fill(st.geometric(t.numel(), p), t)


for _name, _node, _draw, _doc in [
        ("uniform", "UniformBackward0", _uniform,
         "Fill with uniform samples in [from, to): ``w.uniform_(-0.1, 0.1)``"),
        ("normal", "NormalBackward0", _normal,
         "Fill with normal samples: ``w.normal_(mean=0, std=0.02)``"),
        ("bernoulli", "BernoulliBackward2", _bernoulli,
         "Fill with 0/1 samples, 1 with probability ``p`` (a number or a tensor)"),
        ("exponential", "ExponentialBackward0", _exponential,
         "Fill with exponential samples of rate ``lambd``"),
        ("random", "RandomBackward0", _random,
         "Fill with whole numbers in [from, to) (``x.random_(10)``: [0, 10))"),
        ("log_normal", "LogNormalBackward0", _log_normal,
         "Fill with samples whose log is normal(mean, std)"),
        ("cauchy", "CauchyBackward0", _cauchy, "Fill with Cauchy samples (median, sigma)"),
        ("geometric", "GeometricBackward0", _geometric,
         "Fill with geometric samples: trials up to the first success of probability p")]:
    _sampler(_name, _node, _draw, _doc)
