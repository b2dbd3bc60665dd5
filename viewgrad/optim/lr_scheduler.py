"""``torch.optim.lr_scheduler``: learning-rate schedules that write ``group['lr']``.

As PyTorch: making a scheduler records ``initial_lr`` in every param group and performs
the first step (epoch 0); each ``scheduler.step()`` (call it after ``optimizer.step()``)
advances ``last_epoch`` and sets the new rates, computed by ``get_lr`` from the CURRENT
rates (the "chainable" form PyTorch uses, so two schedulers can be stacked);
``get_last_lr()`` returns what was set last. ``state_dict()`` holds everything but the
optimizer (and, for LambdaLR, the functions).

ReduceLROnPlateau is different: ``step(metric)`` lowers the rates by ``factor`` once the
metric has not improved for ``patience`` epochs.
"""
from __future__ import annotations

import functools
import math
import types
import warnings
import weakref
from collections import Counter

__all__ = ["EPOCH_DEPRECATION_WARNING", "LRScheduler", "_LRScheduler", "StepLR", "MultiStepLR",
           "ExponentialLR",
           "CosineAnnealingLR",
           "LambdaLR", "MultiplicativeLR", "LinearLR", "ConstantLR", "ReduceLROnPlateau"]


EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the "
    "new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


# Note [a scheduler's flags]
# PyTorch's schedulers keep two flags as attributes, so they are in ``state_dict()`` and a
# state saved here has PyTorch's keys: ``_is_initial`` (True while the first step, made by
# the constructor, runs) and ``_get_lr_called_within_step`` (True while ``step()`` asks
# ``get_lr()``). A built-in scheduler's ``get_lr()`` asked outside a step warns that
# ``get_last_lr()`` is what gives the last rates (``_warns_outside_step``); a user's own
# subclass decides for itself, as in PyTorch. And as PyTorch, the first ``step()`` after
# the constructor's warns when the optimizer has not stepped yet (the order PyTorch 1.1
# changed), which it knows because the scheduler wraps the optimizer's ``step`` once, to
# mark it called (``_watch_optimizer_step``).

def _watch_optimizer_step(opt):
    """Wrap ``opt.step`` (once) so that a call marks ``opt._opt_called``."""
    step = opt.step
    if getattr(step, "_wrapped_by_lr_sched", False):
        return
    func = step.__func__
    ref = weakref.ref(opt)   # (the wrapper, kept by opt, must not keep opt alive)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        o = ref()
        o._opt_called = True
        return func.__get__(o, type(o))(*args, **kwargs)
    wrapper._wrapped_by_lr_sched = True
    opt.step = wrapper


def _warn_step_order(opt):
    if not getattr(opt.step, "_wrapped_by_lr_sched", False):
        warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate "
                      "scheduler initialization. Please, make sure to call `optimizer.step()` "
                      "before `lr_scheduler.step()`. See more details at "
                      "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                      UserWarning, stacklevel=3)
    elif not getattr(opt, "_opt_called", False):
        warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                      "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                      "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                      "will result in PyTorch skipping the first value of the learning rate "
                      "schedule. See more details at "
                      "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                      UserWarning, stacklevel=3)


def _warns_outside_step(get_lr):
    """A built-in ``get_lr`` that warns when asked outside ``step()`` (Note [a scheduler's
    flags])."""
    @functools.wraps(get_lr)
    def checked(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please "
                          "use `get_last_lr()`.", UserWarning, stacklevel=2)
        return get_lr(self)
    return checked


class LRScheduler:
    """Base class: subclasses define ``get_lr()`` (the new rate of each group)."""

    _get_lr_called_within_step = False   # Note [a scheduler's flags]
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        from . import Optimizer
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming scheduler with last_epoch >= 0.\nThis "
                                   "typically happens when:\n1. You're trying to resume "
                                   "training from a checkpoint but haven't properly loaded "
                                   "the optimizer state\n2. You're using a scheduler with a "
                                   "custom last_epoch value without setting initial_lr")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _watch_optimizer_step(optimizer)
        self._initial_step()

    def get_lr(self):
        raise NotImplementedError(f"{type(self).__name__} must define get_lr(): the new "
                                  "learning rate of each param group")

    def get_last_lr(self):
        """The rates set by the last ``step()``, one per param group."""
        return self._last_lr

    def step(self, epoch=None):
        """Advance one epoch (call after ``optimizer.step()``) and set the new rates."""
        if self._step_count == 1:
            _warn_step_order(self.optimizer)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _initial_step(self):
        """Start again from the first step (SequentialLR starts its schedulers so), with
        ``_is_initial`` set while it runs (Note [a scheduler's flags])."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def _update_lr(self, epoch=None):
        if epoch is None:
            self.last_epoch += 1
            values = self._asked(self.get_lr)
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self._asked(self.get_lr)
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _asked(self, get_lr):
        """``get_lr()``, asked by a step: ``_get_lr_called_within_step`` set while it runs
        (Note [a scheduler's flags])."""
        self._get_lr_called_within_step = True
        try:
            return get_lr()
        finally:
            self._get_lr_called_within_step = False

    def state_dict(self):
        """The scheduler's state (everything but the optimizer)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def _lrs(self):
        return [group["lr"] for group in self.optimizer.param_groups]


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each epoch in ``milestones``."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return self._lrs()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._lrs()]

    def _get_closed_form_lr(self):
        passed = sum(c for m, c in self.milestones.items() if m <= self.last_epoch)
        return [b * self.gamma ** passed for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:   # (the constructor's step, a resumed last_epoch too)
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine from the base rate down to ``eta_min`` over ``T_max`` epochs (and back up
    after, as SGDR without restarts), in PyTorch's recursive form."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, t = self.last_epoch, self.T_max
        if self._is_initial:
            return self._lrs()
        if self._step_count == 1 and e > 0:
            return [self.eta_min + (b - self.eta_min) * (1 + math.cos(e * math.pi / t)) / 2
                    for b in self.base_lrs]
        if (e - 1 - t) % (2 * t) == 0:
            return [lr + (b - self.eta_min) * (1 - math.cos(math.pi / t)) / 2
                    for lr, b in zip(self._lrs(), self.base_lrs)]
        return [(1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
                * (lr - self.eta_min) + self.eta_min for lr in self._lrs()]

    def _get_closed_form_lr(self):
        return [self.eta_min + (b - self.eta_min) *
                (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]


class _WithLambdas(LRScheduler):
    """What LambdaLR and MultiplicativeLR share (two classes in PyTorch, neither a
    subclass of the other): one function or one per group, and state dicts that keep
    only callable objects' ``__dict__``."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        self._check_lambdas()
        super().__init__(optimizer, last_epoch)

    def _check_lambdas(self):
        pass

    def state_dict(self):
        """As PyTorch: the functions are not saved (only callable objects' __dict__)."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer",
                                                                   "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(f, types.FunctionType) else dict(f.__dict__)
                               for f in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lambdas
        for f, s in zip(self.lr_lambdas, lambdas):
            if s is not None:
                f.__dict__.update(s)


class LambdaLR(_WithLambdas):
    """``lr = base_lr * lr_lambda(epoch)`` (one function, or one per group)."""

    def get_lr(self):
        return [b * f(self.last_epoch) for f, b in zip(self.lr_lambdas, self.base_lrs,
                                                        strict=True)]


class MultiplicativeLR(_WithLambdas):
    """``lr = lr * lr_lambda(epoch)`` each step (not the constructor's: Note [a
    scheduler's flags]); its functions are checked callable at once, as PyTorch's."""

    def _check_lambdas(self):
        for f in self.lr_lambdas:
            if not callable(f):
                raise TypeError(f"lr_lambda should be a function, but got {type(f).__name__}")

    def get_lr(self):
        if not self._is_initial:
            return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, self._lrs(),
                                                             strict=True)]
        return self._lrs()


class LinearLR(LRScheduler):
    """Scale the rate linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs (a warm-up)."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 "
                             "and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = (start_factor, end_factor,
                                                                total_iters)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        s, e, n, k = self.start_factor, self.end_factor, self.total_iters, self.last_epoch
        if k == 0:
            return [lr * s for lr in self._lrs()]
        if self._is_initial or k > n:   # (a resumed last_epoch: the rate as it is)
            return self._lrs()
        f = 1.0 + (e - s) / (n * s + (k - 1) * (e - s))
        return [lr * f for lr in self._lrs()]

    def _get_closed_form_lr(self):
        s, e, n = self.start_factor, self.end_factor, self.total_iters
        return [b * (s + (e - s) * min(n, self.last_epoch) / n) for b in self.base_lrs]


class ConstantLR(LRScheduler):
    """Multiply the rate by ``factor`` until epoch ``total_iters``."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._lrs()]
        if self.last_epoch != self.total_iters:
            return self._lrs()
        return [lr * (1.0 / self.factor) for lr in self._lrs()]

    def _get_closed_form_lr(self):
        return [b * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for b in self.base_lrs]


class ReduceLROnPlateau(LRScheduler):
    """Lower the rates by ``factor`` when ``step(metric)`` has not improved (by more than
    ``threshold``, relative or absolute) for more than ``patience`` epochs; then wait
    ``cooldown`` epochs; never below ``min_lr``."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        from . import Optimizer
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.optimizer, self.factor = optimizer, factor
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None   # (a group added later has no min_lr to take)
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * n
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.last_epoch = 0
        self._last_lr = self._lrs()
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min":
            return a < best * (1.0 - self.threshold) if self.threshold_mode == "rel" \
                else a < best - self.threshold
        return a > best * (self.threshold + 1.0) if self.threshold_mode == "rel" \
            else a > best + self.threshold

    def step(self, metrics, epoch=None):
        current = float(metrics)
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            groups = self.optimizer.param_groups
            if len(groups) != len(self.min_lrs):   # (a param group added since)
                if self.default_min_lr is None:
                    raise RuntimeError(
                        f"The number of param groups in the `optimizer` ({len(groups)}) "
                        f"differs from when `ReduceLROnPlateau` was initialized "
                        f"({len(self.min_lrs)}), usually due to a new param group being "
                        "added to the optimizer. Please modify the `min_lrs` field to match "
                        "the length of the `optimizer` param groups.")
                self.min_lrs = [self.default_min_lr] * len(groups)
            for i, group in enumerate(groups):
                old = float(group["lr"])
                new = max(old * self.factor, self.min_lrs[i])
                if old - new > self.eps:
                    group["lr"] = new
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._lrs()


class _LRScheduler(LRScheduler):
    """The base's old name, which hand-written schedulers still subclass (``class
    NoamLR(_LRScheduler)``); as in PyTorch, nothing more (the built-in schedulers are
    not instances of it)."""


from . import lr_scheduler_more  # noqa: E402  (they subclass LRScheduler)


def _checked_get_lr(classes):
    for cls in classes:
        if "get_lr" in vars(cls):
            cls.get_lr = _warns_outside_step(vars(cls)["get_lr"])


_checked_get_lr([StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LambdaLR,
                 MultiplicativeLR, LinearLR, ConstantLR] + [
    getattr(lr_scheduler_more, n) for n in lr_scheduler_more.__all__
    if isinstance(getattr(lr_scheduler_more, n), type)])
from .lr_scheduler_more import *  # noqa: E402,F401,F403

__all__ += lr_scheduler_more.__all__
