# Bidirectional GRU over variable-length batches with pack_padded_sequence / pad_packed_sequence.
import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

rng = np.random.default_rng(SEED)
lengths = [5, 2, 4]
seqs = [torch.tensor(rng.standard_normal((n, 3)), dtype=torch.float32) for n in lengths]
padded = pad_sequence(seqs, batch_first=True)              # (B, Tmax, 3)

gru = nn.GRU(input_size=3, hidden_size=4, num_layers=2, batch_first=True, bidirectional=True)
with torch.no_grad():
    for name, p in gru.named_parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
padded.requires_grad_(True)
packed = pack_padded_sequence(padded, torch.tensor(lengths), batch_first=True,
                              enforce_sorted=False)
out_packed, h_n = gru(packed)
out, out_lens = pad_packed_sequence(out_packed, batch_first=True, padding_value=-1.0)
# final state: concat last layer forward & backward
final = torch.cat([h_n[-2], h_n[-1]], dim=1)
loss = final.pow(2).sum() + out[out != -1.0].sum()
loss.backward()

# sorted packing, LSTM, batch_first=False
lstm = nn.LSTM(3, 2, bidirectional=True)
with torch.no_grad():
    for p in lstm.parameters():
        p.copy_(torch.tensor(rng.normal(0, 0.5, tuple(p.shape)), dtype=torch.float32))
srt = sorted(seqs, key=len, reverse=True)
pk = nn.utils.rnn.pack_sequence(srt)
o2, (h2, c2) = lstm(pk)
o2_pad, l2 = pad_packed_sequence(o2)

RESULTS = {"out": out, "out_lens": out_lens, "h_n": h_n, "final": final,
           "grad": padded.grad, "batch_sizes": out_packed.batch_sizes,
           "sorted_indices": out_packed.sorted_indices, "o2": o2_pad, "h2": h2, "c2": c2,
           "l2": l2, "names": [n for n, _ in gru.named_parameters()]}
