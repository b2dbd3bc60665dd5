import viewgrad as vg
a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
e = a.exp()
head = e[:2]
head.mul_(2)
e.sum().backward()
