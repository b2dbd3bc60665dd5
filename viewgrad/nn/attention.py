"""Attention, as ``torch.nn.functional``: ``scaled_dot_product_attention`` and
``multi_head_attention_forward`` (the computation of ``nn.MultiheadAttention``, whose
module lives in ``transformer.py``).

All of it is composed from differentiable ops — two batched matmuls around a softmax, a
``masked_fill`` or an added bias for the mask, ``linear`` projections — so the graph shows
what attention is, and backward and double backward come from those ops' own rules.
PyTorch picks a fused kernel (flash / memory-efficient) when it can; those compute the same
function, so the numbers agree to rounding.

Note [Two mask conventions]: ``scaled_dot_product_attention`` takes a boolean mask where
True means "may attend"; ``MultiheadAttention`` (``attn_mask`` and ``key_padding_mask``)
takes one where True means "must NOT attend" (it is turned into a float bias of -inf). A
float mask is added to the scores in both.
"""
from __future__ import annotations

import math
import warnings

from ..ops import factories as Fa
from ..ops.conv import constant_pad_nd
from ..ops.joining import cat
from ..ops.nnops import linear, softmax
from ..ops.norm import dropout
from ..ops.pointwise import where

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _causal(L, S, device):
    """The boolean lower-triangular (L, S) mask: query i may see keys 0..i."""
    return Fa.arange(L, device=device).unsqueeze(1) >= Fa.arange(S, device=device).unsqueeze(0)


def _is_float(t):
    return t._data.dtype.kind == "f"


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(query @ key.T * scale + mask) @ value`` over the last two dims (``...,
    L, E`` queries, ``..., S, E`` keys, ``..., S, Ev`` values), as
    ``torch.nn.functional.scaled_dot_product_attention``: ``scale`` defaults to
    1/sqrt(E); a boolean ``attn_mask`` is True where attending is allowed, a float one is
    added; ``is_causal`` masks the future; ``dropout_p`` drops attention weights (always,
    as PyTorch: pass 0.0 in eval); ``enable_gqa`` repeats key/value heads for grouped-query
    attention."""
    L, S = query.shape[-2], key.shape[-2]
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    if attn_mask is not None and attn_mask.dtype != Fa.B.bool_ and not _is_float(attn_mask):
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {attn_mask.dtype} and  "
                           f"query.dtype: {query.dtype} instead.")
    if enable_gqa and key.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]

        def rep(t):   # (..., Hkv, S, E) -> (..., Hkv * groups, S, E), each head repeated
            shape = tuple(t.shape)
            t = t.unsqueeze(-3).expand(shape[:-2] + (groups,) + shape[-2:])
            return t.reshape(shape[:-3] + (shape[-3] * groups,) + shape[-2:])
        key, value = rep(key), rep(value)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = (query @ key.transpose(-2, -1)) * scale
    if is_causal:
        attn_mask = _causal(L, S, query.device)
    if attn_mask is not None:
        if attn_mask.dtype == Fa.B.bool_:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    # PyTorch's math path takes a "safe" softmax: a query row whose every score is -inf
    # (nothing it may attend to) gets all-zero weights, not 0/0 = NaN, and so a zero
    # output and zero gradient. Such rows' scores are swapped for zeros first, so neither
    # the softmax nor its backward ever sees a NaN, then their weights are zeroed.
    dead = (scores == float("-inf")).all(-1, keepdim=True)
    if bool(dead.any()):
        zero = Fa.zeros((), dtype=scores.dtype, device=scores.device)
        attn = where(dead, zero, softmax(where(dead, zero, scores), dim=-1))
    else:
        attn = softmax(scores, dim=-1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return attn @ value


def _canonical_mask(mask, name, dtype, other_dtype=None, other_name=""):
    """A bool mask (True = masked out) as a float bias of 0 / -inf; a float mask as is.
    ``other_dtype``: the dtype of the mask this one will be merged with (PyTorch warns when
    the two differ, a deprecated mix)."""
    if mask is None:
        return None
    if mask.dtype != Fa.B.bool_ and not _is_float(mask):
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other_dtype is not None and mask.dtype != other_dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=3)
    if mask.dtype == Fa.B.bool_:
        return Fa.zeros(tuple(mask.shape), dtype=dtype, device=mask.device).masked_fill(
            mask, float("-inf"))
    return mask


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """PyTorch's ``_mha_shape_check``: the ranks of the inputs and masks must agree on
    whether the call is batched (3-D query) or not (2-D); returns which it is."""
    q_dim = query.dim()
    if q_dim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{q_dim}-D query tensor")
    kind = "batched (3-D)" if q_dim == 3 else "unbatched (2-D)"
    if key.dim() != q_dim or value.dim() != q_dim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {q_dim}-D "
                             f"but found {key.dim()}-D and {value.dim()}-D tensors "
                             "respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != q_dim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{q_dim - 1}-D but found {key_padding_mask.dim()}-D tensor "
                             "instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.dim()}-D tensor instead")
        if q_dim == 2 and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"{attn_mask.shape}")
    return q_dim == 3


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """``torch.nn.functional.multi_head_attention_forward``: the computation of
    ``nn.MultiheadAttention`` on sequence-first inputs (L, N, E) (or unbatched (L, E)).
    Returns (output, attention weights averaged over heads, or per head, or None).

    Note [Two attention paths]: as PyTorch, ``need_weights=True`` computes the weights
    with a plain softmax (a query row with nothing to attend to gets NaN weights and a NaN
    output), while ``need_weights=False`` hands q, k, v to ``scaled_dot_product_attention``,
    whose safe softmax gives such a row a zero output and zero gradient. A causal hint
    without a key padding mask and without weights wanted is passed on to SDPA as
    ``is_causal`` and ``attn_mask`` is dropped (SDPA builds the causal mask itself)."""
    batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", query.dtype,
        attn_mask.dtype if attn_mask is not None else None, "attn_mask")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None        # Note [Two attention paths]: SDPA applies the causal hint
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", query.dtype)
        if key_padding_mask is not None:
            is_causal = False   # the mask merged with the padding is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if not use_separate_proj_weight:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape "
                                 f"{tuple(value.shape)}")
        w_q, w_k, w_v = in_proj_weight.chunk(3)
    else:
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    b_q, b_k, b_v = in_proj_bias.chunk(3) if in_proj_bias is not None else (None,) * 3
    q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is "
                                   f"torch.Size({list(attn_mask.shape)}), but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is "
                                   f"torch.Size({list(attn_mask.shape)}), but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k is set but bias_v is None" if bias_v is None
                             else "bias_v is set but bias_k is None")
    if bias_k is not None:
        k = cat([k, bias_k.expand(1, bsz, embed_dim)])
        v = cat([v, bias_v.expand(1, bsz, embed_dim)])
        attn_mask = constant_pad_nd(attn_mask, (0, 1)) if attn_mask is not None else None
        key_padding_mask = constant_pad_nd(key_padding_mask, (0, 1)) \
            if key_padding_mask is not None else None
    # (L, N, E) -> (N * heads, L, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
         if static_k is None else static_k)
    v = (v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
         if static_v is None else static_v)
    if add_zero_attn:
        zeros = Fa.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k, v = cat([k, zeros], 1), cat([v, zeros], 1)
        attn_mask = constant_pad_nd(attn_mask, (0, 1)) if attn_mask is not None else None
        key_padding_mask = constant_pad_nd(key_padding_mask, (0, 1)) \
            if key_padding_mask is not None else None
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(
            bsz, num_heads, 1, src_len).reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if not need_weights:
        out = _sdpa_heads(q, k, v, attn_mask, dropout_p, is_causal, bsz, num_heads)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        return (out if batched else out.squeeze(1)), None
    scores = (q * math.sqrt(1.0 / head_dim)) @ k.transpose(-2, -1)
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    out = weights @ v                                   # (N * heads, L, head_dim)
    out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not batched:
        out, weights = out.squeeze(1), weights.squeeze(0)
    return out, weights


def _sdpa_heads(q, k, v, attn_mask, dropout_p, is_causal, bsz, num_heads):
    """The need_weights=False path (Note [Two attention paths]): (N * heads, L, head_dim)
    q, k, v through ``scaled_dot_product_attention`` as (N, heads, L, head_dim); returns
    the heads joined back to (L * N, E) rows."""
    tgt_len, src_len, head_dim = q.shape[1], k.shape[1], q.shape[2]
    if attn_mask is not None:   # (1, L, S) broadcasts; else one mask per (sample, head)
        attn_mask = (attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1
                     else attn_mask.reshape(bsz, num_heads, -1, src_len))
    out = scaled_dot_product_attention(
        q.reshape(bsz, num_heads, tgt_len, head_dim),
        k.reshape(bsz, num_heads, src_len, head_dim),
        v.reshape(bsz, num_heads, src_len, head_dim), attn_mask, dropout_p, is_causal)
    return out.permute(2, 0, 1, 3).reshape(tgt_len * bsz, num_heads * head_dim)
