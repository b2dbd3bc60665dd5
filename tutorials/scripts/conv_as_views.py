"""A convolution is a matrix product over the input's blocks: see it, then see the one
fused node.

    PYTHONPATH=. python tutorials/scripts/conv_as_views.py

1. ``F.unfold`` (im2col) cuts the input into its overlapping sliding blocks, one column
   each — one ``Im2ColBackward0`` node, as in PyTorch, whose gradient (``fold``) adds the
   overlapping windows' gradients back — and a convolution is
   ``weight.view(C_out, -1) @ unfold(x)``: a view of the weight and a matrix product.
2. ``F.conv2d`` computes the same thing as ONE node, ``ConvolutionBackward0``, which saves
   the input and the weight — so modifying either in place before ``backward`` is an error,
   the same error as for any saved tensor.
3. Its backward is written in convolutions: with ``create_graph=True`` the gradient has a
   ConvolutionBackward0 of its own (double backward).
"""
from __future__ import annotations

import viewgrad as vg
from viewgrad.nn import functional as F


def node_names(t):
    """Names of the nodes reachable from t.grad_fn, breadth first, each once."""
    out, seen, todo = [], set(), [t.grad_fn]
    while todo:
        n = todo.pop(0)
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n.name())
        todo.extend(e[0] for e in n.next_functions if e[0] is not None)
    return out


def main(print=print):
    vg.manual_seed(0)
    x = vg.randn(1, 2, 5, 5, requires_grad=True)
    w = vg.randn(3, 2, 3, 3, requires_grad=True)

    cols = F.unfold(x, 3, padding=1)                      # (1, 2*3*3, 25): views of x
    by_views = (w.view(3, -1) @ cols).view(1, 3, 5, 5)
    fused = F.conv2d(x, w, padding=1)
    print("same values:", bool((by_views - fused).abs().max() < 1e-5))
    print("im2col graph nodes:", ", ".join(node_names(by_views)))
    print("conv2d graph nodes:", ", ".join(node_names(fused)))

    saved = fused.grad_fn
    print("ConvolutionBackward0 saves input and weight:",
          saved._saved_input is x, saved._saved_weight is w)

    h = x * 1                                            # a non-leaf we may modify
    y = F.conv2d(h, w, padding=1)
    with vg.no_grad():
        h.mul_(2)                                        # bumps h's version
    try:
        y.sum().backward()
    except RuntimeError as e:
        print("after an in-place change of the input:", str(e).split(".")[0] + ".")

    gx, = vg.autograd.grad(fused.pow(2).sum(), x, create_graph=True)
    print("double backward: the gradient's own grad_fn is", gx.grad_fn.name())
    return by_views, fused


if __name__ == "__main__":
    main()
