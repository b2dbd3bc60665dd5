# Knowledge distillation: KLDivLoss(batchmean) between temperature-softened distributions,
# mixed with cross-entropy on the labels.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(SEED)
student = torch.tensor(rng.standard_normal((5, 4)), dtype=torch.float32, requires_grad=True)
teacher = torch.tensor(rng.standard_normal((5, 4)), dtype=torch.float32)
labels = torch.tensor(rng.integers(0, 4, 5))
T = 2.0
soft = nn.KLDivLoss(reduction="batchmean")(F.log_softmax(student / T, dim=1),
                                            F.softmax(teacher / T, dim=1)) * T * T
hard = F.cross_entropy(student, labels, label_smoothing=0.1)
loss = 0.7 * soft + 0.3 * hard
loss.backward()
log_t = F.kl_div(F.log_softmax(student, 1), F.log_softmax(teacher, 1), reduction="sum",
                 log_target=True)
RESULTS = {"soft": soft.item(), "hard": hard.item(), "grad": student.grad, "log_t": log_t}
