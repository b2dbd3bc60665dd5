import viewgrad as vg
b = vg.tensor([1.0, 2.0, 3.0], requires_grad=True).clone()
with vg.no_grad():
    v = b[1:]
b.mul_(2)
print(v.grad_fn)
