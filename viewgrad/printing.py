"""Tensor repr in PyTorch's style: ``tensor([1., 2.], grad_fn=<MulBackward0>)``."""
from __future__ import annotations

from . import backend as B

_DEFAULT_DTYPES = ("float32", "int64", "bool")
_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
             "sci_mode": None}
OPTIONS = dict(_DEFAULTS)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """As ``torch.set_printoptions``: digits after the point, how many elements before the
    summary ``...``, how many at each edge of it, the line width, and ``sci_mode`` (True:
    always scientific, False: never, None: automatic). ``profile='default'`` resets."""
    if profile is not None:
        OPTIONS.update(_DEFAULTS)
    for k, v in (("precision", precision), ("threshold", threshold),
                 ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if v is not None:
            OPTIONS[k] = int(v)
    if sci_mode is not None or profile is not None:
        OPTIONS["sci_mode"] = sci_mode


def _format_array(a, threshold=None, edgeitems=None, max_line_width=None) -> str:
    np = B.host_numpy()
    o = OPTIONS
    if a.dtype.kind == "f":
        finite = a[np.isfinite(a)] if a.size else a
        if o["sci_mode"] is None and finite.size and np.all(finite == np.round(finite)) \
                and np.abs(finite).max() < 1e8:
            fmt = lambda v: (f"{v:.0f}." if np.isfinite(v) else str(v))  # noqa: E731
        elif o["sci_mode"] or o["sci_mode"] is None and finite.size and (
                np.abs(finite).max() >= 1e8 or (np.abs(finite[finite != 0]).min() < 1e-4
                                                if (finite != 0).any() else False)):
            fmt = lambda v: f"{v:.{o['precision']}e}"  # noqa: E731
        else:
            fmt = lambda v: f"{v:.{o['precision']}f}"  # noqa: E731
        formatter = {"float_kind": fmt}
    elif a.dtype.kind == "b":
        formatter = {"bool": lambda v: "True" if v else "False"}
    else:
        formatter = None
    return np.array2string(a, separator=", ", formatter=formatter, prefix="tensor(",
                           threshold=o["threshold"] if threshold is None else threshold,
                           edgeitems=o["edgeitems"] if edgeitems is None else edgeitems,
                           max_line_width=o["linewidth"] if max_line_width is None
                           else max_line_width)


def tensor_repr(t) -> str:
    a = t._device.to_host(t._data)
    body = _format_array(a)
    extras = []
    if t._device.type != "cpu":
        extras.append(f"device='{t._device.type}'")
    if a.size == 0:
        extras.append(f"size={tuple(a.shape)}")
    if a.dtype != B.default_float() and (a.dtype.kind == "f" or B.dtype_name(a.dtype)
                                           not in _DEFAULT_DTYPES):
        extras.append(f"dtype=viewgrad.{B.dtype_name(a.dtype)}")
    label = _autograd_label(t)
    if label is not None:
        extras.append(label)
    if extras:
        return f"tensor({body}, {', '.join(extras)})"
    return f"tensor({body})"


def _autograd_label(t):
    try:
        fn = t.grad_fn
    except RuntimeError:
        # a stale view whose grad_fn cannot be regenerated (reading it raises): PyTorch
        # still prints the tensor, marking its grad_fn invalid
        return "grad_fn=<Invalid>"
    if fn is not None:
        return f"grad_fn=<{fn.name()}>"
    return "requires_grad=True" if t.requires_grad else None


def preview(t, limit=6) -> str:
    """The values of ``t`` on one line as PyTorch prints them (``[1.0100, 2.0000]``: four
    decimals, or ``e`` notation for tiny/huge values), summarised with ``...`` past
    ``limit`` elements: what pictures show instead of ``1.0099999904632568``."""
    a = t._device.to_host(t._data)
    text = _format_array(a, threshold=limit, edgeitems=2, max_line_width=10_000)
    return " ".join(text.split())
