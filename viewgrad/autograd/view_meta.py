"""How a view was made (``CreationMeta``), and what each way forbids: PyTorch's
``handle_view_on_rebase`` refusals of an in-place op on a view (autograd/views.py §6 asks
for them; this module words them).

A view made by a multi-output op (``unbind``, ``split``), in no_grad or inference mode, or
inside a custom Function may not be modified in place while grad mode is on (nor may it be
used after its base was: its grad_fn cannot be regenerated). ``view_error`` builds the
error PyTorch raises, with blame's lines on where the view was made.
"""
from __future__ import annotations

import enum

from . import blame as _blame

__all__ = ["CreationMeta", "view_error"]


class CreationMeta(enum.Enum):
    DEFAULT = 0
    IN_CUSTOM_FUNCTION = 1
    MULTI_OUTPUT_NODE = 2
    NO_GRAD_MODE = 3
    INFERENCE_MODE = 4


_VIEW_ERRORS = {
    CreationMeta.MULTI_OUTPUT_NODE: (
        " This view is the output of a function that returns multiple views. Such functions "
        "do not allow the output views to be modified inplace. You should replace the inplace "
        "operation by an out-of-place one."),
    CreationMeta.NO_GRAD_MODE: (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
        "clarify your code by moving both the view and the inplace either both inside the "
        "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
        "want the inplace to be tracked)."),
    CreationMeta.IN_CUSTOM_FUNCTION: (
        " This view was created inside a custom Function (or because an input was returned "
        "as-is) and the autograd logic to handle view+inplace would override the custom "
        "backward associated with the custom Function, leading to incorrect gradients. This "
        "behavior is forbidden. You can fix this by cloning the output of the custom "
        "Function."),
    CreationMeta.INFERENCE_MODE: (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
        "clarify your code by moving both the view and the inplace either both inside the "
        "inference_mode block (if you don't want the inplace to be tracked) or both outside "
        "(if you want the inplace to be tracked)."),
}


def _forward_name(node):
    """PyTorch's ``forward_op_name``: ``UnbindBackward0`` -> ``Unbind``."""
    name = node.name()
    i = name.rfind("Backward")
    return name[:i] if i > 0 and name[i + 8:].isdigit() or name.endswith("Backward") else name


def view_error(t, vi, indirect=False):
    """PyTorch's handle_view_on_rebase message. ``indirect``: the base or another view was
    modified, and this view's grad_fn cannot be regenerated."""
    what = ("its base or another view of its base has been" if indirect else "is being")
    meta = vi.creation_meta
    fn = t._grad_fn
    nr = t._output_nr
    if meta in (CreationMeta.INFERENCE_MODE, CreationMeta.NO_GRAD_MODE) or fn is None:
        # no grad_fn: the view was made in no_grad mode, whatever its creation_meta says
        prefix = (f"Output {nr} of {_forward_name(fn)} is a view of a view which was created "
                  "in" if fn is not None else "A view was created in")
        if meta is CreationMeta.INFERENCE_MODE:
            head = f"{prefix} inference mode and {what} modified inplace in normal mode."
        else:
            head = f"{prefix} no_grad mode and {what} modified inplace with grad mode enabled."
    else:
        head = f"Output {nr} of {_forward_name(fn)} is a view and {what} modified inplace."
    msg = head + _VIEW_ERRORS[meta]
    extra = _blame.describe_view(t, vi)
    if extra:
        msg += "\n" + extra
    return RuntimeError(msg)
