"""Gradcheck samples for the elementwise rows of ops/elementwise.py (maximum, copysign,
xlogy, logaddexp, sinc, nan_to_num, div(rounding_mode=), clamp with tensor bounds...).

Inputs are standard normal (see test_gradcheck_sweep._make); ties of maximum and the steps
of the rounding divisions are measure-zero there.
"""
import viewgrad as vg


def _f64(v):
    return vg.tensor(v, dtype=vg.float64)


SAMPLES = {
    "maximum": [(lambda a, b: vg.maximum(a, b), [(2, 3), (3,)])],
    "minimum": [(lambda a, b: a.minimum(b), [(2, 3), (2, 1)])],
    "fmax": [(lambda a, b: vg.fmax(a, b), [(3,), (3,)])],
    "fmin": [(lambda a, b: a.fmin(b), [(2, 3), (3,)])],
    "copysign": [(lambda a, b: vg.copysign(a, b), [(2, 3), (3,)])],
    "copysign_scalar": [(lambda a: a.copysign(-1.0), [(3,)])],
    "xlogy": [(lambda a, b: vg.xlogy(a, b), [(2, 3), ("pos", (3,))])],
    "xlogy_scalar_self": [(lambda b: vg.xlogy(2.5, b), [("pos", (3,))])],
    "xlogy_scalar_other": [(lambda a: a.xlogy(3.0), [(3,)])],
    "logaddexp": [(lambda a, b: vg.logaddexp(a, b), [(2, 3), (3,)])],
    "logaddexp2": [(lambda a, b: a.logaddexp2(b), [(3,), (3,)])],
    # no derivative (NotImplemented): used on a constant, times a tensor that requires grad
    "heaviside": [(lambda a: a * vg.heaviside(a.detach(), _f64(0.5)), [("away", (3,))])],
    "nextafter": [(lambda a, b: vg.nextafter(a, b), [(3,), (3,)])],
    # angle of a real tensor: 0 or pi, its gradient zero (PyTorch's AngleBackward0)
    "angle": [(lambda a: a * vg.angle(a), [("away", (2, 3))])],
    # the comparisons in place (ops/tensor_facts.py): zero gradients, here through the
    # clone they overwrite, with the other operand a number or a tensor that needs one
    "eq_scalar_": [(lambda a: a * (a * 1).eq_(0.5), [(3,)])],
    "ne_scalar_": [(lambda a: a * (a * 1).ne_(0.5), [(3,)])],
    "lt_scalar_": [(lambda a: a * (a * 1).lt_(0.5), [("away", (3,))])],
    "le_scalar_": [(lambda a: a * (a * 1).le_(0.5), [("away", (3,))])],
    "gt_scalar_": [(lambda a: a * (a * 1).gt_(0.5), [("away", (3,))])],
    "ge_scalar_": [(lambda a: a * (a * 1).ge_(0.5), [("away", (3,))])],
    "eq_tensor_": [(lambda a, b: a * (a * 1).eq_(b) + b, [(3,), (3,)])],
    "ne_tensor_": [(lambda a, b: a * (a * 1).ne_(b) + b, [(2, 3), (3,)])],
    "lt_tensor_": [(lambda a, b: a * (a * 1).lt_(b) + b, [(2, 3), (3,)])],
    "le_tensor_": [(lambda a, b: a * (a * 1).le_(b) + b, [(3,), (3,)])],
    "gt_tensor_": [(lambda a, b: a * (a * 1).gt_(b) + b, [(3,), (1,)])],
    "ge_tensor_": [(lambda a, b: a * (a * 1).ge_(b) + b, [(3,), (3,)])],
    "sinc": [(lambda a: a.sinc(), [("away", (2, 3))]), (lambda a: vg.sinc(a).sinc_(), [("away", (2,))])],
    "deg2rad": [(lambda a: vg.deg2rad(a), [(3,)])],
    "rad2deg": [(lambda a: a.rad2deg(), [(3,)])],
    "nan_to_num": [(lambda a: a.nan_to_num(), [(3,)]),
                   (lambda a: (a * 1).nan_to_num_(nan=1.0), [(2,)])],
    "div_mode": [(lambda a: vg.div(a, 0.7, rounding_mode="floor") * a, [("away", (3,))]),
                 (lambda a, b: a.div(b, rounding_mode="trunc") + a, [(3,), ("pos", (3,))])],
    "clamp_tensor": [(lambda a, lo, hi: a.clamp(lo, hi), [(2, 3), (3,), (3,)]),
                     (lambda a, lo: vg.clip(a, min=lo), [(3,), (3,)])],
    "clamp_min": [(lambda a: vg.clamp_min(a, 0.1), [("away", (3,))]),
                  (lambda a: (a * 1).clamp_min_(-0.2), [("away", (3,))])],
    "clamp_max": [(lambda a: a.clamp_max(0.1), [("away", (3,))])],
    "clamp_min_tensor": [(lambda a, b: vg.clamp_min(a, b), [(2, 3), (3,)])],
    "clamp_max_tensor": [(lambda a, b: a.clamp_max(b), [(2, 3), (3,)])],
    # ops/diag.py, ops/distance.py, ops/shaping.py (block_diag: a hand-written node)
    "diag_embed": [(lambda a: vg.diag_embed(a, 1, 0, 2), [(2, 3)]), (lambda a: vg.diag(a, -1), [(3,)])],
    "diagonal_copy": [(lambda a: vg.diag(a, 1), [(3, 4)])],
    "trace": [(lambda a: a.trace(), [(3, 4)])],
    "linalg_cross": [(lambda a, b: vg.cross(a, b, dim=1), [(2, 3), (1, 3)])],
    "cdist": [(lambda a, b: vg.cdist(a, b), [(3, 2), (4, 2)]),
              (lambda a, b: vg.cdist(a, b, p=1), [(2, 3, 2), (3, 2)]),
              (lambda a, b: vg.cdist(a, b, p=3.5), [(3, 2), (2, 2)]),
              (lambda a, b: vg.cdist(a, b, p=float("inf")), [(3, 2), (2, 2)])],
    "_euclidean_dist": [(lambda a, b: vg.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
                         [(3, 2), (4, 2)])],
    "block_diag": [(lambda a, b, c: vg.block_diag(a, b, c), [(2, 3), (2,), ()])],
    # linear algebra (ops/linalg_solve.py, ops/linalg_decomp.py)
    "linalg_inv": [(lambda a: vg.linalg.inv(a + 3 * _eye(3)), [(3, 3)]),
                   (lambda a: vg.inverse(a + 3 * _eye(2)), [(2, 2, 2)])],
    "linalg_det": [(lambda a: vg.linalg.det(a), [(3, 3)]), (lambda a: a.det(), [(2, 2, 2)])],
    "linalg_slogdet": [(lambda a: vg.linalg.slogdet(a).logabsdet, [(3, 3)]),
                       (lambda a: vg.logdet(a @ a.mT + _eye(2)), [(2, 2)])],
    "linalg_solve": [(lambda a, b: vg.linalg.solve(a + 3 * _eye(3), b), [(3, 3), (3, 2)]),
                     (lambda a, b: vg.linalg.solve(a + 3 * _eye(3), b), [(2, 3, 3), (3,)])],
    "linalg_pinv": [(lambda a: vg.linalg.pinv(a), [(3, 4)]), (lambda a: a.pinverse(), [(4, 2)])],
    "linalg_lstsq": [(lambda a, b: vg.linalg.lstsq(a, b).solution, [(4, 3), (4, 2)])],
    "linalg_cholesky": [(lambda a: vg.linalg.cholesky(a @ a.mT + _eye(3)), [(3, 3)]),
                        (lambda a: vg.linalg.cholesky(a @ a.mT + _eye(2), upper=True), [(2, 2, 2)])],
    "cholesky": [(lambda a: vg.cholesky(a @ a.mT + _eye(3)), [(3, 3)])],
    "linalg_qr": [(lambda a: vg.cat([t.flatten() for t in vg.linalg.qr(a)]), [(4, 3)]),
                  (lambda a: vg.cat([t.flatten() for t in vg.linalg.qr(a)]), [(2, 4)])],
    "linalg_svd": [(lambda a: _svd_flat(vg.linalg.svd(a, full_matrices=False)), [(4, 3)]),
                   (lambda a: vg.linalg.svdvals(a), [(2, 3)])],
    "linalg_eigh": [(lambda a: _svd_flat(vg.linalg.eigh(a + a.mT)), [(3, 3)])],
    # the LU family (ops/linalg_lu.py): square, wide, tall; a diagonal shift keeps the
    # pivots where they are under the finite differences' nudges
    "linalg_lu_factor_ex": [(lambda a: vg.linalg.lu_factor(a + 3 * _eye(3)).LU, [(3, 3)]),
                            (lambda a: vg.linalg.lu_factor_ex(a).LU, [(2, 4)])],
    "linalg_lu": [(lambda a: _svd_flat(vg.linalg.lu(a + 3 * _eye(3))[1:]), [(3, 3)]),
                  (lambda a: _svd_flat(vg.linalg.lu(a)[1:]), [(4, 2)])],
    "lu_unpack": [(lambda a: _svd_flat(vg.lu_unpack(*vg.linalg.lu_factor(a))[1:]), [(2, 3)])],
    "linalg_lu_solve": [(lambda a, b: vg.linalg.lu_solve(*vg.linalg.lu_factor(a + 3 * _eye(3)),
                                                         b), [(3, 3), (3, 2)]),
                        (lambda a, b: vg.linalg.lu_solve(*vg.linalg.lu_factor(a + 3 * _eye(3)),
                                                         b, left=False, adjoint=True),
                         [(3, 3), (2, 3)])],
    # the gamma family and the Bessel functions (ops/gamma_ops.py); a.sin() * 0.4 - 0.5
    # lies in [-0.9, -0.1], on the negative axis but away from the poles 0 and -1
    "lgamma": [(lambda a: a.lgamma(), [("pos", (2, 3))]),
               (lambda a: vg.lgamma(a.sin() * 0.4 - 0.5), [(3,)]),
               (lambda a: (a * 1).lgamma_(), [("pos", (2,))])],
    "digamma": [(lambda a: vg.digamma(a), [("pos", (2, 3))]),
                (lambda a: (a.sin() * 0.4 - 0.5).digamma(), [(3,)]),
                (lambda a: (a * 1).digamma_(), [("pos", (2,))])],
    "polygamma": [(lambda a: vg.polygamma(1, a), [("pos", (3,))]),
                  (lambda a: a.polygamma(2), [("pos", (2, 2))]),
                  (lambda a: (a.sin() * 0.4 - 0.5).polygamma(0), [(3,)]),
                  (lambda a: vg.polygamma(3, a.sin() * 0.4 - 0.5), [(2,)]),
                  (lambda a: (a * 1).polygamma_(1), [("pos", (2,))])],
    "mvlgamma": [(lambda a: vg.mvlgamma(a + 1, 3), [("pos", (3,))]),
                 (lambda a: a.mvlgamma(1), [("pos", (2, 2))]),
                 (lambda a: (a + 0.5).mvlgamma_(2), [("pos", (2,))])],
    "i0": [(lambda a: a.i0(), [(2, 3)]), (lambda a: (a * 1).i0_(), [(3,)])],
    "special_i0e": [(lambda a: _gamma_ops().i0e(a), [("away", (2, 3))])],
    "special_i1": [(lambda a: _gamma_ops().i1(a), [(2, 3)])],
    "special_i1e": [(lambda a: _gamma_ops().i1e(a), [("away", (2, 3))])],
}


def _gamma_ops():
    # torch.special's i0e/i1/i1e have no vg.* name (torch has none): their module
    from viewgrad.ops import gamma_ops
    return gamma_ops


def _eye(n):
    return vg.eye(n, dtype=vg.float64)


def _svd_flat(parts):
    """Sign-free views of a decomposition: squared vectors and the values."""
    return vg.cat([p.pow(2).flatten() if p.dim() > 1 else p for p in parts])

SAMPLES.update({
    "linalg_solve_triangular": [
        (lambda a, b: vg.linalg.solve_triangular(a + 3 * _eye(3), b, upper=True), [(3, 3), (3, 2)]),
        (lambda a, b: vg.linalg.solve_triangular(a + 3 * _eye(3), b, upper=False, left=False,
                                                 unitriangular=True), [(3, 3), (2, 3)])],
    "triangular_solve": [(lambda a, b: vg.triangular_solve(b, a + 3 * _eye(3), transpose=True)[0],
                          [(3, 3), (3, 2)])],
    "cholesky_solve": [(lambda b, a: vg.cholesky_solve(b, a.tril() + 3 * _eye(3)), [(3, 2), (3, 3)]),
                       (lambda b, a: vg.cholesky_solve(b, a.triu() + 3 * _eye(3), upper=True),
                        [(3, 2), (3, 3)])],
    "cholesky_inverse": [(lambda a: vg.cholesky_inverse(a.tril() + 3 * _eye(3)), [(3, 3)]),
                         (lambda a: vg.cholesky_inverse(a.triu() + 3 * _eye(3), upper=True), [(3, 3)])],
    "linalg_matrix_exp": [(lambda a: vg.linalg.matrix_exp(a), [(3, 3)]),
                          (lambda a: vg.matrix_exp(2 * a), [(2, 2, 2)])],
    "vdot": [(lambda a, b: vg.vdot(a, b), [(3,), (3,)])],
    "dist": [(lambda a, b: vg.dist(a, b), [(2, 3), (3,)]), (lambda a, b: a.dist(b, 1), [(3,), (3,)]),
             (lambda a, b: vg.dist(a, b, 3.5), [(3,), (3,)]),
             (lambda a, b: vg.dist(a, b, float("inf")), [(3,), (3,)])],
})
