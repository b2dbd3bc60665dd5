"""What each ``torch`` module means under viewgrad: ONE table, read by the import hook and
by the coverage table.

``MODULES`` maps a torch module name to a ``Namespace``: the viewgrad module that serves
it (``target``), the torch-only basics it adds (``extras``: names real scripts touch but
viewgrad itself has no reason to own, such as ``torch.__version__`` or
``torch.backends.cudnn.deterministic``), and viewgrad names that must NOT show through
because torch means something else by them (``vg.trace`` starts the tracer; ``torch.trace``
is the matrix trace).

A torch module missing from the table, or whose target does not import (a namespace a
helper has not landed yet), is "not provided": importing it raises the plain message of
``not_provided_message``.
"""
from __future__ import annotations

import functools
import importlib
import types
from dataclasses import dataclass, field

COVERS = "it covers autograd, tensors, nn, optim, utils.data: see the README's coverage table"


def not_provided_message(name: str) -> str:
    """The one sentence every missing torch name gets."""
    return f"{name} is not provided by viewgrad ({COVERS})"


@dataclass(frozen=True)
class Namespace:
    target: str | None                 # the viewgrad module serving it (None: extras only)
    extras: object = None              # a function giving a dict (or its name here)
    hide: tuple = ()                   # viewgrad names that torch means differently
    doc: str = ""
    settable: tuple = field(default=())  # flags a script may set (torch.backends.cudnn...)


# viewgrad's own machinery, never a torch name (vg.trace is the tracer; torch.trace a matrix
# op): hidden under ``torch`` so that a script gets the honest "not provided" instead
_VG_ONLY = ("trace", "set_view_replay", "is_view_replay_enabled", "set_blame",
            "is_blame_enabled", "cuda_is_available", "Device", "seed_generator",
            "bool_", "register_device")

MODULES: dict[str, Namespace] = {
    "torch": Namespace("viewgrad", "_torch_extras", hide=_VG_ONLY,
                       doc="tensors, factories, math ops, grad modes"),
    "torch.nn": Namespace("viewgrad.nn", doc="modules, layers, losses"),
    "torch.nn.functional": Namespace("viewgrad.nn.functional", doc="functional layers, losses"),
    "torch.nn.init": Namespace("viewgrad.nn.init", doc="initialisers"),
    "torch.nn.parameter": Namespace("viewgrad.nn.parameter",
                                    doc="Parameter, Buffer, UninitializedParameter"),
    "torch.nn.utils": Namespace("viewgrad.nn.utils", doc="clip_grad_norm_, ..."),
    "torch.nn.utils.rnn": Namespace("viewgrad.nn.rnn_utils",
                                    doc="pad_sequence, PackedSequence, pack/pad"),
    "torch.nn.utils.parametrize": Namespace("viewgrad.nn.parametrize",
                                            doc="register_parametrization, cached, ..."),
    "torch.nn.utils.parametrizations": Namespace("viewgrad.nn.parametrizations",
                                                 doc="weight_norm, spectral_norm, "
                                                     "orthogonal"),
    "torch.optim": Namespace("viewgrad.optim", doc="optimizers"),
    "torch.optim.optimizer": Namespace("viewgrad.optim", "_optimizer_extras",
                                       doc="Optimizer, required"),
    "torch.optim.lr_scheduler": Namespace("viewgrad.optim.lr_scheduler",
                                          doc="learning-rate schedulers"),
    "torch.optim.swa_utils": Namespace("viewgrad.optim.swa_utils",
                                       doc="AveragedModel, SWALR, update_bn, EMA/SWA fns"),
    "torch.autograd": Namespace("viewgrad.autograd", hide=("set_view_replay",
                                "is_view_replay_enabled", "set_blame", "is_blame_enabled"),
                                doc="backward, grad, Function, modes, gradcheck"),
    "torch.autograd.function": Namespace("viewgrad.autograd.function",
                                         doc="Function, FunctionCtx, once_differentiable"),
    "torch.autograd.functional": Namespace("viewgrad.autograd.functional",
                                           doc="jacobian, hessian, vjp, jvp, hvp, vhp"),
    "torch.autograd.graph": Namespace("viewgrad.autograd.graph",
                                      hide=("ERR_FREED", "check_hook_result",
                                            "check_saved_version", "next_sequence_nr",
                                            "SavedTensor"),
                                      doc="Node, saved-tensor hooks, gradient edges"),
    "torch.autograd.profiler": Namespace("viewgrad.autograd.profiler",
                                         doc="profile, record_function"),
    "torch.profiler": Namespace("viewgrad.autograd.profiler",
                                doc="profile, record_function, ProfilerActivity"),
    "torch.autograd.gradcheck": Namespace("viewgrad.autograd.gradcheck",
                                          doc="gradcheck, gradgradcheck"),
    "torch.utils": Namespace(None, "_utils_extras", doc="data"),
    "torch.utils.checkpoint": Namespace("viewgrad.utils.checkpoint",
                                        doc="activation checkpointing (recompute in backward)"),
    "torch.amp": Namespace("viewgrad.amp", doc="autocast (full precision), GradScaler"),
    "torch.cuda.amp": Namespace("viewgrad.amp.cuda", doc="deprecated autocast, GradScaler"),
    "torch.backends.cuda": Namespace(None, "_backends_cuda_extras", doc="flags (no effect)"),
    "torch.utils.data": Namespace("viewgrad.utils.data",
                                  doc="Dataset, TensorDataset, DataLoader, random_split"),
    # (the files PyTorch defines them in, which scripts import from too)
    "torch.utils.data.dataset": Namespace("viewgrad.utils.data", doc="as torch.utils.data"),
    "torch.utils.data.sampler": Namespace("viewgrad.utils.data", doc="as torch.utils.data"),
    "torch.utils.data.dataloader": Namespace("viewgrad.utils.data",
                                             doc="as torch.utils.data"),
    "torch.autograd.variable": Namespace("viewgrad.autograd.variable",
                                         doc="Variable (a Tensor, as in PyTorch 0.4+)"),
    "torch.linalg": Namespace("viewgrad.linalg", doc="norms"),
    "torch.distributions": Namespace("viewgrad.distributions",
                                     doc="Normal, Bernoulli, Categorical, MultivariateNormal, "
                                         "..., kl_divergence"),
    "torch.distributions.constraints": Namespace("viewgrad.distributions.constraints",
                                                 doc="constraints"),
    "torch.distributions.kl": Namespace("viewgrad.distributions.kl",
                                        doc="kl_divergence, register_kl"),
    "torch.return_types": Namespace("viewgrad.return_types",
                                    doc="named tuples of max(dim), sort, topk, ..."),
    "torch.testing": Namespace("viewgrad.compat.testing", doc="assert_close"),
    "torch.special": Namespace(None, "_special_extras",
                               doc="the special functions viewgrad has (erf, expit, ...)"),
    "torch.cuda": Namespace(None, "_cuda_extras", doc="is_available() and seeds"),
    "torch.backends": Namespace(None, "_backends_extras", doc="flags scripts set"),
    "torch.backends.cudnn": Namespace(None, "_cudnn_extras", doc="flags (no effect)",
                                      settable=("deterministic", "benchmark", "enabled",
                                                "allow_tf32")),
    "torch.backends.mps": Namespace(None, "_mps_extras", doc="is_available() is False"),
    "torch.nn.modules": Namespace(None, doc="the submodules below (the classes: torch.nn)"),
    "torch.nn.modules.lazy": Namespace("viewgrad.nn.lazy", doc="LazyModuleMixin"),
    "torch.nn.modules.utils": Namespace(None, "_nn_modules_utils_extras",
                                        doc="_single, _pair, _triple, _quadruple, _ntuple"),
}

# torch.nn.modules.<sub>: where PyTorch defines its layers. Scripts reach in for the private
# bases (``isinstance(m, nn.modules.batchnorm._BatchNorm)`` to freeze BatchNorm,
# ``class FocalLoss(nn.modules.loss._WeightedLoss)``) and import from a file
# (``from torch.nn.modules.module import Module``); each serves those names from viewgrad.nn.
_NN_MODULES = {
    "module": ("Module",),
    "linear": ("Identity", "Linear", "Bilinear"),
    "conv": ("_ConvNd", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
             "ConvTranspose3d"),
    "batchnorm": ("_BatchNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d"),
    "instancenorm": ("_InstanceNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"),
    "normalization": ("LayerNorm", "GroupNorm", "LocalResponseNorm", "RMSNorm"),
    "loss": ("_Loss", "_WeightedLoss", "L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss",
             "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "SmoothL1Loss", "HuberLoss",
             "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
             "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
             "CosineEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
             "PoissonNLLLoss", "GaussianNLLLoss", "CTCLoss"),
    "rnn": ("RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"),
    "container": ("Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"),
    "dropout": ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                "FeatureAlphaDropout"),
}


def _nn_submodule(names) -> dict:
    import viewgrad.nn as vnn
    from ..nn import layers, layers_extra, rnn
    where = (vnn, layers, layers_extra, rnn)
    return {n: next(getattr(m, n) for m in where if hasattr(m, n)) for n in names
            if any(hasattr(m, n) for m in where)}


for _sub, _names in _NN_MODULES.items():
    MODULES[f"torch.nn.modules.{_sub}"] = Namespace(
        None, functools.partial(_nn_submodule, _names),
        doc=f"torch.nn's {_sub} classes" + (" and their base" if _names[0][0] == "_" else ""))


def target_module(name: str):
    """The viewgrad module serving torch module ``name``, or None if it has none or it does
    not import (then the namespace is not provided)."""
    ns = MODULES.get(name)
    if ns is None or ns.target is None:
        return None
    try:
        return importlib.import_module(ns.target)
    except ImportError:
        return None


def is_provided(name: str) -> bool:
    ns = MODULES.get(name)
    return ns is not None and (ns.target is None or target_module(name) is not None)


def exported(name: str) -> frozenset:
    """The names of the viewgrad module serving ``name`` that torch code may use: its
    ``__all__`` plus the public functions and classes defined in it (not what it merely
    imports); for a module without ``__all__`` (the package ``viewgrad``), every public
    name that is not a module. ``hide`` is taken out."""
    cached = _EXPORTED.get(name)
    if cached is not None:
        return cached
    ns = MODULES[name]
    target = target_module(name)
    names = set()
    if target is not None:
        public = [n for n in dir(target) if not n.startswith("_")]
        if hasattr(target, "__all__"):
            names.update(target.__all__)
            names.update(n for n in public if getattr(getattr(target, n), "__module__", None)
                         == target.__name__ and callable(getattr(target, n)))
        else:
            names.update(n for n in public if n != "annotations")
        names = {n for n in names if not isinstance(getattr(target, n, None),
                                                    types.ModuleType)}
    out = frozenset(names - set(ns.hide))
    _EXPORTED[name] = out
    return out


_EXPORTED: dict[str, frozenset] = {}


def extras(name: str) -> dict:
    ns = MODULES.get(name)
    if ns is None or ns.extras is None:
        return {}
    return ns.extras() if callable(ns.extras) else globals()[ns.extras]()


# -- the torch-only basics -------------------------------------------------------------------

TORCH_VERSION = "2.13.0+viewgrad"   # the PyTorch version whose behaviour viewgrad follows


def _torch_extras() -> dict:
    import viewgrad as vg
    from ..printing import set_printoptions
    from ..ops.diag import matrix_trace
    out = {"__version__": TORCH_VERSION, "dtype": type(vg.float32),  # vg dtypes are array dtypes
          
           "int": vg.int32, "half": vg.float16, "float16": vg.float16,
           "is_floating_point": lambda t: t.is_floating_point(),
           "trace": matrix_trace,   # torch.trace is the matrix trace (vg.trace: the tracer)
           "set_printoptions": set_printoptions}
    out.update(_eager_extras())
    return out


def _eager_extras() -> dict:
    """torch.compile, torch.autocast and the precision switches (compat/eager.py, amp/)."""
    from ..amp import autocast, is_autocast_enabled
    from . import eager
    return {"compile": eager.compile, "autocast": autocast, "bfloat16": eager.bfloat16,
            "is_autocast_enabled": is_autocast_enabled,
            "set_float32_matmul_precision": eager.set_float32_matmul_precision,
            "get_float32_matmul_precision": eager.get_float32_matmul_precision,
            **{n: getattr(eager, n) for n in (
                "set_num_threads", "get_num_threads", "set_num_interop_threads",
                "get_num_interop_threads", "use_deterministic_algorithms",
                "are_deterministic_algorithms_enabled",
                "is_deterministic_algorithms_warn_only_enabled")}}


def _backends_cuda_extras() -> dict:
    import types as _types
    return {"matmul": _types.SimpleNamespace(allow_tf32=False,
                                             allow_fp16_reduced_precision_reduction=True,
                                             allow_bf16_reduced_precision_reduction=True),
            "is_built": lambda: False, "flash_sdp_enabled": lambda: False,
            "enable_flash_sdp": lambda enabled: None,
            "enable_mem_efficient_sdp": lambda enabled: None,
            "enable_math_sdp": lambda enabled: None}


def _utils_extras() -> dict:
    return {}


def _optimizer_extras() -> dict:
    # (``lr=required`` in a hand-written optimizer's signature, as PyTorch's old SGD)
    from ..optim import required
    return {"required": required}


def _nn_modules_utils_extras() -> dict:
    """PyTorch's argument normalisers, which custom conv layers import: ``_pair(3)`` is
    ``(3, 3)``, an iterable is made a tuple as it is."""
    import collections.abc
    import itertools

    def _ntuple(n, name="parse"):
        def parse(x):
            if isinstance(x, collections.abc.Iterable):
                return tuple(x)
            return tuple(itertools.repeat(x, n))
        parse.__name__ = name
        return parse
    return {"_ntuple": _ntuple, "_single": _ntuple(1, "_single"),
            "_pair": _ntuple(2, "_pair"), "_triple": _ntuple(3, "_triple"),
            "_quadruple": _ntuple(4, "_quadruple")}


# torch.special name -> the viewgrad function serving it (those viewgrad has)
_SPECIAL = {"erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "expm1": "expm1",
            "exp2": "exp2", "log1p": "log1p", "logit": "logit", "expit": "sigmoid",
            "xlogy": "xlogy", "logsumexp": "logsumexp", "softmax": "softmax",
            "log_softmax": "log_softmax", "sinc": "sinc", "round": "round",
            "gammaln": "lgamma", "digamma": "digamma", "psi": "digamma",
            "polygamma": "polygamma", "multigammaln": "mvlgamma", "i0": "i0"}
# torch.special's own, with no torch.* twin: served from the module that defines them
_SPECIAL_ONLY = {"i0e": "viewgrad.ops.gamma_ops", "i1": "viewgrad.ops.gamma_ops",
                 "i1e": "viewgrad.ops.gamma_ops"}


def _special_extras() -> dict:
    import viewgrad as vg
    out = {k: getattr(vg, v) for k, v in _SPECIAL.items() if hasattr(vg, v)}
    for k, mod in _SPECIAL_ONLY.items():
        out[k] = getattr(importlib.import_module(mod), k)
    return out


def _cuda_extras() -> dict:
    import viewgrad as vg
    return {"is_available": vg.cuda.is_available, "synchronize": vg.cuda.synchronize,
            "device_count": lambda: 1 if vg.cuda.is_available() else 0,
            "manual_seed": vg.manual_seed, "manual_seed_all": vg.manual_seed,
            "is_bf16_supported": lambda including_emulation=True: False,
            "empty_cache": lambda: None}


def _backends_extras() -> dict:
    return {}


def _cudnn_extras() -> dict:
    return {"deterministic": False, "benchmark": False, "enabled": True, "allow_tf32": True,
            "version": lambda: None,
            "is_available": lambda: False}


def _mps_extras() -> dict:
    return {"is_available": lambda: False, "is_built": lambda: False}
