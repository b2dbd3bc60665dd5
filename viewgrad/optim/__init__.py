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

from collections import defaultdict

import copy
from itertools import chain

from .. import backend as B
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


def _init_step(state):
    """Start a parameter's state with its step count, so that "step" is its first key, as
    in PyTorch's (the moments are added after it)."""
    state["step"] = _scalar_state(0.0)


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

def _check_lr(lr):
    """PyTorch's check of a learning rate: a Tensor lr must hold one element, and
    ``not 0.0 <= lr`` (so a NaN is refused too, which ``lr < 0`` would let through)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_fused_foreach(fused, foreach):
    """The optimizers with a fused kernel (SGD, Adam, AdamW, Adagrad) refuse both switches at
    once, as PyTorch's do (the two name different kernels)."""
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


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
        # (a defaultdict, as PyTorch's: an optimizer written by hand reads state[p] first)
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            # (PyTorch names it by torch.typename: the tensor's type, torch.FloatTensor)
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {params.type()}")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group):
        """Add a group (a dict with "params" and any options; the defaults fill the rest).
        As PyTorch, the dict itself becomes the group, its "params" made a list."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):   # (their order changes between runs)
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead.")
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]   # named: [(name, p), ...]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor (its grad_fn is "
                                 f"{p.grad_fn.name()}); optimize the leaf it came from")
        for k, v in self.defaults.items():
            if v is required and k not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {k}")
            param_group.setdefault(k, v)
        for g in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in g):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

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
                if isinstance(group["lr"], Tensor):   # a Tensor lr steps as its number, as
                    group = {**group, "lr": group["lr"].item()}   # torch's Scalar alpha=-lr
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

    # counters PyTorch's __setstate__ turns from numbers (older checkpoints) into tensors
    _counter_keys = ("step",)

    def load_state_dict(self, state_dict):
        """Take the groups' options and the state from ``state_dict``, as PyTorch: the
        groups are deep copies of the saved ones (their keys in the saved order) holding
        this optimizer's parameters; each parameter's state is rebuilt — its dicts, lists
        and tuples new — with every tensor moved to the parameter's device and, but for
        ``step``, cast to a floating parameter's dtype (``.to``: a tensor already so is
        taken as it is, shared, as in PyTorch)."""
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't "
                             "match the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        saved = state_dict["param_groups"]
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = _cast(id_map[k], v, _group_of(k, saved), None)
            else:   # (state of no parameter is kept as it is, as PyTorch)
                state[k] = v
        for g, new in zip(groups, saved_groups):
            new["params"] = g["params"]
            if "param_names" in g and "param_names" not in new:
                new["param_names"] = g["param_names"]
        self.param_groups = saved_groups
        self.state = state
        # (PyTorch's __setstate__ adds this to the defaults, so a group added after a load
        # has the key, even for an optimizer without the option, as Adafactor)
        self.defaults.setdefault("differentiable", False)
        for s in state.values():
            if isinstance(s, dict):
                for key in self._counter_keys:
                    if key in s and not isinstance(s[key], Tensor):
                        s[key] = _scalar_state(s[key])

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, g in enumerate(self.param_groups):
            if i:
                lines.append("")   # (PyTorch's repr: a blank line between the groups)
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        return "\n".join(lines) + "\n)"


def _group_of(param_id, groups):
    """The saved group holding parameter ``param_id`` (its ``fused``/``capturable`` decide
    how ``step`` is loaded), or None."""
    for g in groups:
        if param_id in g["params"]:
            return g
    return None


def _cast(param, value, group, key):
    """A loaded state value rebuilt for ``param``: PyTorch's ``_cast`` and
    ``_process_value_according_to_param_policy``. ``step`` keeps its tensor unless the group
    is fused or capturable (then float32 on the parameter's device); any other tensor goes
    to the parameter's device, and to its dtype when the parameter is floating-point."""
    if isinstance(value, Tensor):
        if key == "step":
            if group is not None and (group.get("fused") or group.get("capturable")):
                return value.to(dtype=B.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast(param, v, group, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v, group, None) for v in value)
    return value


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
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:   # (PyTorch's SGD compares so: a NaN lr is let through, as there)
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
        _check_fused_foreach(fused, foreach)

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
    L2 penalty added to the gradient, or, with ``decoupled_weight_decay`` (AdamW's default),
    ``p *= 1 - lr * wd`` first — read per group, as PyTorch's."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_implementation_flags(differentiable)
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable,
                                      fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))
        _check_fused_foreach(fused, foreach)

    def _update(self, p, grad, group, state):
        from ..ops.factories import zeros_like
        from ..ops.pointwise import where
        g = -grad if group["maximize"] else grad
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if wd:
            if group.get("decoupled_weight_decay", False):   # (a group of an older dict: L2)
                p.mul_(1 - lr * wd)
            else:
                g = g.add(p, alpha=wd)
        if not state:
            _init_step(state)
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


def _check_betas(betas):
    """PyTorch's checks of (beta1, beta2), by index (so a 1-tuple is an IndexError, as
    there); ``not 0 <= b < 1`` refuses a NaN too."""
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p *= 1 - lr * wd`` before
    the Adam step; default weight_decay 0.01, as PyTorch."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


from .adaptive import RMSprop, Adagrad, Adadelta  # noqa: E402  (they subclass Optimizer)
from .variants import Adamax, NAdam, RAdam, ASGD, Rprop  # noqa: E402
from .lbfgs import LBFGS  # noqa: E402
from .adafactor import Adafactor  # noqa: E402
from . import lr_scheduler  # noqa: E402
from . import swa_utils  # noqa: E402  (AveragedModel, SWALR, update_bn)

__all__ += ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop",
            "LBFGS", "Adafactor", "lr_scheduler", "swa_utils"]
