"""Sample calls for every row of the derivatives table (used by the gradcheck sweep).

SAMPLES maps an op name (a key of ``viewgrad.ops.table.OPS``, or a hand-written node's op)
to a list of ``(fn, specs)``: ``fn(*tensors)`` calls the op; ``specs`` describe the float64
inputs that require grad: a shape, or ``("pos", shape)`` for strictly positive values, or
``("away", shape)`` for values away from 0 (for abs/relu/clamp kinks). Broadcasting cases
are included wherever an op broadcasts.
"""
import viewgrad as vg
from viewgrad.ops import table, views as V, indexing as X, reduce as R, inplace as I, nnops as NN
from viewgrad.ops import pointwise as P
from viewgrad.ops import losses as L
from viewgrad.ops import einsum as _E

_d = table.dispatch


def _idx(*data):
    return vg.tensor(list(data), dtype=vg.int64)


SAMPLES = {
    "add": [(lambda a, b: a + b, [(3, 4), (4,)])],
    "add_alpha": [(lambda a, b: a.add(b, alpha=2), [(2, 1, 3), (4, 1)])],
    "add_scalar": [(lambda a: a + 2.5, [(3,)]), (lambda a: 1 + a, [(2, 2)])],
    "sub": [(lambda a, b: a - b, [(3, 4), (3, 1)])],
    "sub_alpha": [(lambda a, b: a.sub(b, alpha=-1.5), [(3, 4), (4,)])],
    "rsub": [(lambda a: 1.5 - a, [(3,)])],
    "mul": [(lambda a, b: a * b, [(3, 4), (4,)]), (lambda a: a * 3, [(2, 3)])],
    "div": [(lambda a, b: a / b, [(3, 4), ("pos", (1, 4))]), (lambda a: a / 2, [(3,)])],
    "neg": [(lambda a: -a, [(3,)])],
    "reciprocal": [(lambda a: a.reciprocal(), [("pos", (3,))]), (lambda a: 2 / a, [("pos", (2, 2))])],
    "pow": [(lambda a: a ** 3, [(3,)]), (lambda a: a.pow(0.5), [("pos", (2, 2))])],
    "pow_tensor": [(lambda a, b: a ** b, [("pos", (2, 3)), (3,)])],
    "pow_scalar_base": [(lambda b: 2.0 ** b, [(3,)])],
    "sign": [(lambda a: a.sign() * a, [("away", (3,))])],
    "sgn": [(lambda a: a.sgn() * a, [("away", (3,))])],
    "abs": [(lambda a: a.abs(), [("away", (2, 3))])],
    "sqrt": [(lambda a: a.sqrt(), [("pos", (3,))])],
    "exp": [(lambda a: a.exp(), [(2, 3)])],
    "log": [(lambda a: a.log(), [("pos", (3,))])],
    "tanh": [(lambda a: a.tanh(), [(2, 3)])],
    "sigmoid": [(lambda a: a.sigmoid(), [(2, 3)])],
    "relu": [(lambda a: a.relu(), [("away", (2, 3))])],
    "threshold_backward": [(lambda g, a: _d(P.THRESHOLD_BACKWARD, (g, a), (0.0,)),
                            [(2, 3), ("away", (2, 3))])],
    "clamp": [(lambda a: a.clamp(-0.5, 0.5), [("away", (4,))]), (lambda a: a.clamp(min=0.1), [("away", (3,))])],
    "where": [(lambda a, b: vg.where(a > 0, a, b), [("away", (2, 3)), (3,)])],
    "sum": [(lambda a: a.sum(), [(2, 3)])],
    "sum_dim": [(lambda a: a.sum(1), [(2, 3, 2)]), (lambda a: a.sum((0, 2), keepdim=True), [(2, 3, 2)])],
    "mean": [(lambda a: a.mean(), [(2, 3)])],
    "mean_dim": [(lambda a: a.mean(-1), [(2, 3)]), (lambda a: a.mean(0, keepdim=True), [(3, 2)])],
    # computed in float32 from float64 inputs (the one-node dtype= rows): coarse tolerances
    "sum_cast": [(lambda a: (a * a).sum(dtype=vg.float32), [(2, 3)],
                  {"eps": 1e-3, "atol": 1e-2, "rtol": 1e-2})],
    "sum_dim_cast": [(lambda a: (a * a).sum(1, keepdim=True, dtype=vg.float32), [(2, 3)],
                      {"eps": 1e-3, "atol": 1e-2, "rtol": 1e-2})],
    "mean_cast": [(lambda a: (a * a).mean(dtype=vg.float32), [(2, 3)],
                   {"eps": 1e-3, "atol": 1e-2, "rtol": 1e-2})],
    "mean_dim_cast": [(lambda a: (a * a).mean(0, dtype=vg.float32), [(2, 3)],
                       {"eps": 1e-3, "atol": 1e-2, "rtol": 1e-2})],
    "max_all": [(lambda a: a.max(), [(2, 3)])],
    "min_all": [(lambda a: a.min(), [(2, 3)])],
    "amax": [(lambda a: a.amax(1), [(2, 3)]), (lambda a: a.amax((0, 1), keepdim=True), [(2, 3)])],
    "amin": [(lambda a: a.amin(0), [(2, 3)])],
    "max_dim": [(lambda a: a.max(1).values, [(2, 3)]), (lambda a: a.max(0, keepdim=True)[0], [(3, 2)])],
    "min_dim": [(lambda a: a.min(1)[0], [(2, 3)])],
    "gather": [(lambda a: a.gather(1, vg.tensor([[0, 2], [1, 1]])), [(2, 3)])],
    "scatter": [(lambda a, s: a.scatter(1, vg.tensor([[0, 2], [1, 0]]), s), [(2, 3), (2, 2)])],
    "scatter_add": [(lambda a, s: a.scatter_add(1, vg.tensor([[0, 0], [1, 2]]), s), [(2, 3), (2, 2)])],
    "mm": [(lambda a, b: a.mm(b), [(2, 3), (3, 2)])],
    "bmm": [(lambda a, b: a.bmm(b), [(2, 2, 3), (2, 3, 2)])],
    "dot": [(lambda a, b: a.dot(b), [(3,), (3,)])],
    "mv": [(lambda a, b: a.mv(b), [(2, 3), (3,)])],
    "addmm": [(lambda c, a, b: vg.addmm(c, a, b), [(2,), (2, 3), (3, 2)]),
              (lambda c, a, b: vg.addmm(c, a, b, beta=0.5, alpha=2), [(2, 2), (2, 3), (3, 2)])],
    "alias": [(lambda a: a[...], [(2, 3)])],
    "view": [(lambda a: a.view(3, 2), [(2, 3)])],
    "_unsafe_view": [(lambda a: a.t().reshape(6), [(2, 3)])],
    "_reshape_alias": [(lambda a: a.transpose(0, 1).reshape(3, 2, 2), [(2, 3, 2)])],
    "as_strided": [(lambda a: a.as_strided((2, 2), (1, 2), 1), [(6,)]),
                   (lambda a: a.as_strided((3, 2), (1, 1), 0), [(4,)])],  # overlapping
    "select": [(lambda a: a.select(1, 2), [(2, 3)])],
    "slice": [(lambda a: a[:, 1:3], [(2, 4)]), (lambda a: a[::2], [(5,)])],
    "diagonal": [(lambda a: a.diagonal(), [(3, 3)]), (lambda a: a.diagonal(1, 0, 2), [(3, 2, 4)])],
    "select_backward": [(lambda g: _d(V.SELECT_BWD, (g,), ((2, 3), 1, 2)), [(2,)])],
    "slice_backward": [(lambda g: _d(V.SLICE_BWD, (g,), ((2, 4), 1, 1, 3, 1)), [(2, 2)])],
    "diagonal_backward": [(lambda g: _d(V.DIAG_BWD, (g,), ((3, 3), 0, 0, 1)), [(3,)])],
    "unsqueeze": [(lambda a: a.unsqueeze(1), [(2, 3)])],
    "squeeze": [(lambda a: a.squeeze(), [(2, 1, 3)])],
    "squeeze_dim": [(lambda a: a.squeeze(1), [(2, 1, 3)])],
    "squeeze_dims": [(lambda a: a.squeeze((0, 2)), [(1, 3, 1)])],
    "transpose": [(lambda a: a.transpose(0, 2), [(2, 3, 2)])],
    "t": [(lambda a: a.t(), [(2, 3)])],
    "permute": [(lambda a: a.permute(2, 0, 1), [(2, 3, 2)])],
    "expand": [(lambda a: a.expand(2, 3, 4), [(3, 1)])],
    "unfold": [(lambda a: a.unfold(0, 3, 1), [(5,)]), (lambda a: a.unfold(1, 2, 2), [(2, 5)])],
    "split": [(lambda a: a.split(2, 1)[1] * 2, [(2, 5)]), (lambda a: vg.stack(a.chunk(2)).sum(0), [(4, 2)])],
    "unsafe_split": [(lambda a: a.unsafe_split(2, 1)[1] * 2, [(2, 5)]),
                     (lambda a: vg.stack(a.unsafe_chunk(2)).sum(0), [(4, 2)])],
    "split_with_sizes": [(lambda a: a.split([1, 4], 1)[1] * 2, [(2, 5)]),
                         (lambda a: vg.stack(a.split_with_sizes([2, 2])).sum(0), [(4, 2)])],
    "unbind": [(lambda a: a.unbind(1)[2], [(2, 3)])],
    "take": [(lambda a: a.take(vg.tensor([0, 3, 3])), [(2, 3)])],
    "put": [(lambda a, s: a.put(vg.tensor([1, 4, 1]), s, accumulate=True), [(2, 3), (3,)]),
            (lambda a, s: a.put(vg.tensor([1, 4]), s), [(2, 3), (2,)])],
    "index": [(lambda a: a[[0, 2, 2]], [(3, 2)]), (lambda a: a[:, vg.tensor([1, 0])], [(2, 3)])],
    "index_put": [(lambda a, v: X.index_put(a, (vg.tensor([0, 2]).cpu().numpy(),), v), [(3, 2), (2, 2)]),
                  (lambda a, v: X.index_put(a, (vg.tensor([0, 0]).cpu().numpy(),), v, accumulate=True), [(3, 2), (2,)])],
    "clone": [(lambda a: a.clone(), [(2, 3)])],
    "to_copy": [(lambda a: a.to(vg.float32).to(vg.float64), [(3,)],
                 {"eps": 1e-2, "atol": 1e-3, "rtol": 1e-3})],
    "zero": [(lambda a: a.clone().zero_() + a, [(3,)])],
    "fill": [(lambda a: a.clone().fill_(2.0) * a, [(3,)])],
    "fill_tensor": [(lambda a, v: a.clone().fill_(v) * a, [(3,), ()])],
    "copy": [(lambda a, b: a.clone().copy_(b) * a, [(2, 3), (3,)])],
    "masked_fill": [(lambda a: a.masked_fill(vg.tensor([True, False, True]), 1.0), [(2, 3)])],
    "masked_fill_tensor": [(lambda a, v: a.masked_fill(vg.tensor([True, False]), v), [(2,), ()])],
    "softmax": [(lambda a: a.softmax(1), [(2, 3)]), (lambda a: vg.softmax(a, 0), [(3, 2)])],
    "log_softmax": [(lambda a: a.log_softmax(-1), [(2, 3)])],
    "binary_cross_entropy": [
        (lambda a, b: L.binary_cross_entropy(a.sigmoid(), b.sigmoid()), [(2, 3), (2, 3)]),
        (lambda a, b: L.binary_cross_entropy(a.sigmoid(), b.sigmoid(), reduction="none",
                                             weight=vg.tensor([0.5, 2.0, 1.0], dtype=vg.float64)),
         [(2, 3), (2, 3)])],
    "binary_cross_entropy_with_logits": [
        (lambda a, b: L.binary_cross_entropy_with_logits(a, b.sigmoid()), [(2, 3), (2, 3)]),
        (lambda a, b: L.binary_cross_entropy_with_logits(
            a, b.sigmoid(), reduction="sum", weight=vg.tensor([0.5, 2.0, 1.0], dtype=vg.float64),
            pos_weight=vg.tensor([3.0, 1.0, 0.5], dtype=vg.float64)), [(2, 3), (2, 3)])],
    "smooth_l1_loss": [(lambda a, b: L.smooth_l1_loss(a, b, beta=0.7), [(2, 3), (2, 3)]),
                       (lambda a, b: L.smooth_l1_loss(a, b, reduction="none"), [(4,), (4,)])],
    "huber_loss": [(lambda a, b: L.huber_loss(a, b, delta=0.6, reduction="sum"), [(2, 3), (2, 3)]),
                   (lambda a, b: L.huber_loss(a, b), [(4,), (4,)])],
    "mse_loss": [(lambda a, b: NN.mse_loss(a, b), [(2, 3), (2, 3)]),
                 (lambda a, b: NN.mse_loss(a, b, reduction="none"), [(3,), (3,)])],
    "nll_loss": [(lambda a: NN.nll_loss(a, vg.tensor([0, 2])), [(2, 3)]),
                 (lambda a: NN.cross_entropy(a, vg.tensor([1, 0, 2]), reduction="sum"), [(3, 3)]),
                 (lambda a: NN.nll_loss(a, vg.tensor([1, -100]), reduction="none"), [(2, 3)])],
    "nll_loss2d": [(lambda a: NN.cross_entropy(a, vg.tensor([[[0, 2], [1, -100]]])), [(1, 3, 2, 2)]),
                   (lambda a: NN.nll_loss(a, vg.tensor([[1, 0, 2]]), reduction="none"), [(1, 3, 3)])],
    # (PyTorch's multi_margin_loss has no second derivative, so neither has viewgrad's:
    # its gradcheck, first order only, is in tests/nn/test_composed_as_torch.py)
    "multi_margin_loss": [],
    # (nor multilabel_margin_loss: its first-order gradcheck is in
    # tests/nn/test_multilabel_margin_node_vs_torch.py)
    "multilabel_margin_loss": [],
    "_trilinear": [(lambda a, w, b: _E.trilinear(a, w, b, (1, 3), (0,), (1, 2), (2, 3)),
                    [(2, 3), (4, 3, 2), (2, 2)])],
    "soft_margin_loss": [(lambda a: L.soft_margin_loss(a, vg.tensor([1.0, -1.0, 1.0])), [(3,)]),
                         (lambda a: L.soft_margin_loss(a, vg.tensor([[1.0, -1.0]]),
                                                       reduction="none"), [(2, 2)])],
    # the Scalar rows of PyTorch's own composites (Note [a Scalar inside PyTorch's own
    # composites]) and at::norm's NormBackward1
    "mul_scalar": [(lambda a: P.mul_scalar(a, 0.3), [(2, 3)])],
    "add_scalar_op": [(lambda a: P.add_scalar(a, 1e-6), [(2, 3)])],
    "sub_scalar_op": [(lambda a: P.sub_scalar(a, 0.25), [(2, 3)])],
    "div_scalar_op": [(lambda a: P.div_scalar(a, 3), [(2, 3)]), (lambda a: P.div_scalar(a, 0.5), [(4,)])],
    "norm_dim": [(lambda a, b: vg.nn.functional.pairwise_distance(a, b), [(2, 3), (2, 3)]),
                 (lambda a, b: vg.nn.functional.pairwise_distance(a, b, p=3.0, keepdim=True),
                  [(3,), (3,)])],
    # hand-written nodes (variadic)
    "cat": [(lambda a, b: vg.cat([a, b], 1), [(2, 2), (2, 3)])],
    "stack": [(lambda a, b: vg.stack([a, b], 1), [(2, 3), (2, 3)])],
}

# the rows viewgrad.nn adds (convolution, padding, pooling, batch norm): their samples live
# with the nn tests
from ..nn.samples import SAMPLES as _NN_SAMPLES  # noqa: E402

SAMPLES.update(_NN_SAMPLES)

# the pointwise math rows (ops/unary.py, ops/binary.py)
from .samples_pointwise import SAMPLES as _POINTWISE_SAMPLES  # noqa: E402

SAMPLES.update(_POINTWISE_SAMPLES)

# the elementwise rows of ops/elementwise.py (maximum, xlogy, div(rounding_mode=)...)
from .samples_mathops import SAMPLES as _MATHOPS_SAMPLES  # noqa: E402

SAMPLES.update(_MATHOPS_SAMPLES)
# index / mask / rearranging rows and the view scatters
from .samples_indexing import SAMPLES as _INDEXING_SAMPLES  # noqa: E402

SAMPLES.update(_INDEXING_SAMPLES)

# statistics, scans and norms (ops/stats.py, ops/vector_norms.py)
from .samples_reductions import SAMPLES as _REDUCTION_SAMPLES  # noqa: E402

SAMPLES.update(_REDUCTION_SAMPLES)

# in-place view ops (ops/inplace_views.py)
from .samples_inplace_views import SAMPLES as _INPLACE_VIEW_SAMPLES  # noqa: E402

SAMPLES.update(_INPLACE_VIEW_SAMPLES)

# grid_sample and affine_grid (ops/grid_sample.py)
from ..nn.samples_grid_sample import SAMPLES as _GRID_SAMPLE_SAMPLES  # noqa: E402

SAMPLES.update(_GRID_SAMPLE_SAMPLES)
