"""Recurrent layers, as ``torch.nn``: RNN (tanh/relu), LSTM, GRU and their one-step cells.

Every layer is written out of ordinary differentiable ops — a ``linear`` per gate block, a
``sigmoid``/``tanh`` per gate, a multiply-add for the state — so backward, double backward
and the pictures need nothing of their own: backprop through time IS the engine walking
back along the unrolled graph. The parameters are PyTorch's, by name, shape, order and
initialisation (``weight_ih_l0``, ``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``, then
``_reverse`` for the backward direction; uniform in ±1/sqrt(hidden_size)), so a
``state_dict`` moves between the two libraries. Gate order, as PyTorch's:

    LSTM  gates = W_ih x + b_ih + W_hh h + b_hh, split (i, f, g, o):
          c' = σ(f) c + σ(i) tanh(g);  h' = σ(o) tanh(c')   (then W_hr h' with proj_size)
    GRU   (r, z, n): r = σ(x_r + h_r), z = σ(x_z + h_z), n = tanh(x_n + r (W_hn h + b_hn)),
          h' = (h - n) z + n   (PyTorch's arrangement of (1 - z) n + z h)
    RNN   h' = tanh(W_ih x + b_ih + W_hh h + b_hh)   (or relu)

The input-to-hidden products for all time steps are one ``linear`` before the loop (one
node instead of T); the loop does only the hidden-to-hidden part.

Note [Packed sequences by masking]: a ``PackedSequence`` is run as its padded batch with
a per-step mask: a sequence that has ended (forward direction) or not yet begun (reverse
direction) keeps its state (``where(mask, new, old)``), which is exactly what running the
shrinking packed batches does, and the mask routes no gradient into the padding.
"""
from __future__ import annotations

import math
import numbers
import warnings

from ..ops import factories as Fa
from ..ops.joining import cat, stack
from ..ops.pointwise import where
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .rnn_utils import PackedSequence, pack_padded_sequence, pad_packed_sequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _cell(mode, gi, h, c, w_hh, b_hh, w_hr=None):
    """One time step: ``gi`` is the input part (W_ih x + b_ih) already computed. Returns
    (h', c') (c' is None except for LSTM)."""
    gh = F.linear(h, w_hh, b_hh)
    if mode == "LSTM":
        i, f, g, o = (gi + gh).chunk(4, -1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return (h if w_hr is None else F.linear(h, w_hr)), c
    if mode == "GRU":   # PyTorch's GRU cell, operation for operation
        x_r, x_z, x_n = gi.unsafe_chunk(3, -1)
        h_r, h_z, h_n = gh.unsafe_chunk(3, -1)
        r = (h_r + x_r).sigmoid()
        z = (h_z + x_z).sigmoid()
        n = (x_n + h_n * r).tanh()
        return (h - n) * z + n, None
    pre = gi + gh
    return (pre.tanh() if mode == "RNN_TANH" else F.relu(pre)), None


def _check_dropout(dropout, num_layers):
    if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
            or not 0 <= dropout <= 1):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)


class RNNBase(Module):
    """The shared machinery of RNN, LSTM and GRU (``torch.nn.RNNBase``): parameters per
    layer and direction, argument checks, and the unrolled loop."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        _check_dropout(dropout, num_layers)
        for name, v, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int),
                              ("hidden_size", hidden_size, int)):
            if not isinstance(v, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                                f"{type(v).__name__}")
            if kind is int and v <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(2 if bidirectional else 1):
                sfx = "_reverse" if direction else ""
                in_size = input_size if layer == 0 else real_hidden * (2 if bidirectional else 1)
                shapes = [("weight_ih", (gate_size, in_size)),
                          ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                names = []
                for base, shape in shapes:
                    name = f"{base}_l{layer}{sfx}"
                    setattr(self, name, Parameter(Fa.zeros(shape, device=device, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction (as ``torch.nn.RNNBase``)."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """cuDNN packs the weights into one buffer; viewgrad has nothing to pack."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- forward ----------------------------------------------------------------------------

    def _hidden_shape(self, batch, cell=False):
        size = self.proj_size if self.proj_size > 0 and not cell else self.hidden_size
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    def _check_input(self, x):
        w = getattr(self, self._flat_weights_names[0])
        if x.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({x.dtype}) does not match weight dtype "
                             f"({w.dtype}). Convert input: input.to({w.dtype}), or convert "
                             f"model: model.to({x.dtype})")
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {x.shape[-1]}")

    def _check_hidden(self, h, expected, which=""):
        if tuple(h.shape) != expected:
            label = f"hidden{which}" if which else "hidden"
            raise RuntimeError(f"Expected {label} size {expected}, got {list(h.shape)}")

    def _run(self, x, hx, cx, lengths=None):
        """x: (T, B, F) time-major. hx, cx: (L*D, B, H). Returns (out, h_n, c_n)."""
        T = x.shape[0]
        dirs = 2 if self.bidirectional else 1
        masks = None
        if lengths is not None:
            steps = Fa.arange(T, device=x.device).unsqueeze(1)
            lens = Fa.tensor(lengths, dtype=Fa.B.int64, device=x.device).unsqueeze(0)
            masks = (steps < lens).unsqueeze(-1)          # (T, B, 1)
        h_n, c_n = [], []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                w = [getattr(self, n) for n in self._all_weights[k]]
                w_ih, w_hh = w[0], w[1]
                b_ih, b_hh = (w[2], w[3]) if self.bias else (None, None)
                w_hr = w[-1] if self.proj_size > 0 else None
                # all steps at once, then unbound into steps (one UnbindBackward0), as
                # PyTorch's CPU layers precompute the input part
                gi_all = F.linear(layer_in, w_ih, b_ih).unbind(0)
                h, c = hx[k], (cx[k] if cx is not None else None)
                seq = [None] * T
                for t in (range(T - 1, -1, -1) if d else range(T)):
                    h_new, c_new = _cell(self.mode, gi_all[t], h, c, w_hh, b_hh, w_hr)
                    if masks is not None:   # Note [Packed sequences by masking]
                        h_new = where(masks[t], h_new, h)
                        if c is not None:
                            c_new = where(masks[t], c_new, c)
                    h, c = h_new, c_new
                    seq[t] = h
                outs.append(stack(seq, 0))
                h_n.append(h)
                c_n.append(c)
            layer_in = outs[0] if dirs == 1 else cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        return layer_in, stack(h_n, 0), (stack(c_n, 0) if cx is not None else None)

    def forward(self, input, hx=None):
        is_lstm = self.mode == "LSTM"
        name = {"LSTM": "LSTM", "GRU": "GRU"}.get(self.mode, "RNN")
        packed = isinstance(input, PackedSequence)
        if packed:
            padded, lengths = pad_packed_sequence(
                PackedSequence(input.data, input.batch_sizes, None, None))
            x, sorted_idx, unsorted_idx = padded, input.sorted_indices, input.unsorted_indices
            lengths = [int(v) for v in lengths.tolist()]
            batched = True
        else:
            if input.dim() not in (2, 3):
                tail = " tensor instead" if name == "RNN" else " instead"
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got "
                                 f"{input.dim()}D{tail}")
            batched = input.dim() == 3
            x = input if batched else input.unsqueeze(0 if self.batch_first else 1)
            if self.batch_first:
                x = x.transpose(0, 1)
            lengths, sorted_idx, unsorted_idx = None, None, None
        if x.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {x.dim()}")
        self._check_input(x)
        B = x.shape[1]
        cx, lstm_hx = None, None
        if hx is None:
            hx = Fa.zeros(self._hidden_shape(B), dtype=x.dtype, device=x.device)
            if is_lstm:
                cx = Fa.zeros(self._hidden_shape(B, cell=True), dtype=x.dtype, device=x.device)
        else:
            lstm_hx = hx
            if is_lstm and packed and sorted_idx is None:
                _check_lstm_hx(hx)   # (PyTorch hands a packed batch's hx to ATen unread)
            if is_lstm:   # (indexed as PyTorch does: a bare Tensor gives its rows)
                hx, cx = lstm_hx[0], lstm_hx[1]
            want = 3 if batched else 2
            if hx.dim() != want or (cx is not None and cx.dim() != want):
                kind = "batched 3-D" if batched else "unbatched 2-D"
                if is_lstm:
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D "
                                       f"but got ({hx.dim()}-D, {cx.dim()}-D) tensors")
                raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got "
                                   f"{hx.dim()}-D tensor")
            if not batched:
                hx = hx.unsqueeze(1)
                cx = cx.unsqueeze(1) if cx is not None else None
            if sorted_idx is not None:
                hx = hx[:, sorted_idx]
                cx = cx[:, sorted_idx] if cx is not None else None
        if is_lstm:
            self._check_hidden(hx, self._hidden_shape(B), "[0]")
            self._check_hidden(cx, self._hidden_shape(B, cell=True), "[1]")
            if lstm_hx is not None:
                _check_lstm_hx(lstm_hx)
        else:
            self._check_hidden(hx, self._hidden_shape(B))
        out, h_n, c_n = self._run(x, hx, cx, lengths)
        if packed:
            out = pack_padded_sequence(out, lengths)
            out = PackedSequence(out.data, input.batch_sizes, sorted_idx, unsorted_idx)
            if unsorted_idx is not None:
                h_n = h_n[:, unsorted_idx]
                c_n = c_n[:, unsorted_idx] if c_n is not None else None
        else:
            if self.batch_first:
                # (as ATen's kernels: GRU's and RNN's in place, TransposeBackward1 on
                # top; LSTM's not, TransposeBackward0)
                out = out.transpose(0, 1) if is_lstm else out.transpose_(0, 1)
            if not batched:
                out = out.squeeze(0 if self.batch_first else 1)
                h_n = h_n.squeeze(1)
                c_n = c_n.squeeze(1) if c_n is not None else None
        return (out, (h_n, c_n)) if is_lstm else (out, h_n)


def _check_lstm_hx(hx):
    """What ATen's ``lstm`` makes of the (h, c) given, once the sizes passed: a bare
    Tensor is no tuple of Tensors, and there must be exactly two states."""
    if not isinstance(hx, (tuple, list)):
        raise TypeError(f"lstm() received an invalid combination of arguments - got "
                        f"(Tensor, {type(hx).__name__}, list, bool, int, float, bool, bool, "
                        "bool), but expected one of:\n * (Tensor data, Tensor batch_sizes, "
                        "tuple of Tensors hx, tuple of Tensors params, bool has_biases, int "
                        "num_layers, float dropout, bool train, bool bidirectional)\n * "
                        "(Tensor input, tuple of Tensors hx, tuple of Tensors params, bool "
                        "has_biases, int num_layers, float dropout, bool train, bool "
                        "bidirectional, bool batch_first)")
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")


class RNN(RNNBase):
    """``torch.nn.RNN``: ``h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)`` (or relu
    with ``nonlinearity='relu'``), stacked ``num_layers`` deep, optionally bidirectional.
    ``forward(input, h0=None)`` returns ``(output, h_n)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nl, args = args[3], args[:3] + args[4:]
        else:
            nl = kwargs.pop("nonlinearity", "tanh")
        if nl not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nl}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nl == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nl


class LSTM(RNNBase):
    """``torch.nn.LSTM`` (gates i, f, g, o; ``proj_size`` projects h). ``forward(input,
    (h0, c0)=None)`` returns ``(output, (h_n, c_n))``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """``torch.nn.GRU`` (gates r, z, n with n = tanh(W_in x + b_in + r (W_hn h + b_hn))).
    ``forward(input, h0=None)`` returns ``(output, h_n)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# -- cells ----------------------------------------------------------------------------------

class RNNCellBase(Module):
    """The one-step cells' shared parameters: ``weight_ih``, ``weight_hh``, ``bias_ih``,
    ``bias_hh`` (no layer suffix), uniform in ±1/sqrt(hidden_size)."""

    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        G = num_chunks * hidden_size
        self.weight_ih = Parameter(Fa.zeros((G, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(Fa.zeros((G, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(Fa.zeros(G, device=device, dtype=dtype))
            self.bias_hh = Parameter(Fa.zeros(G, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nl = getattr(self, "nonlinearity", "tanh")
        if nl != "tanh":
            s += f", nonlinearity={nl}"
        return s

    def _prepare(self, input, hx, lstm=False):
        """PyTorch's Python-side checks of a cell's forward: ranks, then the unbatched
        input (and hx) get a batch dim of one. Returns (x, hx as a tuple or a Tensor as
        given, batched)."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if lstm and hx is not None:
            for idx, value in enumerate(hx):   # (a bare Tensor iterates over its rows)
                if value.dim() not in (1, 2):
                    raise ValueError(f"{name}: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        elif hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                             "instead")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            zero = Fa.zeros((x.shape[0], self.hidden_size), dtype=x.dtype, device=x.device)
            hx = (zero, zero) if lstm else zero
        elif not batched:   # (an LSTM hx's first two entries, whatever else it holds)
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if lstm else hx.unsqueeze(0)
        return x, hx, batched

    def _check_step(self, x, hs):
        """The checks of ATen's ``*_cell`` functions, in their order: the input's width,
        then each hidden state's batch size and width (sizes 0 and 1 only)."""
        if x.shape[1] != self.weight_ih.shape[1]:
            raise RuntimeError(f"input has inconsistent input_size: got {x.shape[1]} "
                               f"expected {self.weight_ih.shape[1]}")
        for label, h in enumerate(hs):
            if h.shape[0] != x.shape[0]:
                raise RuntimeError(f"Input batch size {x.shape[0]} doesn't match hidden"
                                   f"{label} batch size {h.shape[0]}")
            if h.dim() < 2:
                raise IndexError("Dimension out of range (expected to be in range of "
                                 f"[-{h.dim()}, {h.dim() - 1}], but got 1)")
            if h.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got "
                                   f"{h.shape[1]}, expected {self.hidden_size}")
            if h.dim() != 2:   # (PyTorch fails later, in the gate arithmetic)
                raise RuntimeError(f"hidden{label} should be 2-D (batch, hidden_size) for a "
                                   f"2-D input, but got size {list(h.shape)}")

    def forward(self, input, hx=None):
        lstm = self._mode == "LSTM"
        x, hx, batched = self._prepare(input, hx, lstm)
        mode = self._mode
        if mode is None:   # RNNCell's nonlinearity is checked at forward, as PyTorch
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        if lstm:
            if not isinstance(hx, (tuple, list)):
                raise TypeError("lstm_cell(): argument 'hx' (position 2) must be tuple of "
                                f"Tensors, not {type(hx).__name__}")
            if len(hx) != 2:
                raise RuntimeError("lstm_cell expects two hidden states")
            hs = tuple(hx)
        else:
            hs = (hx,)
        self._check_step(x, hs)
        gi = F.linear(x, self.weight_ih, self.bias_ih)
        h, c = _cell(mode, gi, hs[0], hs[1] if lstm else None, self.weight_hh, self.bias_hh)
        if not batched:
            h = h.squeeze(0)
            c = c.squeeze(0) if c is not None else None
        return (h, c) if lstm else h


class RNNCell(RNNCellBase):
    """``torch.nn.RNNCell``: one step ``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)``."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        # (an unknown nonlinearity is accepted here and refused by forward, as PyTorch)
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    @property
    def _mode(self):
        return {"tanh": "RNN_TANH", "relu": "RNN_RELU"}.get(self.nonlinearity)


class LSTMCell(RNNCellBase):
    """``torch.nn.LSTMCell``: one step; ``forward(input, (h, c)=None)`` returns (h', c')."""

    _mode = "LSTM"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)


class GRUCell(RNNCellBase):
    """``torch.nn.GRUCell``: one step; ``forward(input, h=None)`` returns h'."""

    _mode = "GRU"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)
