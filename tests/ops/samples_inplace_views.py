"""Gradcheck samples for the in-place view ops (ops/inplace_views.py): applied to a
non-leaf (``a * 1``) or to a view of one, as a user would."""

SAMPLES = {
    "t_": [(lambda a: (a * 1).t_(), [(2, 3)]), (lambda a: (a * 1)[1:].t_() * 2, [(3, 2)])],
    "transpose_": [(lambda a: (a * 1).transpose_(0, 2), [(2, 3, 2)]),
                   (lambda a: (a * 1).swapdims_(0, 1), [(2, 3)])],
    "unsqueeze_": [(lambda a: (a * 1).unsqueeze_(1), [(2, 3)]),
                   (lambda a: (a * 1)[0].unsqueeze_(-1), [(2, 3)])],
    "squeeze_": [(lambda a: (a * 1).squeeze_(), [(2, 1, 3)])],
    "squeeze_dim_": [(lambda a: (a * 1).squeeze_(1), [(2, 1, 3)])],
    "squeeze_dims_": [(lambda a: (a * 1).squeeze_((0, 2)), [(1, 3, 1)])],
    "as_strided_": [(lambda a: (a * 1).as_strided_((2, 2), (1, 2), 1), [(6,)]),
                    (lambda a: (a * 1).as_strided_((3, 2), (1, 1)), [(4,)])],  # overlapping
}
