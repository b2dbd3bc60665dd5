"""Gradcheck samples for the statistics, scans and norms (ops/stats.py,
ops/vector_norms.py). Zeros inside prod/cumprod (where a careless formula divides by
zero) are checked on hand-made inputs in test_reductions_vs_torch.py: the sweep's inputs
are random."""
import viewgrad as vg

INF = float("inf")

SAMPLES = {
    "var": [(lambda a: a.var(), [(2, 3)]),
            (lambda a: a.var(1, keepdim=True, correction=0), [(2, 3)])],
    "std": [(lambda a: a.std(0), [(3, 2)]), (lambda a: a.std(unbiased=False), [(4,)])],
    "var_mean": [(lambda a: vg.var_mean(a, 1)[0] * 2 + vg.var_mean(a, 1)[1], [(2, 3)]),
                 (lambda a: vg.var_mean(a)[1], [(3,)])],
    "std_mean": [(lambda a: vg.std_mean(a, 0, keepdim=True)[0] - vg.std_mean(a, 0)[1],
                  [(3, 2)])],
    "prod": [(lambda a: a.prod(), [(2, 3)])],
    "prod_dim": [(lambda a: a.prod(1), [(2, 3)]), (lambda a: a.prod(0, keepdim=True), [(3, 2)])],
    "cumsum": [(lambda a: a.cumsum(1), [(2, 3)]), (lambda a: vg.cumsum(a, -1), [(4,)])],
    "cumprod": [(lambda a: a.cumprod(0), [(3, 2)]), (lambda a: a.cumprod(-1), [(2, 3)])],
    "logsumexp": [(lambda a: a.logsumexp(1), [(2, 3)]),
                  (lambda a: vg.logsumexp(a, (0, 1), keepdim=True), [(2, 3)])],
    "linalg_vector_norm": [
        (lambda a: a.norm(), [("away", (2, 3))]),
        (lambda a: a.norm(1, dim=1), [("away", (2, 3))]),
        (lambda a: vg.linalg.vector_norm(a, 3, dim=0, keepdim=True), [("away", (3, 2))]),
        (lambda a: vg.linalg.vector_norm(a, INF, 1), [("away", (2, 3))]),
        (lambda a: vg.linalg.vector_norm(a, 0.5), [("away", (3,))]),
        (lambda a: vg.linalg.vector_norm(a, 1.5), [("away", (3,))]),
        (lambda a: vg.linalg.matrix_norm(a), [(2, 2, 3)]),
        (lambda a: vg.linalg.norm(a, -INF), [("away", (3, 2))])],
}

# sorting and order statistics (ops/sorting.py): random inputs have no ties
SAMPLES.update({
    "sort": [(lambda a: a.sort(1).values, [(2, 3)]),
             (lambda a: a.sort(0, descending=True)[0], [(3, 2)])],
    "sort_stable": [(lambda a: vg.sort(a, stable=True, descending=True).values, [(4,)])],
    "topk": [(lambda a: a.topk(2)[0], [(2, 3)]),
             (lambda a: a.topk(1, 0, largest=False).values, [(3, 2)])],
    "kthvalue": [(lambda a: a.kthvalue(2, 0)[0], [(3, 2)]),
                 (lambda a: a.kthvalue(1, keepdim=True)[0], [(2, 3)])],
    "median": [(lambda a: a.median(), [(5,)])],
    "median_dim": [(lambda a: a.median(1)[0], [(2, 3)]),
                   (lambda a: vg.median(a, 0, keepdim=True).values, [(4, 2)])],
    "nanmedian": [(lambda a: a.nanmedian(), [(5,)])],
    "nanmedian_dim": [(lambda a: a.nanmedian(1)[0], [(2, 3)]),
                      (lambda a: vg.nanmedian(a, 0, keepdim=True).values, [(4, 2)])],
    "narrow_copy": [(lambda a: a.narrow_copy(1, 1, 2), [(2, 4)]),
                    (lambda a: vg.narrow_copy(a, -1, -2, 2), [(3,)])],
    "mode": [(lambda a: a.mode(1)[0], [(2, 3)])],
})

# running / paired extrema and NaN-ignoring sums (ops/extrema.py, ops/stats.py)
SAMPLES.update({
    "cummax": [(lambda a: a.cummax(1).values, [(2, 4)])],
    "logcumsumexp": [(lambda a: a.logcumsumexp(1), [(2, 4)]),
                     (lambda a: a.logcumsumexp(-3) * 2, [(3, 2, 2)])],
    "cummin": [(lambda a: vg.cummin(a, 0)[0], [(3, 2)])],
    "aminmax": [(lambda a: vg.aminmax(a).min * vg.aminmax(a)[1], [(2, 3)]),
                (lambda a: a.aminmax(dim=1, keepdim=True).max, [(2, 3)])],
    "nansum": [(lambda a: a.nansum(1), [(2, 3)]), (lambda a: vg.nanmean(a), [(3,)])],
})
