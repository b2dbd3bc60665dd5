"""gradcheck and gradgradcheck: compare autograd's Jacobians with finite differences.

``gradcheck(f, inputs)`` builds, for every (output, input requiring grad) pair, the
numerical Jacobian by central differences ``(f(x + eps) - f(x - eps)) / 2 eps`` and the
analytical one by one ``autograd.grad`` call per output element, and checks that they are
close. Use float64 inputs: float32 is too coarse for finite differences.
``gradgradcheck`` runs gradcheck on the function ``(inputs, v) -> grad(f(inputs), inputs, v,
create_graph=True)``: it checks the backward formulas' own derivatives (double backward).
"""
from __future__ import annotations

import warnings

from .. import backend as B
from . import grad_mode as _gm
from .engine import grad as _grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _outputs(func, inputs):
    from ..tensor import Tensor
    out = _as_tuple(func(*inputs))
    return tuple(o for o in out if isinstance(o, Tensor) and o._data.dtype.kind == "f")


def _host64(t):
    """A float64 host copy of t's data, flattened: the Jacobians are built on the host."""
    return t._device.to_host(t._data).astype(B.float64).ravel()


def _numerical(func, inputs, diff_idx, eps):
    """{(out k, in i): matrix [out numel, in numel]} by central differences.

    As in PyTorch, ``func`` sees the very inputs the caller passed (requiring grad) with
    grad mode as the caller has it; only their arrays are perturbed."""
    base = _outputs(func, inputs)
    jac = {}
    for i in diff_idx:
        x = inputs[i]
        n = x.numel()
        cols = [B.host_zeros((o.numel(), n)) for o in base]
        for j in range(n):
            idx = B.unravel_index(j, tuple(x.shape)) if x.dim() else ()
            orig = x._data[idx].item() if x.dim() else x._data.item()
            x._data[idx] = orig + eps
            plus = [_host64(o) for o in _outputs(func, inputs)]
            x._data[idx] = orig - eps
            minus = [_host64(o) for o in _outputs(func, inputs)]
            x._data[idx] = orig
            for k in range(len(base)):
                cols[k][:, j] = (plus[k] - minus[k]) / (2 * eps)
        for k in range(len(base)):
            jac[(k, i)] = cols[k]
    return jac


def _analytical(func, inputs, diff_idx):
    outs = _outputs(func, inputs)
    diff_inputs = [inputs[i] for i in diff_idx]
    jac = {(k, i): B.host_zeros((o.numel(), inputs[i].numel()))
           for k, o in enumerate(outs) for i in diff_idx}
    for k, o in enumerate(outs):
        if o.grad_fn is None and not o.requires_grad:
            continue
        for m in range(o.numel()):
            v = o.new_zeros(o.shape)
            idx = B.unravel_index(m, tuple(o.shape)) if o.dim() else ()
            v._data[idx] = 1
            gs = _grad((o,), diff_inputs, (v,), retain_graph=True, allow_unused=True)
            for i, g in zip(diff_idx, gs):
                if g is not None:
                    jac[(k, i)][m, :] = _host64(g)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, fast_mode=False):
    """True when autograd's Jacobians match finite differences (else raise / False)."""
    from ..tensor import Tensor
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for i in diff_idx:
        for size, stride in zip(inputs[i].shape, inputs[i].stride()):
            if stride == 0 and size > 1:
                raise RuntimeError(
                    f"The {i}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck.")
        if inputs[i]._data.dtype != B.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of "
                          "double precision floating point.", stacklevel=2)
    num = _numerical(func, inputs, diff_idx, eps)
    ana = _analytical(func, inputs, diff_idx)
    for key in sorted(num):
        a, n = ana[key], num[key]
        if not B.host_allclose(a, n, rtol=rtol, atol=atol):
            k, i = key
            msg = (f"Jacobian mismatch for output {k} with respect to input {i},\n"
                   f"numerical:{n}\nanalytical:{a}\n")
            if raise_exception:
                raise GradcheckError(msg)
            return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, fast_mode=False):
    """gradcheck of the first derivative: checks double backward."""
    from ..tensor import Tensor
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if grad_outputs is None:
        outs = _outputs(func, inputs)
        # normal samples from the global generator (vg.manual_seed), as torch.randn_like
        grad_outputs = tuple(o.detach().clone().normal_().requires_grad_(True) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_derivative(*args):
        ins, gos = args[:n_in], args[n_in:]
        with _gm.enable_grad():  # gradgradcheck's caller may be under no_grad
            outs = _outputs(func, ins)
            diff = [ins[i] for i in diff_idx]
            gs = _grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
