import viewgrad as vg
x = vg.tensor([1.0, 2.0, 3.0], requires_grad=True).clone()
w = vg.tensor([1.0, 1.0, 1.0], requires_grad=True)
y = x * w
z = y.sum()
x.add_(1)
z.backward()
