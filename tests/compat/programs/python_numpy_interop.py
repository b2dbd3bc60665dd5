# Old-tutorial and Python-builtin habits: legacy constructors (torch.Tensor(2, 3), FloatTensor),
# .type(), numpy interop (shared memory, numpy scalars), builtins on tensors (sum, max, sorted,
# len, in, unpacking, int(), indexing lists with 0-d tensors, math functions).
import math
import numpy as np
import torch

rng = np.random.default_rng(SEED)
R = {}
R["Tensor_list"] = torch.Tensor([1, 2, 3])
R["Tensor_shape"] = list(torch.Tensor(2, 3).shape)
R["Tensor_dtype"] = torch.Tensor([1]).dtype == torch.float32
R["FloatTensor"] = torch.FloatTensor([[1, 2]])
R["LongTensor"] = torch.LongTensor([1.7, -2.2])
R["zero_"] = torch.LongTensor(3).zero_()
R["type_str"] = torch.ones(2).type()
R["type_conv"] = torch.ones(2).type(torch.DoubleTensor).dtype == torch.float64
R["type_str_conv"] = torch.ones(2).type("torch.LongTensor").dtype == torch.int64
R["isinstance"] = [isinstance(torch.ones(1), torch.Tensor), isinstance(torch.ones(1), torch.FloatTensor),
                   isinstance(torch.ones(1, dtype=torch.long), torch.FloatTensor)]
a = np.arange(4, dtype=np.float32)
t = torch.from_numpy(a)
a[0] = 10
R["from_numpy_shared"] = t
t2 = torch.tensor(a)
a[1] = 20
R["tensor_copies"] = t2
n = t.numpy()
n[2] = -1
R["numpy_shared"] = t
R["as_tensor_shared"] = torch.as_tensor(a)
x = torch.tensor(rng.standard_normal(5), dtype=torch.float32)
R["np_scalar_mul"] = (x * np.float32(2.0)).dtype == torch.float32
R["np_float64_mul"] = (x * np.float64(2.0)).dtype == torch.float32
R["np_array_of_tensor"] = np.array(torch.tensor([1.0, 2.0])).tolist()
R["np_asarray_2d"] = np.asarray(torch.ones(2, 2)).shape
R["py_sum"] = sum(torch.tensor([1.0, 2.0, 3.5]))
R["py_sum_list"] = sum([torch.tensor(1.0), torch.tensor(2.0)])
R["py_max"] = max(torch.tensor([3, 9, 2]))
R["py_sorted"] = [v.item() for v in sorted(torch.tensor([3, 1, 2]))]
R["len"] = len(torch.zeros(4, 2))
R["in"] = [2 in torch.tensor([1, 2, 3]), 5 in torch.tensor([1, 2, 3])]
r0, r1 = torch.tensor([[1, 2], [3, 4]])
R["unpack"] = [r0, r1]
R["iter_rows"] = [row.sum() for row in torch.arange(6).view(3, 2)]
R["int_float"] = [int(torch.tensor(3.7)), float(torch.tensor([2])), bool(torch.tensor([0]))]
lst = ["a", "b", "c"]
R["list_index"] = lst[torch.tensor(1)]
R["range"] = list(range(torch.tensor(3)))
R["math"] = [math.sqrt(torch.tensor(4.0)), math.exp(torch.tensor(0.5)), math.isclose(torch.tensor(0.1) * 3, 0.3, rel_tol=1e-6)]
R["round"] = [round(torch.tensor(2.567).item(), 1), abs(torch.tensor(-3)), -torch.tensor(2), divmod(7, 2)]
R["fmt"] = ["{:.2f}".format(torch.tensor(1.2345)), f"{torch.tensor(5)}", f"{torch.tensor(2.5):>6}", "%d" % torch.tensor(4)]
R["pow_int"] = [(torch.tensor(2) ** 3).item(), (2 ** torch.tensor([1, 2])).tolist(), (torch.tensor([2]) ** 0.5).dtype == torch.float32]
R["div"] = [(torch.tensor([5]) / 2).tolist(), (torch.tensor([5]) // 2).tolist(), (torch.tensor([-5]) // 2).tolist()]
R["cmp_chain"] = bool((torch.tensor(1) < torch.tensor(2)) & (torch.tensor(2) < 3))
R["dict_key"] = {torch.tensor(1).item(): "one"}
R["tolist_nested"] = torch.tensor([[1.5, 2], [3, 4]]).tolist()
R["item_types"] = [type(torch.tensor(1).item()).__name__, type(torch.tensor(1.0).item()).__name__,
                   type(torch.tensor(True).item()).__name__]
R["np_mean_tensor"] = float(np.mean(torch.tensor([1.0, 2.0]).numpy()))
R["hasattr"] = [hasattr(torch, "Tensor"), hasattr(torch.ones(1), "grad"), callable(torch.ones(1).add)]
RESULTS = R
