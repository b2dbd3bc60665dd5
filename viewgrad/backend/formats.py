"""PyTorch's memory formats: the values of a ``memory_format=`` argument
(``vg.contiguous_format``, ``vg.preserve_format``, ``vg.channels_last``,
``vg.channels_last_3d``), the strides each asks for, and which one a tensor's strides
suggest.

Note [memory formats]
A memory format names a layout, not a shape: ``contiguous_format`` is row-major,
``channels_last`` is NCHW stored as NHWC (the channel dim has stride 1), and
``channels_last_3d`` the same for NCDHW. ``preserve_format`` means "as the input is laid
out" (``empty_like``'s rule: the input's own strides when they are non-overlapping and
dense, else dense strides in the input's order: ``preserved_strides``, strided.py). They
are what ``clone``, ``contiguous``, ``to``, ``empty``, the ``*_like`` factories and
``is_contiguous`` take, with PyTorch's checks: a channels-last format needs a 4-D (5-D)
tensor, ``contiguous()`` and ``empty()`` refuse ``preserve_format``. ``to`` copies only
when the format asked for is not the one the tensor's strides already suggest
(``suggest_memory_format``: PyTorch's heuristic, which calls an ambiguous layout NCHW).
tests/ops/test_memory_formats_vs_torch.py compares strides with torch.
"""
from __future__ import annotations

from .. import layouts as _L

__all__ = ["memory_format", "contiguous_format", "preserve_format", "channels_last",
           "channels_last_3d", "format_of", "format_strides", "suggest_memory_format",
           "is_contiguous_as", "layout", "strided"]


class memory_format:
    """A memory format (``vg.contiguous_format``, ``vg.channels_last``...): how a
    tensor's elements lie in memory; the four values are the only ones there are."""
    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.memory_format' instances")

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):   # (copy and deepcopy keep the one value: its module's name)
        return self._name


def _make(name):
    m = object.__new__(memory_format)
    m._name = name
    return m


class layout:
    """A tensor layout (``x.layout``): ``vg.strided``, elements at strides over a storage,
    is the only one viewgrad has (PyTorch also has sparse layouts)."""
    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.layout' instances")

    def __repr__(self):
        return "torch.strided"

    def __reduce__(self):
        return "strided"


strided = object.__new__(layout)
contiguous_format = _make("contiguous_format")
preserve_format = _make("preserve_format")
channels_last = _make("channels_last")
channels_last_3d = _make("channels_last_3d")

_RANK = {channels_last: 4, channels_last_3d: 5}
# the dims from the fastest to the slowest (PyTorch's get_channels_last_strides_*d)
_ORDER = {channels_last: (1, 3, 2, 0), channels_last_3d: (1, 4, 3, 2, 0)}


def format_of(value, fn, default=contiguous_format):
    """The memory format a ``memory_format=`` argument of ``fn`` names (None: ``default``),
    or PyTorch's TypeError for anything else."""
    if value is None:
        return default
    if type(value) is not memory_format:
        raise TypeError(f"{fn}(): argument 'memory_format' must be torch.memory_format, "
                        f"not {type(value).__name__}")
    return value


def format_strides(shape, fmt):
    """The element strides of a fresh tensor of ``shape`` in ``fmt`` (contiguous or a
    channels-last format), with PyTorch's refusal of a channels-last format at the wrong
    rank. (A dim of size 0 gives the slower dims stride 0, as PyTorch's.)"""
    if fmt is contiguous_format:
        return _L.row_major_strides(tuple(shape))
    rank = _RANK[fmt]
    if len(shape) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
    st = [0] * rank
    step = 1
    for d in _ORDER[fmt]:
        st[d] = step
        step *= shape[d]
    return tuple(st)


def is_contiguous_as(shape, st, fmt):
    """torch's ``is_contiguous(memory_format=fmt)`` of a geometry (preserve_format asks
    what contiguous_format asks, as PyTorch's; a channels-last format at another rank:
    False). A size-1 dim's stride does not count."""
    if fmt is contiguous_format or fmt is preserve_format:
        return _L.torch_contiguous(shape, st)
    return len(shape) == _RANK[fmt] and _L.dense_in_order(shape, st, _ORDER[fmt])


def _strides_like(shape, st, order):
    # PyTorch's is_channels_last_strides_{2d_s4,3d_s5}: the dims' strides grow along
    # ``order``; ambiguous cases (a channel stride of 0, N111 with equal strides) are NCHW
    low = 0
    if st[1] == 0:
        return False
    for d in order:
        if shape[d] == 0 or st[d] < low:
            return False
        if d == 0 and low == st[1]:
            return False
        low = st[d] * shape[d] if shape[d] > 1 else st[d]
    return True


def suggest_memory_format(shape, st):
    """The memory format PyTorch's ``suggest_memory_format`` reads off a geometry:
    channels_last (channels_last_3d) for a 4-D (5-D) tensor whose strides grow as that
    format's do, else contiguous_format."""
    if len(shape) == 4 and _strides_like(shape, st, _ORDER[channels_last]):
        return channels_last
    if len(shape) == 5 and _strides_like(shape, st, _ORDER[channels_last_3d]):
        return channels_last_3d
    return contiguous_format
