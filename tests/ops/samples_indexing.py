"""Gradcheck samples for the index / mask / rearranging rows (ops/index_ops.py,
ops/index_reduce.py, ops/mantissa.py, ops/rearrange.py, the scatter-with-a-number row of
ops/reduce.py) and the view-scatter rows (ops/view_scatter.py). In-place forms are sampled
on clones, so that the sweep also checks the node each in-place op records."""
import viewgrad as vg


def _i(*v):
    return vg.tensor(list(v))


def _mask():  # made at call time: on the device of the test pass
    return vg.tensor([[True, False, True], [False, False, True]])

def _SRI():  # noqa: N802 - scatter_reduce's index along dim 1 (repeats, a gap)
    return vg.tensor([[0, 1, 0], [1, 1, 2]])


def _SRI0():  # noqa: N802 - along dim 0
    return vg.tensor([[0, 1, 0], [0, 1, 1]])


SAMPLES = {
    "index_select": [(lambda a: a.index_select(0, _i(2, 0, 2)), [(3, 2)]),
                     (lambda a: vg.index_select(a, -1, _i(1)), [(2, 3)])],
    "index_add": [(lambda a, s: a.index_add(0, _i(0, 2, 0), s), [(3, 2), (3, 2)]),
                  (lambda a, s: a.index_add(1, _i(1), s, alpha=-2.0), [(2, 3), (2, 1)]),
                  (lambda a, s: a.clone().index_add_(0, _i(1, 1), s) * a, [(2, 2), (2, 2)])],
    "index_copy": [(lambda a, s: a.index_copy(1, _i(2, 0), s), [(2, 3), (2, 2)]),
                   (lambda a, s: a.clone().index_copy_(0, _i(1), s) * a, [(2, 2), (1, 2)])],
    "index_fill": [(lambda a: a.index_fill(1, _i(0, 2), -1.0), [(2, 3)]),
                   (lambda a: a.clone().index_fill_(0, _i(1), 2.0) * a, [(2, 2)])],
    "index_fill_tensor": [(lambda a, v: a.index_fill(0, _i(1), v), [(2, 3), ()])],
    "masked_select": [(lambda a: a.masked_select(_mask()), [(2, 3)]),
                      (lambda a: a.masked_select(_mask()), [(3,)])],  # broadcast self
    "masked_scatter": [(lambda a, s: a.masked_scatter(_mask(), s), [(2, 3), (5,)]),
                       (lambda a, s: a.masked_scatter(_mask(), s), [(1, 3), (2, 2)]),
                       (lambda a, s: a.clone().masked_scatter_(_mask()[0], s) * a, [(2, 3), (4,)])],
    "scatter_value": [(lambda a: a.scatter(1, _i([0], [2]), 1.5), [(2, 3)]),
                      (lambda a: a.clone().scatter_(0, _i([1, 0]), 0.0) * a, [(2, 2)])],
    "tril": [(lambda a: a.tril(), [(3, 3)]), (lambda a: a.tril(-1), [(2, 3, 4)]),
             (lambda a: (a * 2).tril_(1), [(3, 2)])],
    "triu": [(lambda a: a.triu(1), [(3, 4)]), (lambda a: (a * 1).triu_(), [(3, 3)])],
    "flip": [(lambda a: a.flip(0, 2), [(2, 3, 2)]), (lambda a: a.fliplr(), [(2, 3)])],
    "rot90": [(lambda a: a.rot90(1, (0, 2)), [(2, 3, 2)]), (lambda a: vg.rot90(a, -3), [(2, 3)]),
              (lambda a: a.rot90(2, (1, 0)), [(3, 2)])],
    "roll": [(lambda a: a.roll(1), [(2, 3)]), (lambda a: a.roll((1, -2), (0, 1)), [(3, 3)])],
    "repeat": [(lambda a: a.repeat(2, 1, 3), [(2, 2)]), (lambda a: a.tile(2), [(3,)])],
    "select_scatter": [(lambda a, s: a.select_scatter(s, 1, -1), [(2, 3), (2,)])],
    "slice_scatter": [(lambda a, s: vg.slice_scatter(a, s, 1, 0, 3, 2), [(2, 4), (2, 2)]),
                      (lambda a, s: a.slice_scatter(s, start=1), [(3, 2), (2, 2)])],
    "diagonal_scatter": [(lambda a, s: a.diagonal_scatter(s), [(3, 3), (3,)]),
                         (lambda a, s: a.diagonal_scatter(s, 1, 0, 2), [(2, 2, 3), (2, 2)])],
    "as_strided_scatter": [(lambda a, s: a.as_strided_scatter(s, (2, 2), (1, 3), 1), [(2, 4), (2, 2)]),
                           (lambda a, s: (a * 1).as_strided_scatter(s, (3,), (2,), 0), [(2, 3), (3,)])],
    # indexed reductions (ops/index_reduce.py): random values, so no ties for amax/amin and
    # no zero factors for prod (those are compared with torch in
    # tests/ops/test_index_reduce_vs_torch.py: finite differences are invalid there)
    "scatter_reduce": [(lambda a, s: a.scatter_reduce(1, _SRI(), s, "sum"), [(2, 3), (2, 3)]),
                       (lambda a, s: a.scatter_reduce(1, _SRI(), s, "prod"), [(2, 3), (2, 3)]),
                       (lambda a, s: vg.scatter_reduce(a, 0, _SRI0(), s, "prod",
                                                       include_self=False), [(2, 3), (2, 3)]),
                       (lambda a, s: a.scatter_reduce(1, _SRI(), s, "mean"), [(2, 3), (2, 3)]),
                       (lambda a, s: a.scatter_reduce(-1, _SRI(), s, "mean", include_self=False),
                        [(2, 3), (2, 3)]),
                       (lambda a, s: a.scatter_reduce(1, _SRI(), s, "amax"), [(2, 3), (2, 3)]),
                       (lambda a, s: a.scatter_reduce(0, _SRI0(), s, "amin", include_self=False),
                        [(2, 3), (2, 3)]),
                       (lambda a, s: a.clone().scatter_reduce_(1, _SRI(), s, "prod") * a,
                        [(2, 3), (2, 3)])],
    "index_reduce": [(lambda a, s: a.index_reduce(0, _i(0, 2, 0), s, "prod"), [(3, 2), (3, 2)]),
                     (lambda a, s: vg.index_reduce(a, 1, _i(1, 1), s, "prod", include_self=False),
                      [(2, 3), (2, 2)]),
                     (lambda a, s: a.index_reduce(0, _i(0, 2, 0), s, "mean"), [(3, 2), (3, 2)]),
                     (lambda a, s: a.index_reduce(0, _i(1, 1), s, "mean", include_self=False),
                      [(3, 2), (2, 2)]),
                     (lambda a, s: a.index_reduce(-1, _i(0, 2, 0), s, "amax"), [(2, 3), (2, 3)]),
                     (lambda a, s: a.index_reduce(0, _i(2, 0), s, "amin", include_self=False),
                      [(3, 2), (2, 2)]),
                     (lambda a, s: a.clone().index_reduce_(0, _i(1, 1), s, "amax") * a,
                      [(2, 2), (2, 2)])],
    # mantissas and norm caps (ops/mantissa.py)
    "frexp": [(lambda a: a.frexp().mantissa, [(2, 3)]), (lambda a: vg.frexp(a)[0] * a, [(3,)])],
    "ldexp": [(lambda a, b: vg.ldexp(a, b), [(2, 3), (3,)]),
              (lambda a: a.ldexp(_i(1, -2, 3)), [(2, 3)]),
              (lambda a, b: (a * 1).ldexp_(b) * a, [(2, 3), (2, 3)])],
    "renorm": [(lambda a: a.renorm(2, 0, 1.0), [(3, 4)]),
               (lambda a: vg.renorm(a, 1, 1, 1.5), [(2, 3)]),
               (lambda a: a.renorm(3, -1, 0.8), [(2, 2, 3)]),
               (lambda a: (a * 1).renorm_(2, 1, 1.0) * a, [(3, 2)])],
    # matrix products beyond mm (ops/linalg.py)
    "baddbmm": [(lambda c, a, b: vg.baddbmm(c, a, b), [(2, 2, 3), (2, 2, 4), (2, 4, 3)]),
                (lambda c, a, b: c.baddbmm(a, b, beta=0.5, alpha=-2), [(3,), (2, 2, 4), (2, 4, 3)])],
    "addbmm": [(lambda c, a, b: vg.addbmm(c, a, b), [(2, 3), (2, 2, 4), (2, 4, 3)]),
               (lambda c, a, b: c.addbmm(a, b, beta=0.5, alpha=-2), [(3,), (3, 2, 4), (3, 4, 3)]),
               (lambda c, a, b: (c * 1).addbmm_(a, b, alpha=0) * c, [(2, 3), (2, 2, 4),
                                                                        (2, 4, 3)])],
    "addmv": [(lambda c, m, v: vg.addmv(c, m, v, beta=2), [(2,), (2, 3), (3,)]),
              (lambda c, m, v: c.addmv(m, v, alpha=0.5), [(1,), (2, 3), (3,)])],
    "addr": [(lambda c, a, b: vg.addr(c, a, b), [(2, 3), (2,), (3,)]),
             (lambda c, a, b: (c * 1).addr_(a, b, beta=0.5) * c, [(2, 3), (2,), (3,)]),
             (lambda c, a, b: c.addr(a, b, beta=0, alpha=3), [(3,), (2,), (3,)])],
}
