"""The inputs PyTorch's kernels refuse, by dtype, and its words (Note [inputs PyTorch
refuses]).

Note [inputs PyTorch refuses]
NumPy orders complex numbers (lexicographically: sort, max, ``<``, clamp, unique), rounds
them or takes their erf, takes the absolute value of a bool array and a median of bools,
all without complaint; PyTorch refuses each of those for that dtype, with its own
exception and message. An op that computed where PyTorch refuses would teach something
that does not transfer (``z.max()`` of a complex ``z`` has no meaning in PyTorch), and an
op whose NumPy kernel refuses would surface as a bare NumPy TypeError. So each op below
asks ``refuse(REFUSALS[name], tensor...)`` first (an op made by a factory takes its entry
once, ``REFUSALS.get(name)``): for the dtype kind of each tensor given — ``"c"`` complex,
``"b"`` bool, ``"i"`` an integer, ``"h"`` float16 — PyTorch's exception and message, with
the dtype as its kernels print it (``{T}``: 'ComplexFloat', 'Bool', 'Long', 'Half'; ``{S}``
the shape, where PyTorch prints it). The linear-algebra functions look their float16
entry up by the name they check their input under (``check_float``).

Two ops PyTorch computes on complex tensors and viewgrad does not (``logaddexp`` and
``logcumsumexp``: NumPy has no complex kernel for them) refuse here too, saying so,
rather than show NumPy's error. tests/ops/test_inputs_by_dtype_vs_torch.py calls every
function and Tensor method viewgrad shares with torch on complex, bool, integer, float16
and 0-d tensors and compares the outcomes.
"""
from __future__ import annotations

from .args import torch_type_name

__all__ = ["REFUSALS", "refuse", "ERR_NEG_BOOL"]

_NI, _RT = NotImplementedError, RuntimeError

ERR_NEG_BOOL = ("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _kernel(kernel, *kinds):
    """``"<kernel>" not implemented for '<T>'`` for each of ``kinds`` (complex only when
    none is given)."""
    return {k: (_NI, f'"{kernel}" not implemented for ' + "'{T}'") for k in kinds or "c"}


def _said(exc, message, kinds="c"):
    return {k: (exc, message) for k in kinds}


REFUSALS = {
    "amax": _kernel("max_values_cpu"), "amin": _kernel("min_values_cpu"),
    "aminmax": _kernel("aminmax_cpu"), "max": _kernel("max_all"), "min": _kernel("min_all"),
    "max_dim": _said(_RT, "max(): does not support complex input"),
    "min_dim": _said(_RT, "min(): does not support complex input"),
    "argmax": _said(_RT, "argmax(): does not support complex input"),
    "argmin": _said(_RT, "argmin(): does not support complex input"),
    "sort": _said(_RT, " Sort does not support complex dtypes on CPU"),
    "topk": {"c": (_RT, " topk does not support complex dtypes on CPU"),
             "b": (_RT, "topk does not support bool dtypes on CPU")},
    "kthvalue": _kernel("kthvalue_cpu", "c", "b"), "median": _kernel("median_cpu", "c", "b"),
    "median_dim": _kernel("median_out", "c", "b"),
    "mode": _kernel("mode_cpu"), "unique": _kernel("unique"),
    "cummax": _kernel("cummax_cpu"), "cummin": _kernel("cummin_cpu"),
    "maximum": _said(_RT, "maximum not implemented for complex tensors."),
    "minimum": _said(_RT, "minimum not implemented for complex tensors."),
    "fmax": _said(_RT, "fmax not implemented for complex tensors."),
    "fmin": _said(_RT, "fmin not implemented for complex tensors."),
    "clamp": _said(_NI, "clamp is not supported for complex types"),
    "deg2rad": _said(_RT, "deg2rad is not supported for complex tensors."),
    "rad2deg": _said(_RT, "rad2deg is not supported for complex tensors."),
    "heaviside": _said(_RT, "heaviside is not yet implemented for complex tensors."),
    "digamma": _kernel("digamma"), "lgamma": _kernel("lgamma_vml_cpu"),
    "erf": _kernel("erf_vml_cpu"), "erfc": _kernel("erfc_vml_cpu"),
    "erfinv": _kernel("erfinv_vml_cpu"), "i0": _kernel("i0_vml_cpu"),
    "logit": _kernel("logit_cpu"), "frac": _kernel("frac_cpu", "c", "b", "i"),
    "round": {**_kernel("round_vml_cpu", "c", "b")},
    "round_decimals": _kernel("round_cpu"),
    "ceil": {"c": (_NI, "ceil is not supported for complex inputs"),
             **_kernel("ceil_vml_cpu", "b")},
    "floor": {"c": (_NI, "floor is not supported for complex inputs"),
              **_kernel("floor_vml_cpu", "b")},
    "trunc": {"c": (_NI, "trunc is not supported for complex inputs"),
              **_kernel("trunc_vml_cpu", "b")},
    "abs": _kernel("abs_cpu", "b"),
    # the in-place unary ops (inplace.py ``_unary_``)
    "abs_": {**_kernel("abs_cpu", "b"),
             "c": (_RT, "In-place abs is not supported for complex tensors.")},
    "neg_": _said(_RT, ERR_NEG_BOOL, "b"),
    "relu_": {"c": (_NI, "clamp is not supported for complex types"),
              "b": (_RT, "Boolean inputs not supported for relu")},
    # the activations (activations.py ``_check``; any other dtype that is not floating is
    # refused there in the same words, the activation's name for the kernel's)
    "elu": _kernel("elu_cpu", "c", "b", "i"), "selu": _kernel("elu_cpu", "c", "b", "i"),
    "celu": _kernel("elu_cpu", "c", "b", "i"),
    "leaky_relu": _kernel("leaky_relu_cpu", "c", "b", "i"),
    "gelu": _kernel("GeluKernelImpl", "c", "b", "i"),
    "silu": _kernel("silu_cpu", "b", "i"),   # (PyTorch's silu takes complex)
    "mish": _kernel("mish_cpu", "c", "b", "i"),
    "softplus": _kernel("softplus_cpu", "c", "b", "i"),
    "hardsigmoid": _kernel("hardsigmoid_cpu", "c", "b", "i"),
    "hardswish": _kernel("hardswish_cpu", "c", "b", "i"),
    "log_sigmoid_forward": _kernel("log_sigmoid_cpu", "c", "b", "i"),
    "glu": _kernel("glu_cpu", "c", "b", "i"),
    "hardshrink": _kernel("hardshrink_cpu", "c", "b", "i"),
    "softshrink": _kernel("softshrink_check", "c", "b", "i"),
    "threshold": _kernel("threshold_cpu", "c", "b"),
    "hardtanh": {"c": (_NI, "clamp is not supported for complex types"),   # (integers: a
                 "b": (_RT, "Bool inputs not supported for hardtanh")},   # clamp, computed)
    "sign": _said(_NI, "Unlike NumPy, torch.sign is not intended to support complex numbers. "
                       "Please use torch.sgn instead."),
    "signbit": _said(_NI, "signbit is not implemented for complex tensors."),
    "isposinf": _said(_RT, "isposinf does not support complex inputs."),
    "isneginf": _said(_RT, "isneginf does not support complex inputs."),
    "isin": _said(_RT, "Unsupported input type encountered for isin(): {T}", "cb"),
    "nansum": _said(_RT, "nansum on CPU does not support complex inputs"),
    "xlogy": _kernel("xlogy_cpu"), "copysign": _kernel("copysign_cpu"),
    "logaddexp2": _kernel("logaddexp2_cpu"), "nextafter": _kernel("nextafter_cpu"),
    "atan2": _kernel("atan2_cpu"), "floor_divide": _kernel("div_floor_cpu"),
    "fmod": _kernel("fmod_cpu"), "remainder": _kernel("remainder_cpu"),
    "mvlgamma": {**_kernel("arange_cpu"),
                 "b": (_RT, "The input tensor may not be a boolean tensor.")},
    "lt": _kernel("lt_cpu"), "le": _kernel("le_cpu"), "gt": _kernel("gt_cpu"),
    "ge": _kernel("ge_cpu"),
    "addcmul": _kernel("addcmul_cpu_out", "b"),
    "cumsum_": _kernel("cumsum_out_cpu", "b"), "cumprod_": _kernel("cumprod_out_cpu", "b"),
    "polygamma": _kernel("polygamma"), "polygamma0": _kernel("digamma"),
    "polygamma1": _kernel("trigamma"),
    "bincount": _kernel("bincount_cpu", "b"),
    "cross": _kernel("cross", "b"),
    "im2col": _kernel("im2col_out_cpu", "i"), "col2im": _kernel("col2im_out_cpu", "i"),
    "lerp_tensor": _kernel("lerp_kernel_tensor", "b", "i"),
    "lerp_scalar": _kernel("lerp_kernel_scalar", "b", "i"),
    "trapezoid": _said(_RT, "trapezoid: received a bool input for `y`, but bool is not "
                            "supported", "b"),
    "cumulative_trapezoid": _said(_RT, "cumulative_trapezoid: received a bool input for `y`, "
                                       "but bool is not supported", "b"),
    "logcumsumexp": {"c": (_RT, "logcumsumexp: viewgrad computes it for real tensors only "
                                "({T} given): NumPy has no complex logaddexp. Compute "
                                "x.exp().cumsum(dim).log() instead"),
                     **_kernel("logcumsumexp_out_cpu", "b", "i")},
    "trace": _kernel("trace", "b"),
    # torch.nn.functional's
    "kl_div": {**_said(_RT, "kl_div: Integral inputs not supported.", "bi"),
               "c": (_RT, "kl_div: Complex inputs not supported.")},
    "cosine_similarity": _said(_RT, "expected common dtype to be floating point, yet common "
                                    "dtype is {T}", "cbi"),
    "pdist": {**_said(_RT, "pdist only supports floating-point dtypes", "cbi"),
              **_kernel("pdist", "h")},
    "group_norm": _kernel("GroupNormKernelImpl", "c", "b", "i"),
    "max_pool1d": _kernel("max_pool1d_impl", "c", "b", "i"),
    "max_pool2d": _kernel("max_pool2d", "c", "b"),
    "adaptive_max_pool1d": _kernel("adaptive_max_pool2d", "c", "b", "i"),
    "adaptive_max_pool2d": _kernel("adaptive_max_pool2d", "c", "b", "i"),
    "adaptive_max_pool3d": _kernel("adaptive_max_pool3d_cpu", "c", "b", "i"),
    "avg_pool1d": _kernel("avg_pool2d", "c", "b"),
    "rrelu": _kernel("leaky_relu_cpu", "c", "b", "i"),
    "cdist": _kernel("cdist", "h"), "lu": _kernel("lu_cpu", "h"),
    "qr": _kernel("geqrf_cpu", "h"), "svd": _kernel("linalg_svd_cpu", "h"),
    # float16 matrices, by the name each linalg function checks its input under
    "linalg.inv": _said(_RT, "linalg.inv: Low precision dtypes not supported. Got {T}", "h"),
    "linalg.slogdet": _said(_RT, "linalg.slogdet: Low precision dtypes not supported. Got {T}",
                            "h"),
    "linalg.det": _kernel("lu_cpu", "h"), "linalg.solve": _kernel("lu_cpu", "h"),
    "linalg.cholesky": _kernel("cholesky_cpu", "h"), "cholesky": _kernel("cholesky_cpu", "h"),
    "linalg.eigh": _kernel("linalg_eigh_cpu", "h", "b", "i"), "linalg.qr": _kernel("geqrf_cpu", "h"),
    "linalg.svd": _kernel("linalg_svd_cpu", "h"),
    "linalg.svdvals": {**_kernel("linalg_svd_cpu", "h"),   # (checked as linalg.svd's input)
                       **_said(_RT, "linalg.svd: Expected a floating point or complex tensor "
                                    "as input. Got {T}", "bi")},
    "linalg.solve_triangular": _kernel("triangular_solve_cpu", "h", "b", "i"),
    "cholesky_solve": _kernel("cholesky_solve_cpu", "b", "i", "h"),
    "cholesky_inverse": _kernel("cholesky_inverse_out_cpu", "b", "i", "h"),
    "linalg.pinv": _said(_RT, "linalg.pinv({T}{S}): expected a tensor with 2 or more "
                              "dimensions of float, double, cfloat or cdouble types", "hbi"),
    "linalg.matrix_rank": _said(_RT, "This function doesn't handle types other than float "
                                     "and double", "hbi"),
    "torch.linalg.lstsq": _said(_RT, "This function doesn't handle types other than float "
                                     "and double", "hbi"),
    # PyTorch computes this one on complex tensors; NumPy has no complex kernel for it
    "logaddexp": _said(_RT, "logaddexp: viewgrad computes it for real tensors only ({T} "
                            "given): NumPy has no complex logaddexp. Compute (a.exp() + "
                            "b.exp()).log() instead"),
}


def _kind(x):
    """The dtype kind of tensor, array or number ``x`` that REFUSALS keys (None: another)."""
    d = getattr(x, "_data", x)
    dt = getattr(d, "dtype", None)
    if dt is None:
        return "c" if isinstance(d, complex) else None
    k = dt.kind
    return "c" if k == "c" else "b" if k == "b" else "i" if k in "iu" else \
        "h" if dt.char == "e" else None


def refuse(entry, *xs):
    """Raise ``entry``'s PyTorch error for the first of ``xs`` (tensors, arrays or
    numbers) whose dtype kind it names (Note [inputs PyTorch refuses])."""
    for x in xs:
        k = _kind(x)
        if k is not None and k in entry:
            exc, msg = entry[k]
            d = getattr(x, "_data", x)
            dt = getattr(d, "dtype", None)
            raise exc(msg.replace("{T}", torch_type_name(dt) if dt is not None
                                  else "ComplexDouble").replace(
                "{S}", "{" + str(list(getattr(d, "shape", ()))) + "}"))
