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


def _shown(a, threshold, edgeitems):
    """The elements a summarised print shows (PyTorch sizes its columns on these)."""
    np = B.host_numpy()
    if a.size <= threshold:
        return a
    for ax in range(a.ndim):
        if a.shape[ax] > 2 * edgeitems:
            idx = list(range(edgeitems)) + list(range(a.shape[ax] - edgeitems, a.shape[ax]))
            a = np.take(a, idx, axis=ax)
    return a


def _float_format(shown):
    """PyTorch's choice for floats (``torch._tensor_str._Formatter``): whole numbers as
    ``1.``; scientific when the nonzero magnitudes span more than 1000× or pass 1e8 (or,
    not whole, fall under 1e-4); otherwise ``precision`` decimals."""
    np = B.host_numpy()
    o = OPTIONS
    finite = shown[np.isfinite(shown)]
    nonzero = np.abs(finite[finite != 0]).astype(np.float64)
    sci = o["sci_mode"]
    whole = finite.size and bool(np.all(finite == np.ceil(finite)))
    if sci is None and nonzero.size:
        big, small = nonzero.max(), nonzero.min()
        sci = bool(big / small > 1000.0 or big > 1.0e8 or (not whole and small < 1.0e-4))
    if sci:
        return lambda v: f"{v:.{o['precision']}e}" if np.isfinite(v) else str(v)
    if whole or not finite.size:
        return lambda v: f"{v:.0f}." if np.isfinite(v) else str(v)
    return lambda v: f"{v:.{o['precision']}f}" if np.isfinite(v) else str(v)


def _format_array(a, threshold=None, edgeitems=None, max_line_width=None, pad=True) -> str:
    np = B.host_numpy()
    o = OPTIONS
    threshold = o["threshold"] if threshold is None else threshold
    edgeitems = o["edgeitems"] if edgeitems is None else edgeitems
    shown = _shown(a, threshold, edgeitems)
    if a.dtype.kind == "c":
        element, kind = _complex_element(shown, pad), "complex_kind"
    else:
        if a.dtype.kind == "f":
            fmt = _float_format(shown)
        elif a.dtype.kind == "b":
            fmt = lambda v: "True" if v else "False"  # noqa: E731
        else:
            fmt = str
        # every element right-aligned to the widest shown one, as PyTorch pads its columns
        width = _width(fmt, shown, pad)
        element = lambda v: fmt(v).rjust(width)  # noqa: E731
        kind = {"f": "float_kind", "b": "bool"}.get(a.dtype.kind, "int_kind")
    text = np.array2string(a, separator=", ", formatter={kind: element},
                           prefix="tensor(", threshold=threshold, edgeitems=edgeitems,
                           max_line_width=o["linewidth"] if max_line_width is None
                           else max_line_width)
    return text.replace(", ...,", ",  ...,")   # PyTorch's summary mark is " ..."


def _width(fmt, shown, pad):
    """The widest formatted element (for floats PyTorch measures only the finite nonzero
    ones: nan, inf and 0 don't count)."""
    if not pad:
        return 1
    if shown.dtype.kind == "f":
        np = B.host_numpy()
        shown = shown[np.isfinite(shown) & (shown != 0)]
    return max((len(fmt(v)) for v in shown.reshape(-1).tolist()), default=1)


def _complex_element(shown, pad):
    """A complex element as PyTorch prints it: the real and the imaginary parts each
    formatted and padded as a float tensor of them would be (their own precision or
    scientific mode, their own widths), joined as ``re+imj`` (``1.5000+1.j``)."""
    fr, fi = _float_format(shown.real), _float_format(shown.imag)
    wr, wi = _width(fr, shown.real, pad), _width(fi, shown.imag, pad)

    def element(v):
        im = (fi(v.imag).rjust(wi) + "j").lstrip()
        return fr(v.real).rjust(wr) + (im if im[0] in "+-" else "+" + im)
    return element


def tensor_repr(t) -> str:
    a = t._device.to_host(t._data)
    body = _format_array(a)
    extras = []
    if t._device.type != "cpu":
        extras.append(f"device='{t._device.type}'")
    # an empty tensor shows its size unless it is 1-D (as NumPy), and any non-default dtype
    # (no elements to tell an int64 from a float), as PyTorch
    if a.size == 0 and a.ndim != 1:
        extras.append(f"size={tuple(a.shape)}")
    # the default complex dtype goes with the default float (complex64 beside float32)
    default_complex = "complex64" if B.default_float() == "float32" else "complex128"
    if a.dtype != B.default_float() and (
            a.size == 0 or a.dtype.kind == "f" or B.dtype_name(a.dtype) not in _DEFAULT_DTYPES
            and B.dtype_name(a.dtype) != default_complex):
        extras.append(f"dtype=viewgrad.{B.dtype_name(a.dtype)}")
    label = _autograd_label(t)
    if label is not None:
        extras.append(label)
    return _with_suffixes("tensor(" + body, extras, len("tensor("))


def _with_suffixes(text, suffixes, indent):
    """PyTorch's ``_add_suffixes``: each suffix after ", ", or on a line of its own,
    indented, when it would take the last line past the line width (its own count of
    that line's length included)."""
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > OPTIONS["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _autograd_label(t):
    try:
        fn = t.grad_fn
    except RuntimeError:
        # a stale view whose grad_fn cannot be regenerated (reading it raises): PyTorch
        # still prints the tensor, marking its grad_fn invalid
        return "grad_fn=<Invalid>"
    if fn is not None:   # (the class name, as PyTorch prints it: <CopySlices>)
        return f"grad_fn=<{type(fn).__name__}>"
    return "requires_grad=True" if t.requires_grad else None


def preview(t, limit=6) -> str:
    """The values of ``t`` on one line as PyTorch prints them (``[1.0100, 2.0000]``: four
    decimals, or ``e`` notation for tiny/huge values), summarised with ``...`` past
    ``limit`` elements, without the column padding (a picture's label is one line):
    what pictures show instead of ``1.0099999904632568``."""
    a = t._device.to_host(t._data)
    text = _format_array(a, threshold=limit, edgeitems=2, max_line_width=10_000, pad=False)
    return " ".join(text.split())
