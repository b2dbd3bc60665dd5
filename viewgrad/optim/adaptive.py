"""RMSprop, Adagrad and Adadelta: PyTorch's algorithms, step for step.

Each keeps per-parameter running statistics in ``optimizer.state[p]`` and updates the
parameter in place under no_grad (the base class, ``viewgrad/optim/__init__.py``, walks
the groups). The formulas are written with the same operation order as PyTorch's
single-tensor implementations, so that the same gradients give the same parameters to
the last bit that float arithmetic allows.
"""
from __future__ import annotations

from ..ops.factories import full_like, zeros_like
from . import (Optimizer, _check_fused_foreach, _check_implementation_flags, _check_lr,
               _init_step, _next_step, _scalar_state)

__all__ = ["RMSprop", "Adagrad", "Adadelta"]


def _check(name, value, low=0.0):
    """PyTorch's ``not low <= value`` check: a NaN is refused too."""
    if not low <= value:
        raise ValueError(f"Invalid {name}: {value}")


class RMSprop(Optimizer):
    """RMSprop (Hinton):

        square_avg = alpha * square_avg + (1 - alpha) * g²
        avg = sqrt(square_avg - grad_avg²) (centered) or sqrt(square_avg), then + eps
        buf = momentum * buf + g / avg;  p -= lr * buf   (momentum > 0)
        p -= lr * g / avg                                (otherwise)
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_implementation_flags(differentiable)
        _check_lr(lr)
        _check("epsilon value", eps)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        _check("alpha value", alpha)
        # (PyTorch's keys and order: Note [an optimizer's group keys])
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _update(self, p, grad, group, state):
        g = self._l2_grad(p, grad, group)
        if not state:
            _init_step(state)
            state["square_avg"] = zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = zeros_like(p)
        _next_step(state)
        alpha = group["alpha"]
        sq = state["square_avg"]
        sq.mul_(alpha).add_(g * g, alpha=1 - alpha)
        if group["centered"]:
            ga = state["grad_avg"]
            ga.add_(g - ga, alpha=1 - alpha)     # torch's lerp_(grad, 1 - alpha)
            avg = (sq - ga * ga).sqrt().add_(group["eps"])
        else:
            avg = sq.sqrt().add_(group["eps"])
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf.mul_(group["momentum"]).add_(g / avg)
            p.add_(buf, alpha=-group["lr"])
        else:
            p.add_(g / avg, alpha=-group["lr"])


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.):

        clr = lr / (1 + (step - 1) * lr_decay)
        sum += g²;  p -= clr * g / (sqrt(sum) + eps)
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        _check_implementation_flags(differentiable)
        _check_lr(lr)
        _check("lr_decay value", lr_decay)
        _check("weight_decay value", weight_decay)
        _check("initial_accumulator_value value", initial_accumulator_value)
        _check("epsilon value", eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, fused=fused))
        _check_fused_foreach(fused, foreach)
        # As PyTorch: the state of the constructor's parameters exists from the start, and
        # every group's accumulator starts at the constructor's value (a group's own
        # initial_accumulator_value is kept in the group but not used); a parameter added
        # later gets its state at its first step (_update).
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p] = self._initial_state(p)

    def _initial_state(self, p):
        state = {}
        _init_step(state)
        state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])
        return state

    def _update(self, p, grad, group, state):
        if not state:   # (a parameter of a group added after the constructor)
            state.update(self._initial_state(p))
        t = _next_step(state)
        g = self._l2_grad(p, grad, group)
        clr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
        s = state["sum"]
        s.add_(g * g)
        std = s.sqrt().add_(group["eps"])
        p.add_(g / std, alpha=-clr)


class Adadelta(Optimizer):
    """Adadelta (Zeiler):

        square_avg = rho * square_avg + (1 - rho) * g²
        delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta²;  p -= lr * delta
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_implementation_flags(differentiable)
        _check_lr(lr)
        _check("epsilon value", eps)
        _check("weight_decay value", weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=capturable,
                                      foreach=foreach, differentiable=differentiable))

    def _update(self, p, grad, group, state):
        g = self._l2_grad(p, grad, group)
        if not state:
            _init_step(state)
            state["square_avg"] = zeros_like(p)
            state["acc_delta"] = zeros_like(p)
        _next_step(state)
        rho, eps = group["rho"], group["eps"]
        sq, acc = state["square_avg"], state["acc_delta"]
        sq.mul_(rho).add_(g * g, alpha=1 - rho)
        std = (sq + eps).sqrt()
        delta = (acc + eps).sqrt() / std * g
        acc.mul_(rho).add_(delta * delta, alpha=1 - rho)
        p.add_(delta, alpha=-group["lr"])
