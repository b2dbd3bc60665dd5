"""A plain PyTorch program with the classic in-place bug (tutorial 12).

    viewgrad run --torch tutorials/scripts/inplace_bug.py --svg-dir pictures/

runs it unchanged on viewgrad (``import torch`` gives viewgrad for the run), draws the
in-place op that broke it, and names both lines in the error. With real PyTorch
(``python tutorials/scripts/inplace_bug.py``) it fails with the same RuntimeError.
"""
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
y = h.exp()       # ExpBackward0 saves its result: y itself
y.add_(1)         # ... and this changes y in place: version 0 -> 1
loss = y.sum()
loss.backward()   # RuntimeError: ... modified by an inplace operation
print(x.grad)
