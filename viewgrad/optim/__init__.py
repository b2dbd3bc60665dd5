"""``viewgrad.optim``: SGD (momentum, dampening, nesterov, weight decay), Adam and AdamW
(amsgrad), RMSprop, Adagrad, Adadelta (``adaptive.py``) and ``lr_scheduler``.

As in PyTorch, ``step()`` runs under ``no_grad`` and updates every parameter IN PLACE
(``p.add_(...)``), through viewgrad's in-place choke point: the parameter object stays the
same (the model keeps using it) and its ``_version`` moves. So a graph built before the
step that saved a parameter — e.g. a loss you forgot to recompute — fails at backward
with "modified by an inplace operation", exactly as in PyTorch.

State (momentum buffers, Adam's moments) is kept per parameter in ``optimizer.state``;
``state_dict()`` / ``load_state_dict()`` refer to parameters by their position, as PyTorch.
"""
from __future__ import annotations


from ..autograd.grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


# Note [an optimizer's counters as tensors]
# PyTorch keeps a parameter's step count in its state as a 0-d tensor of the default float
# dtype (``state["step"]`` is ``tensor(3.)``), and so NAdam's ``mu_product`` and ASGD's
# ``eta`` and ``mu``: a checkpoint holds tensors, and ``state["step"].item()`` works. The
# steps do their arithmetic on the Python number (``.item()``, PyTorch's ``_get_value``),
# so the counters are kept as such tensors here too, and read back with ``_state_value``.

def _scalar_state(x):
    """``x`` as an optimizer keeps a counter: a 0-d tensor of the default float dtype
    (Note [an optimizer's counters as tensors])."""
    from ..ops.factories import tensor   # (ops is built when a step first runs)
    return tensor(float(x))


def _state_value(v):
    """The Python number of a counter kept by ``_scalar_state`` (a number from an older
    state dict as it is)."""
    return v.item() if isinstance(v, Tensor) else v


def _next_step(state):
    """Count one more step in ``state["step"]`` (made a tensor if it is not one) and return
    the new count as a Python number."""
    s = state.get("step")
    if not isinstance(s, Tensor):
        s = state["step"] = _scalar_state(0.0 if s is None else s)
    with no_grad():
        s.add_(1)
    return s.item()


# Note [an optimizer's group keys]
# A PyTorch optimizer's ``defaults`` (and so every param group, and ``state_dict()``'s
# "param_groups") hold the implementation switches too — ``foreach``, ``fused``,
# ``capturable``, ``differentiable``, ``decoupled_weight_decay`` — in an order of its own
# per optimizer. viewgrad's groups hold the same keys in the same order, with the values
# given (they choose no kernel here: ``_check_implementation_flags``), so a group reads,
# prints and round-trips through a state dict as PyTorch's does.

def _check_implementation_flags(differentiable=False, **_flags):
    """PyTorch's implementation switches (``foreach``, ``fused``, ``capturable``) choose a
    kernel, not the numbers: viewgrad's one implementation gives what each gives, so they
    are taken and have no effect. ``differentiable=True`` is different: it asks for a
    step autograd can go through, which viewgrad's steps (run under no_grad) are not —
    refused rather than giving a hypergradient of None."""
    if differentiable:
        raise RuntimeError(
            "differentiable=True: viewgrad's optimizer steps are not recorded by autograd "
            "(they run under no_grad); write the update yourself with tensor ops (p - lr * "
            "p.grad) to differentiate through it")


class Optimizer:
    """Base class: ``param_groups`` (a list of dicts with 'params' and the options) and
    ``state`` (parameter -> dict)."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = {}
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {type(params).__name__}")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, group):
        group = dict(group)
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor (its grad_fn is "
                                 f"{p.grad_fn.name()}); optimize the leaf it came from")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        group["params"] = params
        for k, v in self.defaults.items():
            if v is required and k not in group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {k}")
            group.setdefault(k, v)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """``p.grad = None`` for every parameter (default), or zero the grads in place."""
        for g in self.param_groups:
            for p in g["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if p._grad.grad_fn is not None:
                        p._grad = p._grad.detach()
                    with no_grad():
                        p._grad.zero_()

    def step(self, closure=None):
        loss = None
        if closure is not None:
            from ..autograd.grad_mode import enable_grad
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p._grad is None:
                        continue
                    state = self.state.get(p)
                    if state is None:   # kept only once the step stores something in it
                        state = {}      # (as PyTorch's: SGD without momentum keeps none)
                        self._update(p, p._grad, group, state)
                        if state:
                            self.state[p] = state
                    else:
                        self._update(p, p._grad, group, state)
        return loss

    @staticmethod
    def _l2_grad(p, grad, group):
        """The gradient a step follows: negated under ``maximize``, plus ``weight_decay * p``
        (L2 decay folded into the gradient, as torch's SGD/RMSprop/Adagrad/Adadelta do)."""
        g = -grad if group["maximize"] else grad
        wd = group["weight_decay"]
        return g.add(p, alpha=wd) if wd else g   # one rounding, as torch's grad.add(p, alpha=wd)

    def _update(self, p, grad, group, state):
        raise NotImplementedError(f"{type(self).__name__} must define _update(p, grad, group, "
                                  "state): the in-place step of one parameter")

    # -- state dicts (parameters referred to by position) ---------------------------------
    def state_dict(self):
        index = {}
        groups = []
        for g in self.param_groups:
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            groups.append({**{k: v for k, v in g.items() if k != "params"}, "params": ids})
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        params = [p for g in self.param_groups for p in g["params"]]
        for mine, theirs in zip(self.param_groups, groups):
            if len(mine["params"]) != len(theirs["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 "match the size of optimizer's group")
            mine.update({k: v for k, v in theirs.items() if k != "params"})
        self.state = {}
        for i, s in state_dict["state"].items():
            p = params[int(i)]
            self.state[p] = {k: (v.to(p.device).clone() if isinstance(v, Tensor) else v)
                             for k, v in s.items()}

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        return "\n".join(lines) + "\n)"


class SGD(Optimizer):
    """Stochastic gradient descent, PyTorch's algorithm:

        g = grad + weight_decay * p
        buf = g (first step), else momentum * buf + (1 - dampening) * g
        g = g + momentum * buf  (nesterov)  or  buf
        p -= lr * g
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        _check_implementation_flags(differentiable)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        # (every key PyTorch's group has, in its order: Note [an optimizer's group keys])
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    def _update(self, p, grad, group, state):
        g = self._l2_grad(p, grad, group)
        mom = group["momentum"]
        if mom:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = g.clone()
            else:
                buf.mul_(mom).add_(g, alpha=1 - group["dampening"])
            g = g.add(buf, alpha=mom) if group["nesterov"] else buf
        p.add_(g, alpha=-group["lr"])


class Adam(Optimizer):
    """Adam (Kingma & Ba), PyTorch's algorithm, with optional amsgrad; weight_decay is the
    L2 penalty added to the gradient (use AdamW for decoupled decay)."""

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_implementation_flags(differentiable)
        if decoupled_weight_decay:   # PyTorch's Adam(..., decoupled_weight_decay=True) is AdamW
            self._decoupled = True
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, b in enumerate(betas):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {b}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable,
                                      fused=fused,
                                      decoupled_weight_decay=bool(self._decoupled)))

    def _update(self, p, grad, group, state):
        from ..ops.factories import zeros_like
        from ..ops.pointwise import where
        g = -grad if group["maximize"] else grad
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if wd:
            if self._decoupled:
                p.mul_(1 - lr * wd)
            else:
                g = g.add(p, alpha=wd)
        if not state:
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(p)
        t = _next_step(state)   # (a tensor in the state: Note [an optimizer's counters as tensors])
        m, v = state["exp_avg"], state["exp_avg_sq"]
        # torch's single-tensor Adam, operation for operation (the same roundings)
        m.lerp_(g, 1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        bc1 = 1 - b1 ** t
        bc2 = 1 - b2 ** t
        if group["amsgrad"]:
            mx = state["max_exp_avg_sq"]
            mx.copy_(where(mx >= v, mx, v))  # running elementwise maximum
            v = mx
        denom = (v.sqrt() / bc2 ** 0.5).add_(eps)
        p.addcdiv_(m, denom, value=-(lr / bc1))


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p *= 1 - lr * wd`` before
    the Adam step; default weight_decay 0.01, as PyTorch."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
                         differentiable=differentiable)


from .adaptive import RMSprop, Adagrad, Adadelta  # noqa: E402  (they subclass Optimizer)
from .variants import Adamax, NAdam, RAdam, ASGD, Rprop  # noqa: E402
from .lbfgs import LBFGS  # noqa: E402
from .adafactor import Adafactor  # noqa: E402
from . import lr_scheduler  # noqa: E402

__all__ += ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop",
            "LBFGS", "Adafactor", "lr_scheduler"]
