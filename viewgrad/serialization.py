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
``requires_grad`` and Parameters survive the round trip.

Note [saved storages]: as ``torch.save``, what is saved is each tensor's *storage* (its
whole memory, once, however many tensors use it) plus the tensor's geometry (sizes,
strides and offset in elements). So a tensor and its views saved together load sharing
one memory again — writing through one is seen by the others — with the same strides and
offsets; like PyTorch's, the loaded tensors are not autograd views of each other and each
gets its own version counter. A storage whose memory is not one contiguous block (rare:
arrays NumPy made as views of temporaries) is saved per tensor instead.
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
    storages = {}   # id(storage array) -> its key in ``arrays`` (Note [saved storages])

    def enc(o, where):
        if isinstance(o, Tensor):
            spec = {"requires_grad": bool(o.requires_grad),
                    "parameter": bool(getattr(o, "_is_param", False)),
                    "device": o._device.type}
            st = o._storage
            if not (st.flags.c_contiguous or st.flags.f_contiguous) or any(
                    x < 0 for x in o.stride()):
                key = f"t{len(arrays)}"
                arrays[key] = o._device.to_host(o.detach()._data)
                return {"__tensor__": key, **spec}
            key = storages.get(id(st))
            if key is None:
                key = storages[id(st)] = f"t{len(arrays)}"
                arrays[key] = o._device.to_host(st).reshape(-1, order="A")  # memory order
            return {"__tensor__": key, **spec,
                    "geometry": [list(o.shape), list(o.stride()), o.storage_offset()]}
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


def _geometry(geo, a, name):
    """A saved geometry, checked (the archive is untrusted): it must fit its storage."""
    try:
        size, stride, offset = ([int(x) for x in geo[0]], [int(x) for x in geo[1]],
                                int(geo[2]))
    except (TypeError, ValueError, IndexError):
        raise RuntimeError(f"load: {name}: a tensor's geometry is malformed: {geo!r}") \
            from None
    need = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    if (len(size) != len(stride) or a.ndim != 1 or offset < 0 or min(size + stride + [0]) < 0
            or need > a.size):
        raise RuntimeError(f"load: {name}: a tensor's geometry (sizes {size}, strides "
                           f"{stride}, offset {offset}) does not fit its storage of "
                           f"{a.size} elements")
    return tuple(size), tuple(stride), offset


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

    flats = {}  # (storage key, device) -> the storage on that device, made once

    def tens(spec):
        a = arrays[spec["__tensor__"]]
        where = B.device(dev if dev is not None else spec.get("device", "cpu"))
        geo = spec.get("geometry")
        t = tensor(a, device=where) if geo is None else _strided(a, spec, geo, where)
        if spec.get("parameter"):
            from .nn.parameter import Parameter
            return Parameter(t, requires_grad=spec.get("requires_grad", True))
        return t.requires_grad_(True) if spec.get("requires_grad") else t

    def _strided(a, spec, geo, where):
        """The tensor of geometry ``geo`` over the storage ``a``, sharing that storage
        with the other tensors of the archive that use it (Note [saved storages])."""
        size, stride, offset = _geometry(geo, a, name)
        flat = flats.get((spec["__tensor__"], where))
        if flat is None:
            flat = flats[(spec["__tensor__"], where)] = where.from_host(a)
        isz = a.itemsize
        if where.as_strided is None:  # no strided views on this device: a copy
            host = B.strided_in(B.cpu, a, size, tuple(s * isz for s in stride), offset)
            return Tensor._make(where.from_host(host.copy()), where)
        t = Tensor._make(B.strided_in(where, flat, size, tuple(s * isz for s in stride),
                                      offset), where)
        t._storage = flat
        return t

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
