"""index_select & co., masks, scatter_, tril/triu, flip, roll, repeat, repeat_interleave,
tile, tensor_split, ravel and the module-level view aliases against PyTorch: values, node
names, gradients, dtypes, errors (type and wording), in-place forms on views."""
import pytest

from tests.helpers import assert_same_as_torch

from .test_vs_torch import compare_with_torch


def _i(M, *v):
    return M.tensor(list(v))


CASES = [
    ("index_select", lambda M, F, a: a.index_select(0, _i(M, 2, 0, 2)) * 2, [(3, 4)]),
    ("index_select_fn", lambda M, F, a: M.index_select(a, 1, M.tensor(1)), [(3, 4)]),
    ("index_add", lambda M, F, a, s: a.index_add(1, _i(M, 0, 3, 0), s, alpha=0.5), [(2, 4), (2, 3)]),
    ("index_add_fn", lambda M, F, a, s: M.index_add(a, 0, _i(M, 1), s), [(2, 4), (1, 4)]),
    ("index_copy", lambda M, F, a, s: a.index_copy(0, _i(M, 2, 0), s), [(3, 2), (2, 2)]),
    ("index_fill", lambda M, F, a: a.index_fill(1, _i(M, 1), -2.0), [(2, 3)]),
    ("index_fill_t", lambda M, F, a, v: a.index_fill(0, _i(M, 0, 1), v), [(2, 3), ()]),
    ("masked_select", lambda M, F, a: a.masked_select(a > 0), [(3, 4)]),
    ("masked_select_bcast", lambda M, F, a, b: a.masked_select(b > 0), [(4,), (3, 4)]),
    ("masked_scatter", lambda M, F, a, s: a.masked_scatter(a < 0, s), [(3, 4), (13,)]),
    ("masked_scatter_bcast", lambda M, F, a, s, b: a.masked_scatter(b > 0, s), [(4,), (3, 4), (3, 4)]),
    ("scatter_value", lambda M, F, a: a.scatter(1, M.tensor([[0], [2]]), 3.0), [(2, 3)]),
    ("tril", lambda M, F, a: a.tril(-1) + M.tril(a, 1), [(3, 4)]),
    ("triu", lambda M, F, a: a.triu(1) * M.triu(a), [(2, 3, 3)]),
    ("flip", lambda M, F, a: a.flip(0, -1) * M.flip(a, (1,)), [(2, 3, 2)]),
    ("fliplr_ud", lambda M, F, a: M.fliplr(a) + a.flipud(), [(3, 3)]),
    ("roll", lambda M, F, a: a.roll(2) + M.roll(a, (1, -1), (0, 1)), [(3, 4)]),
    ("repeat", lambda M, F, a: a.repeat(2, 1, 2), [(2, 3)]),
    ("tile", lambda M, F, a: a.tile(2) + M.tile(a, (1, 2)), [(2, 3)]),
    ("tile_more", lambda M, F, a: a.tile((2, 1, 1)), [(2, 3)]),
    ("repeat_interleave", lambda M, F, a: a.repeat_interleave(2), [(2, 3)]),
    ("repeat_interleave_dim", lambda M, F, a: M.repeat_interleave(a, 3, dim=1), [(2, 3)]),
    ("repeat_interleave_t", lambda M, F, a: a.repeat_interleave(M.tensor([1, 0, 2]), dim=1), [(2, 3)]),
    ("repeat_interleave_t1", lambda M, F, a: a.repeat_interleave(M.tensor(2), dim=0), [(2, 3)]),
    ("ravel", lambda M, F, a: a.ravel() * M.ravel(a.t()), [(2, 3)]),
    ("tensor_split", lambda M, F, a: M.cat([p * (i + 1) for i, p in enumerate(a.tensor_split(3, 1))], 1), [(2, 5)]),
    ("tensor_split_idx", lambda M, F, a: a.tensor_split([1, 3], 1)[1], [(2, 5)]),
    ("tensor_split_t", lambda M, F, a: M.tensor_split(a, M.tensor([2, 9]))[0], [(3, 2)]),
    ("hsplit", lambda M, F, a: a.hsplit(2)[1], [(2, 4)]),
    ("hsplit_1d", lambda M, F, a: M.hsplit(a, [1])[1], [(4,)]),
    ("vsplit", lambda M, F, a: a.vsplit([1])[1], [(3, 2)]),
    ("dsplit", lambda M, F, a: a.dsplit(2)[0], [(1, 2, 4)]),
    ("swapdims", lambda M, F, a: M.swapdims(a, 0, 2) + M.swapaxes(a, 0, 2), [(2, 3, 2)]),
    ("moveaxis", lambda M, F, a: M.moveaxis(a, 0, -1), [(2, 3, 4)]),
    ("broadcast_to", lambda M, F, a: M.broadcast_to(a, (2, 3, 4)), [(3, 1)]),
    # in place, on views: CopySlices around the op's node
    ("scatter_inplace_view", lambda M, F, a, s: _on_view(a, lambda v: v.scatter_(0, M.tensor([1, 0]), s)), [(3, 2), (2,)]),
    ("scatter_value_inplace", lambda M, F, a: (a * 1).scatter_(1, M.tensor([[1], [0], [1]]), 2.0), [(3, 2)]),
    ("scatter_add_inplace_view", lambda M, F, a, s: _on_view(a, lambda v: v.scatter_add_(0, M.tensor([1, 1]), s)), [(3, 2), (2,)]),
    ("index_add_inplace_view", lambda M, F, a, s: _on_view(a, lambda v: v.index_add_(0, M.tensor([1, 1]), s)), [(3, 2), (2,)]),
    ("index_copy_inplace", lambda M, F, a, s: (a * 1).index_copy_(1, M.tensor([0]), s), [(3, 2), (3, 1)]),
    ("index_fill_inplace_view", lambda M, F, a: _on_view(a, lambda v: v.index_fill_(0, M.tensor([0]), 5.0)), [(3, 2)]),
    ("masked_scatter_inplace_view", lambda M, F, a, s: _on_view(a, lambda v: v.masked_scatter_(v > 0, s)), [(3, 2), (2,)]),
    ("tril_inplace_view", lambda M, F, a: _on_view(a, lambda v: v.unsqueeze(0).tril_(), row=False), [(3, 3)]),
    ("triu_inplace", lambda M, F, a: (a * 1).triu_(-1), [(3, 3)]),
]


def _on_view(a, op, row=True):
    b = a * 1
    op(b[1] if row else b)
    return b


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, fn, shapes):
    compare_with_torch(fn, shapes)


def test_inplace_versions_and_refusals_match_torch():
    def scenario(M):
        a = M.ones(3, 2, requires_grad=True)
        b = a * 2
        v = b[0]
        out = [b._version]
        v.index_fill_(0, M.tensor([1]), 0.0)
        out += [b._version, v._version, type(b.grad_fn).__name__]
        for bad in (lambda: a.scatter_(0, M.tensor([[0, 1]]), 1.0),
                    lambda: a[0].index_add_(0, M.tensor([0]), M.ones(1)),
                    lambda: b.split(1)[0].masked_scatter_(M.ones(1, 2, dtype=M.bool), M.ones(2))):
            try:
                bad()
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e).split(".")[0].split(": ")[-1])  # viewgrad names the op first
        return out
    assert_same_as_torch(scenario, wording_too=True)


ERRORS = [
    lambda M: M.ones(3, 4).index_select(0, M.tensor([0.])),
    lambda M: M.ones(3, 4).index_select(0, M.tensor([5])),
    lambda M: M.ones(3, 4).index_select(0, M.tensor([[0]])),
    lambda M: M.ones(3, 4).index_add(0, M.tensor([0]), M.ones(1, 4, dtype=M.float64)),
    lambda M: M.ones(3, 4).index_add(0, M.tensor([0]), M.ones(2, 4)),
    lambda M: M.ones(3, 4).index_add(0, M.tensor([7]), M.ones(1, 4)),
    lambda M: M.ones(3, 4).index_copy(0, M.tensor([0]), M.ones(2, 4)),
    lambda M: M.ones(3, 4).index_fill(0, M.tensor([0]), M.ones(2)),
    lambda M: M.ones(3, 4).index_fill(2, M.tensor([0]), 1.0),
    lambda M: M.ones(3, 4).masked_select(M.tensor([1, 0, 1, 0])),
    lambda M: M.ones(3, 4).masked_select(M.tensor([[True], [False]])),
    lambda M: M.ones(3, 4).masked_scatter(M.ones(3, 4) > 0, M.ones(2)),
    lambda M: M.ones(3, 4).masked_scatter(M.ones(3, 4) > 2, M.ones(2, dtype=M.float64)),
    lambda M: M.ones(3).tril(),
    lambda M: M.ones(3, 4).flip(0, 0),
    lambda M: M.ones(3, 4).roll((1, 2), (0,)),
    lambda M: M.ones(3, 4).roll(1, 5),
    lambda M: M.ones(3, 4).repeat(2),
    lambda M: M.ones(3, 4).repeat(-1, 2),
    lambda M: M.ones(3, 4).repeat_interleave(-1),
    lambda M: M.ones(3, 4).repeat_interleave(M.tensor([1, 2]), dim=0),
    lambda M: M.ones(3, 4).repeat_interleave(M.tensor([1, -2, 1]), dim=0),
    lambda M: M.repeat_interleave(M.tensor([[1]])),
    lambda M: M.ones(3, 4).tensor_split(0),
    lambda M: M.ones(3, 4).tensor_split(M.tensor([[1]])),
    lambda M: M.ones(3, 4).hsplit(3),
    lambda M: M.ones(3, 4).vsplit(2),
    lambda M: M.ones(4).vsplit(2),
    lambda M: M.ones(3, 4).dsplit(2),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_torch(k):
    assert_same_as_torch(lambda M: ERRORS[k](M), wording_too=True)


VALUES = [
    lambda M: M.tensor([[0, 1.5], [2, 0]]).nonzero(),
    lambda M: M.tensor([[0, 1.5], [2, 0]]).nonzero(as_tuple=True),
    lambda M: M.nonzero(M.tensor(3.0)),
    lambda M: M.tensor(3.0).nonzero(as_tuple=True),
    lambda M: M.argwhere(M.tensor([0, 4, 0, 1])),
    lambda M: M.repeat_interleave(M.tensor([1, 0, 3])),
    lambda M: M.tensor([1, 2]).repeat_interleave(2),
    lambda M: M.tensor(5.0).repeat_interleave(2),
    lambda M: M.arange(6).reshape(2, 3).index_select(1, M.tensor([2, 2])),
    lambda M: M.arange(6).reshape(2, 3).index_add_(0, M.tensor([1, 1]), M.ones(2, 3, dtype=M.int64)),
    lambda M: M.arange(6).masked_select(M.arange(6) > 2),
    lambda M: M.tensor([True, False]).repeat(2),
    lambda M: M.arange(6).reshape(2, 3).roll(1, 1).tril(),
    lambda M: M.tensor(5.0).flip(0),
    lambda M: M.tensor(2).index_select(0, M.tensor([0])),
    lambda M: M.arange(5).tensor_split(3),
]


@pytest.mark.parametrize("k", range(len(VALUES)))
def test_values_and_dtypes_match_torch(k):
    assert_same_as_torch(lambda M: VALUES[k](M))


def test_scatter_with_reduce_matches_torch():
    """PyTorch's deprecated ``reduce=`` form: values combined, no derivative (a node named
    NotImplemented whose backward raises), in place through the choke point."""
    import warnings

    def scenario(M):
        out = []
        x = M.arange(6.0).reshape(2, 3).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns that reduce= is deprecated
            y = x.scatter(1, M.tensor([[0], [1]]), x[:, :1] * 1, reduce="multiply")
            out += [type(y.grad_fn).__name__, y.tolist()]
            try:
                y.sum().backward()
            except RuntimeError as e:
                out.append(str(e))
            z = M.ones(2, 3)
            z.scatter_(1, M.tensor([[0, 0], [1, 2]]), 2.0, reduce="add")
            out += [z.tolist(), z._version]
            z.scatter_(1, M.tensor([[0, 0], [1, 2]]), M.full((2, 2), 3.0), reduce="multiply")
            out.append(z.tolist())
            out.append(M.ones(2, 3, dtype=M.int64).scatter(0, M.tensor([[1, 0]]), 5,
                                                            reduce="add").tolist())
            b = x * 1
            b[0].scatter_(0, M.tensor([1]), 2.0, reduce="add")
            out.append(type(b.grad_fn).__name__)
            try:
                M.ones(2, 3).scatter_(1, M.tensor([[0]]), 2.0, reduce="mean")
            except RuntimeError as e:
                out.append(str(e))
        return out
    assert_same_as_torch(scenario)
