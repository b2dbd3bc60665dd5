# is_leaf, grad_fn names and next_functions, as a learner inspects them.
import torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a * 4
c = b.sum()
d = b[0]
e = b.view(2, 1).t()
RESULTS = {"leaf": [a.is_leaf, b.is_leaf, c.is_leaf],
           "names": [b.grad_fn.name(), c.grad_fn.name(), d.grad_fn.name(), e.grad_fn.name()],
           "next": [type(f).__name__ if f is not None else None
                    for f, _ in c.grad_fn.next_functions][:1] and
                   c.grad_fn.next_functions[0][0].name(),
           "acc": type(b.grad_fn.next_functions[0][0]).__name__,
           "base": e._base is b, "view": e._is_view()}
