import torch
from torch.utils import data
from torch import nn
torch.manual_seed(42)
true_w = torch.tensor([2, -3.4]); true_b = 4.2
X = torch.normal(0, 1, (1000, 2)); y = torch.matmul(X, true_w) + true_b
y += torch.normal(0, 0.01, y.shape); labels = y.reshape((-1, 1))
def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)
data_iter = load_array((X, labels), 10)
print(next(iter(data_iter)))
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
for epoch in range(2):
    for Xb, yb in data_iter:
        l = loss(net(Xb), yb)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(X), labels)
    print(f'epoch {epoch + 1}, loss {l:f}')
print(net[0].weight.data, net[0].bias.data)
