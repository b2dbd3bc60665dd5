"""``torch.optim.swa_utils``: weight averaging. ``AveragedModel`` keeps a copy of a model
whose parameters are a running average of the model's over training — Stochastic Weight
Averaging (an equal-weight mean, the default) or an exponential moving average
(``get_ema_multi_avg_fn(decay)``); ``SWALR`` anneals the learning rate to a constant for
the averaging phase; ``update_bn`` recomputes BatchNorm's running statistics for the
averaged weights with one pass over the data.

The numbers follow PyTorch's on the cpu: the multi-tensor averages step with ``lerp_``
(PyTorch's ``_foreach_lerp_``), the default SWA average with ``avg + (p - avg) / (n + 1)``
per tensor, and an integer buffer (``num_batches_tracked``) averaged with ``use_buffers``
is truncated back into its dtype by ``copy_``, as there.
"""
from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

from ..autograd.grad_mode import no_grad
from ..nn.layers import _BatchNorm
from ..nn.module import Module
from ..ops.factories import tensor
from ..tensor import Tensor
from .lr_scheduler import LRScheduler
from .lr_scheduler_more import _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An averaging function for ``AveragedModel(multi_avg_fn=...)``: every averaged tensor
    moves ``1 - decay`` of the way to the model's, in place (an exponential moving
    average)."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.lerp_(p_model, 1 - decay)
        else:   # (lerp is for floating tensors: an integer buffer is blended and truncated)
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """An averaging function for ``AveragedModel(multi_avg_fn=...)``: the equal-weight
    running mean, in place (the n-th model counts ``1 / (n + 1)``)."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
            weight = 1 / (num_averaged + 1)
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                p_avg.lerp_(p_model, weight)
        else:
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                diff = p_model - p_avg
                if isinstance(num_averaged, Tensor):   # (a tensor count: addcdiv, as PyTorch)
                    p_avg.addcdiv_(diff, num_averaged + 1)
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """An averaging function for ``AveragedModel(avg_fn=...)``: returns
    ``decay * averaged + (1 - decay) * current`` for one tensor."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """An averaging function for ``AveragedModel(avg_fn=...)``: returns the running mean
    ``averaged + (current - averaged) / (num_averaged + 1)`` for one tensor."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def _by_device_and_dtype(averaged, current):
    """Pairs of lists grouped by the averaged tensor's (device, dtype), in first-seen
    order: a multi-tensor function gets tensors of one kind at a time, as PyTorch's."""
    groups = {}
    for a, c in zip(averaged, current):
        avg_list, cur_list = groups.setdefault((a.device, a.dtype), ([], []))
        avg_list.append(a)
        cur_list.append(c)
    return groups


class AveragedModel(Module):
    """A running average of ``model``'s weights, for SWA or EMA:
    ``AveragedModel(model, device=None, avg_fn=None, multi_avg_fn=None,
    use_buffers=False)``. It holds a deep copy of the model (``.module``, which its forward
    calls) and ``n_averaged``, a buffer counting the models averaged. Each
    ``update_parameters(model)`` folds ``model``'s current parameters in (the first call
    copies them); with ``use_buffers`` the buffers are averaged too, otherwise they are
    copied from the model. Without ``avg_fn`` / ``multi_avg_fn`` the average is
    equal-weight (SWA)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None,
                 use_buffers=False):
        super().__init__()
        assert avg_fn is None or multi_avg_fn is None, \
            "Only one of avg_fn and multi_avg_fn should be provided"
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype="int64", device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """The averaged copy's forward."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Fold ``model``'s current parameters (and buffers, with ``use_buffers``) into the
        average, then count it in ``n_averaged``."""
        if self.use_buffers:
            self_params = itertools.chain(self.module.parameters(), self.module.buffers())
            model_params = itertools.chain(model.parameters(), model.buffers())
        else:
            self_params, model_params = self.parameters(), model.parameters()
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_avg, p_model in zip(self_params, model_params):
            p_model_ = p_model.detach().to(p_avg.device)
            averaged.append(p_avg.detach())
            current.append(p_model_)
            if first:
                p_avg.detach().copy_(p_model_)

        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                for (device, _), (avg_list, cur_list) in \
                        _by_device_and_dtype(averaged, current).items():
                    n = self.n_averaged.to(device)
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(avg_list, cur_list, n)
                    elif device.type == "cuda":   # (PyTorch's foreach devices take lerp)
                        get_swa_multi_avg_fn()(avg_list, cur_list, n)
                    else:
                        swa = get_swa_avg_fn()
                        for p_avg, p_model in zip(avg_list, cur_list):
                            p_avg.copy_(swa(p_avg, p_model, n))
            else:
                for p_avg, p_model in zip(averaged, current):
                    n = self.n_averaged.to(p_avg.device)
                    p_avg.detach().copy_(self.avg_fn(p_avg.detach(), p_model, n))

        if not self.use_buffers:
            # (buffers not averaged follow the model's: BatchNorm's statistics stay those
            # of the weights being trained, until update_bn recomputes them)
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute the running mean and variance of every BatchNorm layer of ``model`` with
    one pass over ``loader`` (each batch a tensor, or a list/tuple whose first item is the
    input): the statistics are reset and averaged over the batches equally (momentum None
    for the pass), in training mode; the model's mode and momenta are restored."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` (one value, or one per group) over
    ``anneal_epochs`` steps, by a cosine (``anneal_strategy='cos'``) or a straight line
    (``'linear'``), then hold it there: the schedule of SWA's averaging phase.
    ``SWALR(optimizer, swa_lr, anneal_epochs=10, anneal_strategy='cos', last_epoch=-1)``."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        # (the rate the annealing started from, recovered from the current one: the
        # schedule is chainable, computed from group["lr"] as it stands)
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """Each group's next rate: ``alpha * swa_lr + (1 - alpha) * start`` with ``alpha``
        the annealing function at ``step / anneal_epochs`` (clamped to [0, 1])."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please "
                          "use `get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)

    def state_dict(self):
        """The scheduler's state: every attribute but the optimizer and the annealing
        function (rebuilt from ``_anneal_strategy`` on load)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        """Take the state saved by ``state_dict()``."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
