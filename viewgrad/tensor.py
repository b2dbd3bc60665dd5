"""Tensor: an array, its device, its version counter, its view metadata, its grad fields.

Data and autograd are kept apart (as in PyTorch's ``AutogradMeta``):

  * data        ``_data`` (a backend ndarray; a view's ``_data`` is a numpy/cupy view into
                its base's buffer), ``_storage`` (the array that owns the memory, used for
                ``storage_offset()`` and ``as_strided``), ``_device``;
  * versions    ``_version_counter``: ONE object shared by a base, all its views and the
                tensors made by ``detach()``; every in-place op bumps it once;
  * views       ``_base`` (the root base, never itself a view) and ``_view_info``
                (geometry, view_fn chain, creation_meta: see ``autograd/views.py``);
  * autograd    ``_requires_grad`` (leaves), ``_grad_fn`` + ``_output_nr`` (non-leaves),
                ``_grad``, ``_grad_accumulator`` (a weakref: the graph owns AccumulateGrad),
                leaf hooks and ``retain_grad``.

Every operator lives in ``ops/`` and is attached to Tensor as a method there; this module
holds only the class and what is about data, not math.
"""
from __future__ import annotations

import weakref

import weakref

from . import backend as B
from .autograd.state import state as _st

__all__ = ["LEAN_CLASSES", "Tensor", "VersionCounter", "describe_tensor"]

# the names PyTorch's .grad-assignment error gives dtypes: the gradient's by its C++ type
# (caffe2's TypeMeta), the tensor's by its ScalarType
_TYPE_META = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}
_SCALAR_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}

class VersionCounter:
    """The version shared by every tensor that looks at one storage."""

    __slots__ = ("version", "bumps")
    inference = False  # see InferenceVersion

    def __init__(self):
        self.version = 0
        self.bumps = None  # recent (op, where, _, new version) when blame is on

    def bump(self, op=None, depth=3):
        # (depth: user_frame's frames up to the user's line, when the caller knows it:
        # bump's caller's caller by default; Note [blame marks], blame.py)
        self.version += 1
        if _st.blame and op is not None:
            b = self.bumps
            if b is None:
                b = self.bumps = []
            b.append((op, _blame.user_frame(depth), None, self.version))
            if len(b) > _blame.KEEP:
                del b[0]


class InferenceVersion(VersionCounter):
    """What an inference tensor has instead of a version counter (PyTorch's have none):
    every tensor made in ``inference_mode`` gets one, and its views and ``detach()`` share
    it, so ``t.is_inference()`` is ``t._version_counter.inference``. Bumping it — an
    in-place op — is allowed only inside inference mode; outside, it raises PyTorch's
    error after the write, as PyTorch does (its check runs where the version would move)."""

    __slots__ = ()
    inference = True

    def bump(self, op=None, depth=3):
        if not _st.inference:
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You "
                "can make a clone to get a normal tensor before doing inplace update.See "
                "https://github.com/pytorch/rfcs/pull/17 for more details.")


def new_result(data, device):
    """A normal tensor over ``data`` on ``device``: a fresh version counter, no base, no
    view, no history yet. What ``Tensor._make`` makes outside inference mode, with the
    device given and ``VersionCounter()`` without the call of ``__init__``; the ops' hot
    path builds every result with it (Note [dispatch in line] in ops/table.py)."""
    t = _new(Tensor)
    t._data = data
    t._device = device
    t._vc = vc = _new(VersionCounter)
    vc.version = 0
    vc.bumps = None
    t._base = None
    t._view_info = None
    t._grad_fn = None
    t._output_nr = 0
    return t


# Note [a version counter made when first asked]
# A speed trick: a result nothing saved, viewed or changed in place never needs its
# version counter, and most of a small-op program's results are such (``y * 1.01``:
# the next op reads it, and it is gone). The lean methods (ops/lean.py) leave ``_vc``
# None for a result their node does not save; ``_version_counter`` makes the counter
# the first time anything asks (a view sharing it, an in-place op bumping it, a node
# saving the tensor, ``._version``), at version 0 — what it would have held, as nothing
# could bump it before. Every other tensor gets its counter when it is made.


def describe_tensor(dtype, shape) -> str:
    return f"{B.dtype_name(dtype)} {list(shape)}"


class Tensor:
    # Hot fields are slots, set by every constructor. Cold fields (rarely set) are class
    # attributes holding their defaults: an op's output does not pay for assigning them,
    # and the first assignment goes to the instance __dict__.
    __slots__ = ("_data", "_device", "_vc", "_base", "_view_info", "_grad_fn",
                 "_output_nr", "__dict__", "__weakref__")
    _storage_ = None          # the array owning the memory, when it is not _data itself
    _requires_grad = False    # leaves only; non-leaves require grad through _grad_fn
    _grad = None
    _grad_accumulator = None  # weakref to this leaf's AccumulateGrad
    _hooks = None             # leaf tensor hooks {key: fn}
    _post_acc_hooks = None
    _retains_grad = False
    _name = None
    _is_param = False
    _fresh_buffer = False     # set by empty_strided: its strided array owns a new buffer
    _lean_facts = None        # Note [a base's facts, kept] (autograd/inplace_lean.py)
    _storage_not_resizable = False   # from_numpy's: Note [resize_ over a storage] (ops/resize.py)

    @property
    def _version_counter(self):
        """The version counter this tensor shares with its base and views: ``_vc``, or
        one made now (Note [a version counter made when first asked])."""
        vc = self._vc
        if vc is None:
            vc = self._vc = _new(VersionCounter)
            vc.version = 0
            vc.bumps = None
        return vc

    @_version_counter.setter
    def _version_counter(self, vc):
        self._vc = vc

    @property
    def _storage(self):
        s = self._storage_
        return self._data if s is None else s

    @_storage.setter
    def _storage(self, value):
        self._storage_ = None if value is self._data else value

    # Make numpy defer to our reflected operators (ndarray * Tensor -> Tensor.__rmul__).
    __array_priority__ = 1000
    __array_ufunc__ = None

    def __init__(self, *args, requires_grad=False, device=None, dtype=None):
        """PyTorch's legacy constructor: ``Tensor(data)`` copies data into a float32 tensor
        (``Tensor([1, 1])`` is float32, unlike ``viewgrad.tensor([1, 1])`` which infers
        int64); ``Tensor(2, 3)`` (sizes) makes a 2x3 tensor (zeros here; PyTorch leaves it
        uninitialized); ``Tensor()`` is empty. Prefer ``viewgrad.tensor(data)``."""
        sizes = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
        if len(args) == 1 and not isinstance(args[0], (int, Size)):
            data = args[0]
            if isinstance(data, Tensor):
                data = data._device.to_host(data._data)
        elif all(isinstance(a, int) and not isinstance(a, bool) for a in sizes):
            if any(s < 0 for s in sizes):
                raise RuntimeError(f"Trying to create tensor with negative dimension: "
                                   f"{list(sizes)}")
            data = B.host_zeros(sizes if args else (0,), B.to_dtype(dtype) or B.default_float())
        else:
            raise TypeError(f"new(): invalid data type '{type(args[1]).__name__}'; use "
                            "Tensor(data) or Tensor(*sizes)")
        dev = B.device(device) if device is not None else (
            B.device_of_array(data) or B.get_default_device())
        want = B.to_dtype(dtype) or B.default_float()
        if not B.is_array(data) or data.dtype != want:
            data = B.from_python(data if not B.is_array(data) else dev.to_host(data), want,
                                 dev)
        elif B.device_of_array(data) is not dev:
            data = B.from_python(dev.to_host(data), want, dev)
        self._data = data
        self._device = dev
        self._version_counter = InferenceVersion() if _st.inference else VersionCounter()
        self._base = None
        self._view_info = None
        self._grad_fn = None
        self._output_nr = 0
        if requires_grad:
            self.requires_grad_(True)

    @staticmethod
    def _make(data, device=None):
        """Fast internal constructor: wrap an array (no copies, no checks). Without
        ``device`` the array's own device is used (never assume cpu: see DESIGN §10)."""
        if _st.inference:
            t = _new(Tensor)
            t._data = data
            t._device = device if device is not None else (B.device_of_array(data) or B.cpu)
            t._version_counter = InferenceVersion()
            t._base = None
            t._view_info = None
            t._grad_fn = None
            t._output_nr = 0
            return t
        return new_result(data, device if device is not None else (
            B.device_of_array(data) or B.cpu))

    @staticmethod
    def _empty_strided(size, stride, dtype, device):
        """An uninitialised tensor with the given strides over a buffer of its own
        (``empty_strided``; CopySlices and AccumulateGrad lay gradients out with it)."""
        a, buf = B.empty_strided(device, size, stride, dtype)
        t = Tensor._make(a, device)
        t._storage = buf
        t._fresh_buffer = True
        return t

    # -- data ------------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    ndim = property(dim)

    def numel(self):
        return int(self._data.size)

    nelement = numel

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    def element_size(self):
        return self._data.itemsize

    ndimension = dim

    @property
    def itemsize(self):
        """Bytes per element (``element_size()``), as ``torch.Tensor.itemsize``."""
        return self._data.itemsize

    @property
    def nbytes(self):
        """Bytes the elements take: ``numel() * itemsize`` (what this tensor views, not
        its whole storage), as ``torch.Tensor.nbytes``."""
        return int(self._data.size) * self._data.itemsize

    @property
    def is_cpu(self):
        """Whether the tensor lives in host memory, as ``torch.Tensor.is_cpu``."""
        return self._device.type == "cpu"

    def is_pinned(self, device=None):
        """False: viewgrad has no page-locked host memory (``torch.Tensor.is_pinned``)."""
        return False

    def pin_memory(self, device=None):
        """PyTorch's refusal where no accelerator is there to pin memory for; with one,
        the tensor itself (NumPy's host memory is what a copy to the device reads)."""
        if not B.cuda_is_available():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return self

    def get_device(self):
        """-1 for a cpu tensor, the device's index otherwise (as PyTorch)."""
        return -1 if self._device.type == "cpu" else (self._device.index or 0)

    def stride(self, dim=None):
        d = self._data
        st = B.torch_strides(d)   # (NumPy's, but an empty array's as PyTorch says them)
        return st if dim is None else st[_wrap_dim(dim, d.ndim)]

    def storage_offset(self):
        if self._storage_ is None:
            return 0  # this tensor's array owns its memory from its first element
        d = self._device
        return (d.data_ptr(self._data) - d.data_ptr(self._storage)) // self._data.itemsize

    def data_ptr(self):
        return self._device.data_ptr(self._data)

    def is_contiguous(self, *, memory_format=B.contiguous_format):
        """Whether the elements lie in memory as ``memory_format`` lays them out
        (row-major by default; a size-1 dim's stride does not count)."""
        if memory_format is B.contiguous_format:
            return bool(self._data.flags.c_contiguous)
        fmt = B.format_of(memory_format, "is_contiguous")
        return B.is_contiguous_as(tuple(self.shape), self.stride(), fmt)

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def untyped_storage_size(self):
        return int(self._storage.size)

    @property
    def _version(self):
        vc = self._version_counter
        if vc.inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return vc.version

    @property
    def name(self):
        """A label for pictures and traces (like torchviz's names); ``None`` by default."""
        return self._name

    @name.setter
    def name(self, value):
        self._name = None if value is None else str(value)

    # -- autograd fields ---------------------------------------------------------------
    @property
    def requires_grad(self):
        # the stored grad_fn, not the property: asking must never regenerate a stale
        # view's grad_fn (which may raise), as PyTorch's requires_grad() does not
        if self._requires_grad or self._grad_fn is not None:
            return True
        vi = self._view_info
        # A view of a base that requires grad reports requires_grad=True, even when it
        # was made under no_grad (PyTorch's DifferentiableViewMeta::requires_grad).
        return vi is not None and self._base.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if type(value) is not bool:
            raise RuntimeError("requires_grad must be a bool")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        if type(requires_grad) is not bool and type(requires_grad).__name__ != "bool_":
            t = type(requires_grad)
            name = t.__name__ if t.__module__ in ("builtins", __name__) else \
                f"{t.__module__}.{t.__name__}"
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {name}")
        if self._grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation "
                "use var_no_grad = var.detach().")
        if requires_grad and self._data.dtype.kind == "c":   # Note [no complex gradients]
            from .autograd.graph import _complex_refusal
            raise _complex_refusal(f"a {B.dtype_name(self._data.dtype)} tensor cannot "
                                  "require gradients")
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients "
                f"(got {B.dtype_name(self._data.dtype)}); convert first, e.g. x.double()")
        if requires_grad and self._version_counter.inference and not _st.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        if self._grad_fn is None:
            self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        vi = self._view_info
        if vi is not None and vi.version != self._version_counter.version:
            _regenerate_grad_fn(self)
        return self._grad_fn

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def grad(self):
        # (a leaf's question answered without the grad_fn property: only a view can have
        # a grad_fn to regenerate)
        fn = self._grad_fn
        if self._view_info is not None:
            try:
                fn = self.grad_fn
            except RuntimeError:   # a view that may not be regenerated (made in no_grad,
                fn = None          # then its base modified): PyTorch's getter just reads
        if (fn is not None and self._grad is None and not self._retains_grad
                and _st.warn_nonleaf_grad):   # (PyTorch warns only while it is undefined)
            import warnings
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being "
                "accessed. Its .grad attribute won't be populated during autograd.backward(). "
                "If you indeed want the .grad field to be populated for a non-leaf Tensor, "
                "use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
                "Tensor by mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more informations.",
                UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.dtype != self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{_TYPE_META.get(B.dtype_name(value.dtype), B.dtype_name(value.dtype))}' "
                    f"to a tensor with grad_dtype "
                    f"'{_SCALAR_TYPE.get(B.dtype_name(self.dtype), B.dtype_name(self.dtype))}'. "
                    "The gradient "
                    "must match the tensor's grad_dtype (defaults to the tensor's dtype).")
            if value._device != self._device:
                raise RuntimeError(
                    f"attempting to assign a gradient with device type '{value._device.type}' "
                    f"to a tensor with device type '{self._device.type}'. Please ensure that "
                    "the gradient and the tensor are on the same device")
            if tuple(value.shape) != tuple(self.shape):
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a "
                    f"tensor of size '{list(self.shape)}'. Please ensure that the gradient and "
                    "the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None   # ``del t.grad``, as PyTorch: the same as ``t.grad = None``

    @property
    def retains_grad(self):
        return self._retains_grad

    def is_inference(self):
        """Whether this tensor was made in ``inference_mode`` (``torch.Tensor.is_inference``).

        An inference tensor has no version counter (reading ``_version`` raises), cannot be
        saved for backward, and may be modified in place only inside inference mode; its
        views are inference tensors too (and not views). ``t.clone()`` outside inference
        mode gives a normal tensor."""
        return self._version_counter.inference

    def _is_view(self):
        return self._base is not None

    def _edge(self):
        """The gradient edge of this tensor: (node, input_nr) or None."""
        vi = self._view_info
        if vi is not None and vi.version != self._version_counter.version:
            _regenerate_grad_fn(self)
        fn = self._grad_fn
        if fn is not None:
            return (fn, self._output_nr)
        if self._requires_grad:
            return (_grad_accumulator(self), 0)
        return None

    # -- backward and hooks ------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (see autograd/engine.py)."""
        _engine.backward((self,), gradient, retain_graph, create_graph, inputs)

    def register_hook(self, hook):
        """``hook(grad) -> grad | None`` runs when this tensor's gradient is computed.

        On a non-leaf it belongs to the current *version* of the tensor: it is attached to
        the current grad_fn, so after an in-place op it still sees the old version's grad."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        fn = self.grad_fn
        if fn is not None:
            return fn._register_tensor_hook(self._output_nr, hook)
        from .autograd.graph import RemovableHandle
        if self._hooks is None:
            self._hooks = {}
        h = RemovableHandle(self._hooks)
        self._hooks[h._key] = hook
        return h

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after ``.grad`` of this leaf has been accumulated."""
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if not self._requires_grad:   # (PyTorch's words: it would never run)
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        from .autograd.graph import RemovableHandle
        if self._post_acc_hooks is None:
            self._post_acc_hooks = {}
        h = RemovableHandle(self._post_acc_hooks)
        self._post_acc_hooks[h._key] = hook
        return h

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf after backward (follows the newest version)."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        fn = self.grad_fn
        if fn is None or self._retains_grad:
            return
        fn._retain_grad_slot(self._output_nr, weakref.ref(self))
        self._retains_grad = True

    def __hash__(self):
        return id(self)

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous (shape "
                f"{list(self._data.shape)}); use .any() or .all()")
        return bool(self._data.reshape(()).item())

    def __index__(self):
        if self._data.size != 1 or self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to "
                            "an index")
        return int(self._data.reshape(()).item())

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def _scalar(self):
        if self._data.size != 1:  # a ValueError here, as in PyTorch (item() raises RuntimeError)
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._device.to_host(self._data).tolist()

    def numpy(self, force=False):
        if self._device is not B.cpu:
            raise TypeError(
                f"can't convert {self._device.type} device type tensor to numpy. Use "
                "Tensor.cpu() to copy the tensor to host memory first.")
        if not force and self.requires_grad and _st.grad_enabled:  # allowed under no_grad
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        a = self._device.to_host(self._data)
        return a if dtype is None else a.astype(dtype)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __repr__(self):
        from .printing import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec):
        # PyTorch's: a 0-d tensor formats as its number (f"{loss}" prints 0.5), any other
        # tensor as its repr
        if self._data.ndim == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        return repr(self) if not spec else object.__format__(self, spec)

    def __deepcopy__(self, memo):
        """``copy.deepcopy(t)`` (what ``copy.deepcopy(model)`` does to each parameter): a
        new leaf with a copy of the data, ``requires_grad`` and ``.grad`` (not for a
        Parameter, as PyTorch), of the same class (a Parameter stays one). As PyTorch, only leaves can be deep-copied. Not pickling:
        nothing leaves the process."""
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        new = Tensor._make(self._data.copy(), self._device)
        if type(self) is not Tensor:
            new = type(self)(new, requires_grad=self.requires_grad)
        elif self.requires_grad:
            new.requires_grad_(True)
        memo[id(self)] = new
        if self.grad is not None and type(self) is Tensor:   # a Parameter's grad is not copied
            new.grad = self.grad.__deepcopy__(memo)
        return new

    # -- pickling is refused on purpose (DESIGN: JSON or .npz only) ----------------------
    def __reduce_ex__(self, proto):
        raise TypeError("viewgrad tensors are not pickled; save arrays with "
                        "viewgrad.save(path, {...}) (an .npz file) instead")


_new = object.__new__


# Note [the classes the lean paths take]
# The lean paths (speed tricks, each fenced off in its module) ask ``type(x) is Tensor``
# rather than isinstance, so that a class they were not written for takes the teaching
# path. A Parameter is a Tensor for every op (nn/parameter.py changes only how one is made
# and printed), so it adds itself here, and a Module's layers and an optimizer's updates
# take the same lean paths as plain tensors: ``type(x) is Tensor or type(x) in
# LEAN_CLASSES`` (the first test keeps a plain tensor's cost as it was).
LEAN_CLASSES = {Tensor}


class Size(tuple):
    """``Tensor.shape``: a tuple that prints like ``viewgrad.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"viewgrad.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def _unique_dims(wrapped):
    """``wrapped`` (normalised dims), after PyTorch's check that none is given twice."""
    seen = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return wrapped


# autograd's modules import Tensor, so the ones Tensor calls are bound here, once the class
# exists (viewgrad/__init__ imports autograd first; this module is imported from there)
from .autograd import blame as _blame  # noqa: E402
from .autograd.accumulate import grad_accumulator as _grad_accumulator  # noqa: E402
from .autograd.views import regenerate_grad_fn as _regenerate_grad_fn  # noqa: E402
from .autograd import engine as _engine  # noqa: E402
