"""Tensor repr in PyTorch's style: ``tensor([1., 2.], grad_fn=<MulBackward0>)``."""
from __future__ import annotations

from . import backend as B

_DEFAULT_DTYPES = ("float32", "int64", "bool")


def _format_array(a, threshold=1000, edgeitems=3, max_line_width=80) -> str:
    np = B.host_numpy()
    if a.dtype.kind == "f":
        finite = a[np.isfinite(a)] if a.size else a
        if finite.size and np.all(finite == np.round(finite)) and np.abs(finite).max() < 1e8:
            fmt = lambda v: (f"{v:.0f}." if np.isfinite(v) else str(v))  # noqa: E731
        elif finite.size and (np.abs(finite).max() >= 1e8 or (
                np.abs(finite[finite != 0]).min() < 1e-4 if (finite != 0).any() else False)):
            fmt = lambda v: f"{v:.4e}"  # noqa: E731
        else:
            fmt = lambda v: f"{v:.4f}"  # noqa: E731
        formatter = {"float_kind": fmt}
    elif a.dtype.kind == "b":
        formatter = {"bool": lambda v: "True" if v else "False"}
    else:
        formatter = None
    return np.array2string(a, separator=", ", formatter=formatter, prefix="tensor(",
                           threshold=threshold, edgeitems=edgeitems,
                           max_line_width=max_line_width)


def tensor_repr(t) -> str:
    a = t._device.to_host(t._data)
    body = _format_array(a)
    extras = []
    if t._device.type != "cpu":
        extras.append(f"device='{t._device.type}'")
    if a.size == 0:
        extras.append(f"size={tuple(a.shape)}")
    if B.dtype_name(a.dtype) not in _DEFAULT_DTYPES:
        extras.append(f"dtype=viewgrad.{B.dtype_name(a.dtype)}")
    fn = t.grad_fn
    if fn is not None:
        extras.append(f"grad_fn=<{fn.name()}>")
    elif t.requires_grad:
        extras.append("requires_grad=True")
    if extras:
        return f"tensor({body}, {', '.join(extras)})"
    return f"tensor({body})"


def preview(t, limit=6) -> str:
    """The values of ``t`` on one line as PyTorch prints them (``[1.0100, 2.0000]``: four
    decimals, or ``e`` notation for tiny/huge values), summarised with ``...`` past
    ``limit`` elements: what pictures show instead of ``1.0099999904632568``."""
    a = t._device.to_host(t._data)
    text = _format_array(a, threshold=limit, edgeitems=2, max_line_width=10_000)
    return " ".join(text.split())
