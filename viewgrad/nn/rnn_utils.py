"""``viewgrad.nn.utils.rnn``, as ``torch.nn.utils.rnn``: batches of sequences of different
lengths, padded (``pad_sequence``) or packed (``PackedSequence``).

A ``PackedSequence`` stores the time steps of a sorted batch one after the other: for
lengths (3, 2, 1) the rows of ``data`` are ``a0 b0 c0 a1 b1 a2`` and ``batch_sizes`` is
(3, 2, 1), how many sequences are still running at each step. Packing and unpacking are
pure indexing (``padded[t, b]`` and its inverse through one extra padding row), so their
gradients are the indexing ops' own and every step shows in the graph.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..ops import factories as Fa
from ..ops.joining import cat, stack
from ..tensor import Tensor

__all__ = ["PackedSequence", "pad_sequence", "pack_padded_sequence", "pad_packed_sequence",
           "pack_sequence", "unpack_sequence", "unpad_sequence", "invert_permutation"]


class _PackedSequenceBase(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedSequenceBase):
    """``torch.nn.utils.rnn.PackedSequence``: (data, batch_sizes, sorted_indices,
    unsorted_indices). Made by ``pack_padded_sequence`` / ``pack_sequence``, read by
    RNN/LSTM/GRU and ``pad_packed_sequence``; never built by hand."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The data moved/cast (``Tensor.to``); the index tensors stay."""
        return type(self)(self.data.to(*args, **kwargs), self.batch_sizes,
                          self.sorted_indices, self.unsorted_indices)

    def double(self):
        """``data`` as float64."""
        return self.to(Fa.B.float64)

    def float(self):
        """``data`` as float32."""
        return self.to(Fa.B.float32)

    @property
    def is_cuda(self):
        """Whether ``data`` lives on the GPU."""
        return self.data.is_cuda


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    perm = [int(v) for v in permutation.tolist()]
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return Fa.tensor(inv, dtype=Fa.B.int64)


def _lengths_list(lengths):
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lengths.dim()}D {lengths.dtype} tensor")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shapes (L_i, *) into (max L, B, *) (or (B, max L, *) with
    ``batch_first``), filling with ``padding_value`` on the right (or the left)."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    elif not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    sequences = list(sequences)
    # ATen's checks, in its order
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    # a 0-d sequence has no length: ATen slices the first one's sizes past its time dim,
    # then reads every sequence's size(0)
    if sequences[0].dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    if any(seq.dim() == 0 for seq in sequences):
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    longest = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        n = longest - s.shape[0]
        if n:
            fill = Fa.full((n,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype,
                           device=s.device)
            s = cat([s, fill] if padding_side == "right" else [fill, s], 0)
        rows.append(s)
    return stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The inverse of ``pad_sequence``: a list of the B sequences, each cut to its length."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[b, :n] for b, n in enumerate(_lengths_list(lengths))]


def _batch_sizes(lengths_sorted):
    return [sum(1 for n in lengths_sorted if n > t) for t in range(lengths_sorted[0])]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) whose sequences
    have ``lengths``. With ``enforce_sorted=False`` the batch is sorted by length first
    and ``sorted_indices`` remembers how."""
    n = _lengths_list(lengths)
    x = input.transpose(0, 1) if batch_first else input
    batch = x.shape[1] if x.dim() > 1 else 0
    # ATen's checks, in its order: something to pack, one length per sample, then (for
    # the sorted lengths) the last one positive and the order decreasing
    if enforce_sorted:
        order, sorted_indices = list(range(len(n))), None
    else:
        # a stable sort, longest first (as torch.sort(descending=True) gives for ties here);
        # PyTorch then selects those samples, so fewer lengths than samples pack a subset
        order = sorted(range(len(n)), key=lambda b: -n[b])
        sorted_indices = Fa.tensor(order, dtype=Fa.B.int64)
        bad = [b for b in order if b >= batch]
        if bad:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad[0]} "
                               f"axis_dim={batch}")
        batch = len(n)
    if input.numel() == 0 or not n:
        raise RuntimeError("Cannot pack empty tensors.")
    if len(n) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(n)} (batch_size={batch})")
    if n[order[-1]] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if enforce_sorted and any(a < b for a, b in zip(n, n[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                           "to pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    if max(n) > x.shape[0]:
        raise RuntimeError(f"Expected a sequence of length at most {x.shape[0]} (the padded "
                           f"input's time dim), but got lengths {n}")
    lens = [n[b] for b in order]
    sizes = _batch_sizes(lens)
    t_idx = [t for t, bs in enumerate(sizes) for _ in range(bs)]
    b_idx = [order[i] for bs in sizes for i in range(bs)]
    data = x[Fa.tensor(t_idx, dtype=Fa.B.int64, device=x.device),
             Fa.tensor(b_idx, dtype=Fa.B.int64, device=x.device)]
    return PackedSequence(data, Fa.tensor(sizes, dtype=Fa.B.int64), sorted_indices)


def _sorted_lengths(batch_sizes):
    sizes = [int(v) for v in batch_sizes.tolist()]
    return [sum(1 for bs in sizes if bs > b) for b in range(sizes[0])], sizes


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Unpack: (padded (T, B, *) or (B, T, *), lengths int64 tensor), in the original
    batch order."""
    data, batch_sizes, _, unsorted = sequence
    lens, sizes = _sorted_lengths(batch_sizes)
    T = len(sizes)
    if total_length is not None:
        if total_length < T:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {T}")
        T = total_length
    # row of ``data`` holding (t, sorted b), or the extra padding row at the end
    start = [sum(sizes[:t]) for t in range(len(sizes))]
    pad_row = data.shape[0]
    idx = [[start[t] + b if t < len(sizes) and b < sizes[t] else pad_row
            for b in range(sizes[0])] for t in range(T)]
    fill = Fa.full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
                   device=data.device)
    padded = cat([data, fill], 0)[Fa.tensor(idx, dtype=Fa.B.int64, device=data.device)]
    lengths = Fa.tensor(lens, dtype=Fa.B.int64)
    if unsorted is not None:
        padded = padded[:, unsorted.to(padded.device)]
        lengths = lengths[unsorted]
    return (padded.transpose(0, 1) if batch_first else padded), lengths


def pack_sequence(sequences, enforce_sorted=True):
    """``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a ``PackedSequence`` holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
