"""``save`` / ``load``: tensors, state dicts and nested dicts/lists/tuples of them, in a
SAFE format — never pickle.

``save(obj, f)`` writes one .npz archive (a zip of .npy arrays, readable by NumPy): each
tensor becomes an array ``t0``, ``t1``, ...; the structure around them (dicts — with
their key order —, lists, tuples, numbers, strings, None) is JSON stored as bytes in the
array ``__meta__``. ``load(f)`` rebuilds it, reading arrays with ``allow_pickle=False``:
a file that is anything else (a pickle written by ``torch.save`` in PyTorch, an
arbitrary zip) is refused with an error that says so. Plain .npz state dicts written by
``viewgrad.nn.save`` load too.

As PyTorch: ``save(model.state_dict(), path)`` then ``model.load_state_dict(load(path))``;
``requires_grad`` and Parameters survive the round trip. Unlike PyTorch, storage sharing
between saved tensors is not kept: each tensor is saved as its own copy.
"""
from __future__ import annotations

import json
import os
from collections import OrderedDict

from . import backend as B
from .tensor import Tensor

__all__ = ["save", "load"]

_FORMAT = "viewgrad-archive-1"


def _what(obj):
    return type(obj).__module__ + "." + type(obj).__qualname__


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True):
    """Save ``obj`` (tensors, numbers, strings, None, and dicts/lists/tuples of them — a
    ``state_dict`` of a model or an optimizer) to the path or binary file ``f`` as a safe
    .npz archive. As ``torch.save``, minus pickle: other objects are refused."""
    if pickle_module is not None:
        raise ValueError("save: viewgrad never pickles; pickle_module is not accepted")
    arrays = {}

    def enc(o, where):
        if isinstance(o, Tensor):
            key = f"t{len(arrays)}"
            arrays[key] = o._device.to_host(o.detach()._data)
            return {"__tensor__": key, "requires_grad": bool(o.requires_grad),
                    "parameter": bool(getattr(o, "_is_param", False)),
                    "device": o._device.type}
        if o is None or isinstance(o, (bool, int, float, str)):
            return o
        if isinstance(o, dict):
            return {"__dict__": [[enc(k, where), enc(v, f"{where}[{k!r}]")]
                                 for k, v in o.items()],
                    "ordered": isinstance(o, OrderedDict)}
        if isinstance(o, tuple):
            return {"__tuple__": [enc(v, f"{where}[{i}]") for i, v in enumerate(o)]}
        if isinstance(o, list):
            return [enc(v, f"{where}[{i}]") for i, v in enumerate(o)]
        raise TypeError(f"save: cannot store {where}, a {_what(o)}: viewgrad saves tensors, "
                        "numbers, strings, None and dicts/lists/tuples of them (a safe .npz "
                        "archive, never pickled objects). Save its state_dict() instead.")

    meta = json.dumps({"format": _FORMAT, "root": enc(obj, "obj")})
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            B.save_archive(fh, meta, arrays)
    else:
        B.save_archive(f, meta, arrays)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read what ``save`` wrote (or a plain .npz of arrays, as ``viewgrad.nn.save``
    writes) from a path or binary file. ``map_location`` ('cpu', 'cuda', a device) moves
    the tensors. Anything that is not such an archive — a pickle from PyTorch's
    ``torch.save`` included — is refused: viewgrad never unpickles."""
    from .ops.factories import tensor
    name = f if isinstance(f, (str, os.PathLike)) else getattr(f, "name", "the file")
    try:
        meta, arrays = B.load_archive(f)
    except ValueError as e:
        raise RuntimeError(
            f"load: {name} is not a viewgrad archive ({e}). viewgrad only reads the safe .npz "
            "archives written by viewgrad's save (or plain .npz files of arrays) and never "
            "unpickles: a file written by PyTorch's torch.save is a pickle — re-save it from "
            "PyTorch as arrays (e.g. numpy.savez(path, **{k: v.numpy() for k, v in "
            "sd.items()}))") from None
    dev = None
    if map_location is not None and not callable(map_location) and \
            not isinstance(map_location, dict):
        dev = B.device(map_location)

    def tens(spec):
        a = arrays[spec["__tensor__"]]
        t = tensor(a, device=dev if dev is not None else spec.get("device", "cpu"))
        if spec.get("parameter"):
            from .nn.parameter import Parameter
            return Parameter(t, requires_grad=spec.get("requires_grad", True))
        return t.requires_grad_(True) if spec.get("requires_grad") else t

    def dec(o):
        if isinstance(o, list):
            return [dec(v) for v in o]
        if isinstance(o, dict):
            if "__tensor__" in o:
                return tens(o)
            if "__tuple__" in o:
                return tuple(dec(v) for v in o["__tuple__"])
            if "__dict__" in o:
                items = [(dec(k), dec(v)) for k, v in o["__dict__"]]
                return OrderedDict(items) if o.get("ordered") else dict(items)
            raise RuntimeError(f"load: {name}: unknown entry in the archive's structure: "
                               f"{sorted(o)}")
        return o

    if meta is None:  # a plain .npz of arrays: a flat state dict
        return OrderedDict((k, tensor(a, device=dev)) for k, a in arrays.items())
    try:
        doc = json.loads(meta)
    except json.JSONDecodeError as e:
        raise RuntimeError(f"load: {name}: the archive's structure is not valid JSON ({e})") \
            from None
    if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
        raise RuntimeError(f"load: {name}: not a {_FORMAT} archive")
    return dec(doc["root"])
