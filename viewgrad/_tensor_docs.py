"""Docstrings of the Tensor methods and properties, attached at import (``_docs.py``).

Kept apart from the ops, as PyTorch keeps ``torch/_tensor_docs.py`` apart from its kernels:
an op's module holds its math, this one what a learner reads with ``x.add?`` or
``help(x.add)`` in the REPL. Each entry says what the method does, whether the result is a
view (shares memory and the version counter) or a copy, what autograd records, and the
PyTorch equivalent where viewgrad differs. A docstring written in the op's own source wins
over the entry here. Methods that are also ``vg.*`` functions (``x.exp()`` is
``vg.exp(x)``) share one docstring.
"""

TENSOR = {
    # -- what a tensor is --------------------------------------------------------------
    "shape": "The size of each dimension, a ``vg.Size`` (a tuple): ``x.shape == (2, 3)``. "
             "Same as ``x.size()`` and ``torch.Tensor.shape``.",
    "ndim": "The number of dimensions (``len(x.shape)``), as ``torch.Tensor.ndim``.",
    "dtype": "The element type (``vg.float32``, ``vg.int64``…). ``x.to(vg.float64)`` converts.",
    "device": "Where the data lives: ``cpu`` (NumPy), ``cuda`` (CuPy) or ``strict`` (the test "
              "device). As ``torch.Tensor.device``.",
    "is_cuda": "True when the tensor lives on a GPU (``device.type == 'cuda'``).",
    "data": "The same memory without autograd: a tensor that does not require grad and whose "
            "in-place changes autograd does not see (no version bump is checked through it). "
            "Prefer ``detach()`` (its changes are version-checked) or ``vg.no_grad()``; "
            "assigning ``x.data = y`` swaps the memory, as in PyTorch.",
    "grad": "The gradient accumulated into this leaf by ``backward()`` (None until then). "
            "Non-leaves have no ``.grad`` unless you call ``retain_grad()`` first; "
            "``backward()`` adds into it, so zero it between steps (``opt.zero_grad()``).",
    "grad_fn": "The graph node that made this tensor (``MulBackward0``, ``CopySlices``…), or "
               "None for a leaf. Its ``next_functions`` are the edges backward follows. For a "
               "view whose base was changed in place, reading it regenerates a fresh node "
               "(``AsStridedBackward0``), as PyTorch does.",
    "requires_grad": "Whether autograd records operations on this tensor: set on leaves "
                     "(``requires_grad=True`` or ``requires_grad_()``), inherited by "
                     "results. As ``torch.Tensor.requires_grad``.",
    "is_leaf": "True for tensors autograd did not make: created by you, or not requiring "
               "grad. Only leaves get ``.grad`` filled by ``backward()``.",
    "output_nr": "Which output of its ``grad_fn`` this tensor is (0 for single-output ops; "
                 "``unbind``/``split`` give 0, 1, …).",
    "retains_grad": "True after ``retain_grad()`` on a non-leaf: its ``.grad`` will be kept.",
    "T": "All dimensions reversed: ``x.permute(*reversed(range(x.dim())))``, a view. For a "
         "matrix, the transpose (PyTorch deprecates ``.T`` on other ranks; use ``.mT`` or "
         "``permute``).",
    "mT": "The last two dimensions swapped (``x.transpose(-2, -1)``): a view, a batch of "
          "transposed matrices.",
    "dim": "The number of dimensions (same as ``x.ndim``).",
    "size": "``x.size()`` is ``x.shape``; ``x.size(d)`` the size of dimension ``d`` "
            "(negative counts from the end).",
    "stride": "How many elements to step in memory to move one place along each dimension: "
              "``x.stride()`` a tuple, ``x.stride(d)`` one. Views change strides, not "
              "memory (tutorial 4). Counted in elements, as in PyTorch.",
    "storage_offset": "Where this tensor's first element sits in its storage (in elements). "
                      "``b[2]`` of a fresh ``b`` has offset 2.",
    "untyped_storage_size": "The number of elements in the storage this tensor looks at "
                            "(shared by a base and its views). PyTorch's "
                            "``x.untyped_storage().size()`` counts bytes: multiply by "
                            "``x.element_size()``.",
    "element_size": "Bytes per element (4 for float32), as ``torch.Tensor.element_size``.",
    "data_ptr": "The address of the first element: two tensors sharing memory at the same "
                "place have the same ``data_ptr()``.",
    "is_contiguous": "True when the elements lie in memory in row-major order without gaps "
                     "(``x.t()`` of a matrix is not). ``contiguous()`` makes a copy that is.",
    "is_floating_point": "True for float dtypes (only those can require grad).",
    "is_inference": "Always False: viewgrad's ``inference_mode`` does not make inference "
                    "tensors (PyTorch's does).",
    "numel": "The number of elements (product of the shape). ``nelement()`` is the same.",
    "item": "The value of a one-element tensor as a Python number (``loss.item()``).",
    "tolist": "The values as nested Python lists (a number for a 0-d tensor).",
    "numpy": "The values as a NumPy array sharing memory with a cpu tensor. As in PyTorch, "
             "refused for a tensor that requires grad (use ``x.detach().numpy()``) or lives on "
             "a GPU (``x.cpu().numpy()``); ``force=True`` does both.",
    # -- autograd ------------------------------------------------------------------------
    "requires_grad_": "Sets ``requires_grad`` in place on a leaf and returns the tensor. "
                      "Only leaves: a non-leaf already requires grad through its grad_fn.",
    "detach_": "Detaches this tensor from the graph in place (it becomes a leaf). Refused on "
               "views, as in PyTorch; ``detach()`` returns a new detached tensor instead.",
    # -- conversions and copies -------------------------------------------------------------
    "clone": "A copy with its own memory (``CloneBackward0``: the gradient passes through "
             "unchanged). ``b = a.clone()`` is the usual way to get a non-leaf you may "
             "change in place. The copy keeps the layout (``memory_format=vg.preserve_format``).",
    "contiguous": "This tensor if it is already contiguous, else a row-major copy "
                  "(``CloneBackward0``), as ``torch.Tensor.contiguous``.",
    **{name: f"A copy converted to {dtype} (``x.{name}()`` is ``x.to(vg.{dtype})``); "
              "differentiable between float dtypes. Returns ``x`` itself when it already "
              "has that dtype, as PyTorch does."
       for name, dtype in (("bool", "bool"), ("float", "float32"), ("double", "float64"),
                           ("half", "float16"), ("int", "int32"), ("long", "int64"))},
    "to": "Converts dtype and/or device: ``x.to(vg.float64)``, ``x.to('cuda')``, "
          "``x.to(other)``. Returns ``x`` itself when nothing changes (``copy=True`` forces "
          "a copy); differentiable (``ToCopyBackward0``).",
    "cpu": "A copy on the cpu (``x`` itself if it is already there); differentiable.",
    "cuda": "A copy on the GPU (CuPy); differentiable. Needs ``vg.cuda.is_available()``.",
    "type_as": "``x.to(other.dtype)``.",
    "new_tensor": "A new leaf tensor from ``data`` with this tensor's dtype and device "
                  "(unless given), as ``torch.Tensor.new_tensor``.",
    "new_zeros": "A tensor of zeros of the given size, with this tensor's dtype and device.",
    "new_ones": "A tensor of ones of the given size, with this tensor's dtype and device.",
    # -- arithmetic -------------------------------------------------------------------------
    "add": "``x + alpha * other`` (``AddBackward0``); ``other`` may be a number. "
           "``x.add(y)``, ``vg.add(x, y)`` and ``x + y`` are the same op.",
    "sub": "``x - alpha * other`` (``SubBackward0``). Also ``x - y`` and ``vg.sub(x, y)``.",
    "mul": "Elementwise product (``MulBackward0``, which saves both inputs: changing one in "
           "place before backward is the classic version error). Also ``x * y``, "
           "``multiply``.",
    "div": "Elementwise true division ``x / y`` (``DivBackward0``). ``divide`` and "
           "``true_divide`` are aliases; integer inputs give a float result.",
    "neg": "``-x`` (``NegBackward0``). ``negative`` is an alias.",
    "reciprocal": "``1 / x`` elementwise (``ReciprocalBackward0``, which saves its result).",
    "pow": "``x ** exponent`` with a number or a tensor exponent (``PowBackward0``/``1``).",
    "square": "``x * x`` (PyTorch records it as ``PowBackward0``, so does viewgrad).",
    "abs": "Absolute value (``AbsBackward0``; its gradient at 0 is 0, as in PyTorch).",
    "sign": "-1, 0 or 1 elementwise; its gradient is zero everywhere.",
    "sqrt": "Square root (``SqrtBackward0``, which saves its result).",
    "exp": "``e ** x`` (``ExpBackward0`` saves its *result*: changing the input in place "
           "afterwards is fine, changing the output is not).",
    "log": "Natural logarithm (``LogBackward0`` saves its input).",
    "tanh": "Hyperbolic tangent (``TanhBackward0`` saves its result).",
    "sigmoid": "``1 / (1 + exp(-x))`` (``SigmoidBackward0`` saves its result).",
    "relu": "``max(x, 0)`` elementwise (``ReluBackward0`` saves its result). Also "
            "``vg.nn.functional.relu``.",
    "clamp": "Limits values to ``[min, max]`` (either may be None). ``clip`` is an alias; "
             "the gradient is zero where a bound applied.",
    "where": "``vg.where(condition, x, y)``: ``x`` where ``condition`` is true, else ``y``; "
             "``x.where(condition, y)`` is the method form.",
    # -- in place (each bumps the shared version counter and rebases history) ------------
    "add_": "In place ``x += alpha * other``: bumps the version counter of ``x`` (and of "
            "every view of its memory) and makes ``AddBackward0`` the new ``grad_fn``. On a "
            "view the base gets ``CopySlices``. Refused on a leaf that requires grad.",
    "sub_": "In place ``x -= alpha * other`` (see ``add_`` for what in place does to the "
            "graph).",
    "mul_": "In place ``x *= other``: the version counter bumps, ``MulBackward0`` becomes "
            "``x``'s grad_fn with the old history as its edge 0; on a view, the base's "
            "grad_fn becomes ``CopySlices`` (tutorials 3 and 5).",
    "div_": "In place ``x /= other`` (see ``mul_``).",
    "neg_": "In place ``x = -x`` (see ``mul_``).",
    "reciprocal_": "In place ``x = 1 / x`` (see ``mul_``).",
    "pow_": "In place ``x = x ** exponent`` (see ``mul_``).",
    "abs_": "In place absolute value (see ``mul_``).",
    "sqrt_": "In place square root (see ``mul_``).",
    "exp_": "In place ``e ** x`` (see ``mul_``). ``ExpBackward0`` then saves the new "
            "value of ``x``.",
    "log_": "In place natural logarithm (see ``mul_``).",
    "tanh_": "In place tanh (see ``mul_``).",
    "sigmoid_": "In place sigmoid (see ``mul_``).",
    "relu_": "In place ``max(x, 0)`` (see ``mul_``); ``nn.ReLU(inplace=True)`` uses it.",
    "clamp_": "In place clamp to ``[min, max]``; ``clip_`` is an alias (see ``mul_``).",
    "zero_": "Fills with zeros in place: the version bumps and the old history is cut "
             "(``ZeroBackward0``: no gradient flows to what was there). "
             "``opt.zero_grad()`` uses it on ``.grad`` tensors.",
    "fill_": "Fills with ``value`` in place (the old history is cut, as with ``zero_``).",
    "copy_": "Copies ``src`` into this tensor's memory in place (broadcasting, casting): the "
             "version bumps and the gradient flows to ``src`` (``CopyBackwards``), not to "
             "what was there before. As in PyTorch, ``src`` is cast to this tensor's dtype "
             "(floats into ints truncate toward zero, non-zero into bool is True), the "
             "gradient reaching ``src`` is cast back to ``src``'s dtype, and an integer "
             "destination records nothing. ``src`` must be a Tensor or a number.",
    "masked_fill_": "Writes ``value`` where ``mask`` is true, in place (see ``mul_``).",
    "masked_fill": "A copy with ``value`` where ``mask`` is true (out of place).",
    "index_put_": "``x[indices] = values`` in place (``accumulate=True`` adds instead): what "
                  "``x[i] = v`` runs. See ``mul_`` for the graph.",
    "put": "A copy with ``source`` written at the flat indices ``index`` (``accumulate=True`` "
           "adds), as ``torch.Tensor.put``.",
    # -- comparisons and logic ----------------------------------------------------------------
    "eq": "Elementwise ``x == other`` as a bool tensor (no gradient).",
    "ne": "Elementwise ``x != other`` as a bool tensor.",
    "lt": "Elementwise ``x < other`` as a bool tensor.",
    "le": "Elementwise ``x <= other`` as a bool tensor.",
    "gt": "Elementwise ``x > other`` as a bool tensor.",
    "ge": "Elementwise ``x >= other`` as a bool tensor.",
    "isnan": "Elementwise: is it NaN? (bool tensor).",
    "logical_and": "Elementwise ``and`` of truth values (bool tensor).",
    "logical_or": "Elementwise ``or`` of truth values (bool tensor).",
    "logical_xor": "Elementwise ``xor`` of truth values (bool tensor).",
    "logical_not": "Elementwise ``not`` (bool tensor).",
    # -- reductions --------------------------------------------------------------------------
    "sum": "Sum of all elements, or along ``dim`` (an int or tuple; ``keepdim`` keeps it as "
           "size 1). ``SumBackward0`` expands the gradient back to the input's shape.",
    "mean": "Mean of all elements, or along ``dim`` (``MeanBackward0``).",
    "max": "``x.max()`` the largest element; ``x.max(dim)`` a ``(values, indices)`` pair, as "
           "in PyTorch. The gradient goes to the position of the maximum.",
    "min": "``x.min()`` the smallest element; ``x.min(dim)`` a ``(values, indices)`` pair.",
    "amax": "Largest values along ``dim`` (all dims by default); ties share the gradient "
            "evenly, unlike ``max``.",
    "amin": "Smallest values along ``dim``; ties share the gradient evenly.",
    "argmax": "Index of the largest element (flattened), or along ``dim``; int64, no grad.",
    "argmin": "Index of the smallest element (flattened), or along ``dim``; int64, no grad.",
    "gather": "Picks values along ``dim`` at ``index`` (same shape as ``index``): "
              "``out[i][j] = x[i][index[i][j]]`` for ``dim=1``. Backward scatters-adds.",
    "scatter": "A copy with ``src`` written along ``dim`` at ``index`` "
               "(``torch.Tensor.scatter``; ``src`` may be a number, node ``ScatterBackward1``; "
               "in place: ``scatter_``). ``reduce='add'|'multiply'`` (deprecated in "
               "PyTorch) combines instead of writing and has no derivative: the node is "
               "``NotImplemented``, whose backward raises, as in PyTorch.",
    "scatter_add": "A copy with ``src`` added along ``dim`` at ``index``.",
    "softmax": "``exp(x) / exp(x).sum(dim)`` along ``dim``, computed stably "
               "(``SoftmaxBackward0``, which saves its result).",
    "log_softmax": "``log(softmax(x, dim))`` computed stably (``LogSoftmaxBackward0``).",
    # -- linear algebra ------------------------------------------------------------------------
    "mm": "Matrix product of two 2-d tensors (``MmBackward0``, which saves both).",
    "bmm": "Batched matrix product: ``(b, n, m) @ (b, m, p)``.",
    "mv": "Matrix times vector.",
    "dot": "Dot product of two 1-d tensors (a 0-d tensor).",
    # -- views: share memory and the version counter with their base (tutorial 4) ---------------
    "view": "A view with another shape over the same memory (``ViewBackward0``): no copy; "
            "changing one changes the other and both share the version counter. Needs a "
            "compatible layout (else use ``reshape``); ``-1`` infers one size.",
    "view_as": "``x.view(other.shape)``.",
    "reshape": "A view when the layout allows it (like ``view``), else a copy. Write "
               "``view`` when you need the sharing.",
    "reshape_as": "``x.reshape(other.shape)``.",
    "select": "``x.select(dim, i)`` is ``x[..., i, ...]``: a view dropping dimension ``dim`` "
              "(``SelectBackward0``); ``b[2]`` is ``b.select(0, 2)``.",
    "slice": "``x.slice(dim, start, end, step)`` is ``x[start:end:step]`` along ``dim``: a "
             "view (``SliceBackward0``). PyTorch has no such method (its ``aten::slice`` "
             "is what indexing with ``:`` calls).",
    "narrow": "``x.narrow(dim, start, length)``: a view of ``length`` elements along ``dim``.",
    "unsqueeze": "A view with a new dimension of size 1 at ``dim``.",
    "squeeze": "A view without dimensions of size 1 (only ``dim`` if given).",
    "transpose": "A view with dimensions ``dim0`` and ``dim1`` swapped (strides swapped, no "
                 "copy; the result is not contiguous). ``swapaxes``/``swapdims`` are "
                 "aliases.",
    "t": "Transpose of a matrix (``x.transpose(0, 1)``; 0-d and 1-d tensors are returned as "
         "views unchanged).",
    "permute": "A view with the dimensions reordered: ``x.permute(2, 0, 1)``.",
    "movedim": "A view with dimension(s) ``source`` moved to ``destination``; ``moveaxis`` "
               "is an alias.",
    "expand": "A view that repeats size-1 dimensions to ``sizes`` without copying: the "
              "repeated elements share one memory cell (stride 0), which is why writing "
              "into an expanded view in place is refused. ``-1`` keeps a size.",
    "expand_as": "``x.expand(other.shape)``.",
    "broadcast_to": "``x.expand(shape)`` following the broadcasting rules.",
    "diagonal": "A view of the diagonal (``offset`` above it if positive) of the plane "
                "``dim1``/``dim2``: stride is the sum of the two strides.",
    "as_strided": "A view with the given sizes, strides (in elements) and storage offset "
                  "over this tensor's storage — every view is one of these underneath. "
                  "Overlapping views (stride 0) cannot be written in place.",
    "unfold": "``x.unfold(dim, size, step)``: a view of all windows of ``size`` along "
              "``dim`` taken every ``step`` elements, in a new last dimension (how "
              "convolution becomes a matrix product, tutorial 9).",
    "flatten": "Dimensions ``start_dim`` to ``end_dim`` merged into one: a view when "
               "possible, else a copy (like ``reshape``).",
    "unflatten": "Dimension ``dim`` split into ``sizes`` (a view).",
    "split": "Pieces of ``split_size_or_sections`` along ``dim``, as views (a multi-output "
             "view: changing one piece in place is refused, as in PyTorch).",
    "chunk": "``chunks`` nearly equal pieces along ``dim``, as views (see ``split``).",
    "unbind": "The slices along ``dim`` as a tuple of views (multi-output: in-place changes "
              "to them are refused).",
    "take": "The elements at flat indices ``index`` (a copy, as ``torch.take``).",
}
