"""Module behaviours a differential fuzzer found different from PyTorch's, each checked
against torch: shared submodules in state dicts and walks, state_dict's prefix,
load_state_dict's checks and messages, registration errors, full backward (pre-)hooks'
grad_input/grad_output, forward hooks' options, the containers' list and dict methods,
and the reprs of convolutions, embeddings, pools and parameter containers."""
from collections import OrderedDict

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_and_viewgrad

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")


def _t(L, a, rg=False):
    return L.tensor(np.array(a, dtype="float64"), requires_grad=rg)


def _norm(x):
    """A result's repr with viewgrad's module paths read as torch's (the classes live in
    other modules; the words around them are what is compared)."""
    r = repr(x)
    for ours, theirs in (("viewgrad.nn.container.", "torch.nn.modules.container."),
                         ("viewgrad.nn.module.", "torch.nn.modules.module."),
                         ("viewgrad.", "torch.")):
        r = r.replace(ours, theirs)
    return r


def _same(fn):
    theirs, ours = torch_and_viewgrad(fn)
    assert _norm(ours) == _norm(theirs)


def _shared(L):
    m = L.nn.Module()
    m.a = L.nn.Linear(1, 1)
    m.b = m.a
    return m


# -- A3, B8, B10, C17: state dicts and walks ------------------------------------------------

@pytest.mark.parametrize("code", [
    "list(shared(L).state_dict())",
    "str(shared(L).load_state_dict({'a.weight': L.zeros(1, 1), 'a.bias': L.zeros(1)}, strict=False))",
    "[n for n, _ in shared(L).named_parameters(remove_duplicate=False)]",
    "[n for n, _ in shared(L).named_parameters()]",
    "[n for n, _ in shared(L).named_modules(remove_duplicate=False)]",
    "[n for n, _ in shared(L).named_modules()]",
    "[n for n, _ in L.nn.Sequential(L.nn.BatchNorm1d(2), L.nn.BatchNorm1d(2)).named_buffers(remove_duplicate=False)]",
    "list(L.nn.Linear(1, 1).state_dict(prefix='p'))",
    "list(L.nn.Sequential(L.nn.Linear(1, 1)).state_dict(prefix='x.'))",
    "str(L.nn.Linear(1, 1).load_state_dict(L.nn.Linear(1, 1).state_dict(), assign=True))",
    "L.nn.Linear(1, 1).load_state_dict([1, 2])",
    "L.nn.Linear(1, 1).load_state_dict({'weight': [[1.0]], 'bias': [2.0]})",
    "L.nn.Linear(1, 1).load_state_dict({'weight': L.zeros(2, 1), 'bias': L.zeros(1), 'zz': L.zeros(1)})",
    "L.nn.Linear(1, 1).load_state_dict({'weight': L.zeros(1, 1), 'zz': L.zeros(1)})",
    "str(L.nn.Linear(1, 1).load_state_dict({'weight': L.zeros(1, 1), 'zz': L.zeros(1), 'q.r': L.zeros(1)}, strict=False))",
])
def test_state_dicts_and_walks(code):
    _same(lambda L: eval(code, {"L": L, "shared": _shared}))


def test_load_with_assign_makes_the_values_the_parameters():
    def run(L):
        m = L.nn.Linear(1, 1)
        w = L.ones(1, 1)
        m.load_state_dict({"weight": w, "bias": L.zeros(1)}, assign=True)
        return type(m.weight).__name__, m.weight.requires_grad, m.weight.tolist()
    _same(run)


# -- C13: registration errors -------------------------------------------------------------------

@pytest.mark.parametrize("code", [
    "setattr(L.nn.Linear(2, 2), 'weight', L.nn.ReLU())",
    "setattr(L.nn.Linear(2, 2), 'weight', L.zeros(2))",
    "(lambda m: (setattr(m, 'c', L.nn.ReLU()), setattr(m, 'c', L.zeros(1))))(L.nn.Module())",
    "L.nn.Linear(2, 2).register_buffer('weight', L.zeros(1))",
    "L.nn.Linear(2, 2).register_parameter('bias', L.nn.Parameter(L.zeros(2))) or 'ok'",
    "L.nn.Linear(2, 2).add_module('weight', L.nn.ReLU())",
    "L.nn.Linear(2, 2).add_module('a.b', L.nn.ReLU())",
    "L.nn.Linear(2, 2).add_module('', L.nn.ReLU())",
    "L.nn.Linear(2, 2).add_module(3, L.nn.ReLU())",
    "L.nn.Linear(2, 2).add_module('x', 3)",
    "L.nn.Linear(2, 2).register_buffer('a.b', L.zeros(1))",
    "L.nn.Linear(2, 2).register_buffer('', L.zeros(1))",
    "L.nn.Linear(2, 2).register_buffer(3, L.zeros(1))",
    "L.nn.Linear(2, 2).register_parameter('a.b', None)",
    "L.nn.Linear(2, 2).register_parameter('', None)",
    "L.nn.Linear(2, 2).register_parameter(1, None)",
    "(lambda m: (setattr(m, 'foo', 3), m.register_parameter('foo', None)))(L.nn.Linear(1, 1))",
    "(lambda m: (setattr(m, 'foo', 3), m.register_buffer('foo', None)))(L.nn.Linear(1, 1))",
    "(lambda m: (setattr(m, 'w', L.nn.Parameter(L.zeros(1))), setattr(m, 'w', L.nn.ReLU()), list(m._modules)))(L.nn.Module())",
    "L.nn.ModuleDict().__setitem__('c.d', L.nn.ReLU())",
    "L.nn.Sequential({'x': L.nn.ReLU()})",
])
def test_registration_errors(code):
    theirs, ours = torch_and_viewgrad(lambda L: eval(code, {"L": L}))
    if isinstance(theirs, tuple) and len(theirs) == 2 and theirs[0].endswith("Error"):
        assert ours[0] == theirs[0]
        # PyTorch names the type with its module path; viewgrad's paths differ
        assert ours[1].split("(")[0].split("'")[0] == theirs[1].split("(")[0].split("'")[0]
    else:
        assert ours == theirs


# -- B7, D20: hooks ---------------------------------------------------------------------------

def _hooked(L, fwd, inputs, use, **kw):
    class M(L.nn.Module):
        def forward(self, *args):
            return fwd(*args)
    m, log = M(), []
    fmt = lambda gs: [None if g is None else g.tolist() for g in gs]   # noqa: E731
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", fmt(go))))
    m.register_full_backward_hook(lambda mod, gi, go: log.append(("hook", fmt(gi), fmt(go))))
    out = m(*inputs)
    use(out).backward()
    return log


@pytest.mark.parametrize("case", range(5))
def test_full_backward_hooks_see_torchs_grad_input_and_grad_output(case):
    def run(L):
        a, b, c = _t(L, [1., 2.], True), _t(L, [3., 4.]), _t(L, [5., 6.], True)
        return [
            lambda: _hooked(L, lambda x, y, z: (x * 2, y * z), (a, b, _t(L, [5., 6.])),
                            lambda o: o[0].sum()),
            lambda: _hooked(L, lambda x, y, z: (x * 2, y * z), (a, b, c), lambda o: o[0].sum()),
            lambda: _hooked(L, lambda x, y, z: (x * 2, y * z), (a, b, c),
                            lambda o: (o[0] + o[1]).sum()),
            lambda: _hooked(L, lambda x, n: x * n, (a, 3), lambda o: o.sum()),
            lambda: _hooked(L, lambda x: (x * 2, 7), (a,), lambda o: o[0].sum()),
        ][case]()
    _same(run)


def test_backward_hooks_when_no_input_requires_grad():
    def run(L):
        lin = L.nn.Linear(2, 1).double()
        log = []
        lin.register_full_backward_hook(lambda m, gi, go: log.append((gi, len(go))))
        lin(_t(L, [[1., 2.]])).sum().backward()
        return log
    _same(run)


def test_backward_hooks_replace_grads_and_honour_prepend():
    def run(L):
        lin = L.nn.Linear(2, 2).double()
        log = []
        lin.register_full_backward_hook(lambda m, gi, go: log.append("first"))
        lin.register_full_backward_hook(lambda m, gi, go: (log.append("pre"), (gi[0] * 10,))[1],
                                        prepend=True)
        lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
        x = _t(L, [[1., 2.]], True)
        lin(x).sum().backward()
        return log, (x.grad / lin.weight.detach().sum(0)).tolist()
    _same(run)


def test_forward_hooks_with_kwargs_prepend_and_always_call():
    def run(L):
        class M(L.nn.Module):
            def forward(self, x, scale=1.0, fail=False):
                if fail:
                    raise ValueError("boom")
                return x * scale
        m, log = M(), []
        m.register_forward_pre_hook(lambda mod, args, kw: (args, {**kw, "scale": 3.0}),
                                    with_kwargs=True)
        m.register_forward_pre_hook(lambda mod, args: log.append("pre-first"), prepend=True)
        m.register_forward_hook(lambda mod, args, kw, out: out + kw["scale"], with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: log.append("always"), always_call=True)
        h = m.register_forward_hook(lambda mod, args, out: log.append("first"), prepend=True)
        y = m(_t(L, [1.0]), scale=2.0)
        h.remove()
        try:
            m(_t(L, [1.0]), fail=True)
        except ValueError as e:
            log.append(str(e))
        return y.tolist(), log
    _same(run)


def test_a_bad_with_kwargs_pre_hook_result():
    def run(L):
        m = L.nn.Linear(1, 1)
        m.register_forward_pre_hook(lambda mod, args, kw: 3, with_kwargs=True)
        return m(L.zeros(1, 1))
    _same(run)


# -- D20, C17: containers ------------------------------------------------------------------------

@pytest.mark.parametrize("code", [
    "names(seq(L).insert(0, L.nn.Tanh()))", "names(seq(L).insert(-1, L.nn.Tanh()))",
    "seq(L).insert(5, L.nn.Tanh())", "seq(L).insert(0, 3)",
    "(lambda s: (type(s.pop(1)).__name__, names(s)))(seq(L))",
    "(lambda s: (s.__delitem__(slice(0, 2)), list(s._modules)))(seq(L))",
    "(lambda s: (s.__delitem__(-1), list(s._modules)))(seq(L))",
    "(lambda s: (s.__setitem__(-1, L.nn.ELU()), names(s)))(seq(L))",
    "seq(L)[5]", "names(seq(L).extend([L.nn.ELU()]))", "names(seq(L) + seq(L))",
    "seq(L) + [L.nn.ReLU()]", "names(seq(L) * 2)", "names(2 * seq(L))", "seq(L) * 0",
    "seq(L) * 1.5", "(lambda s: (s.__imul__(2), list(s._modules)))(seq(L))",
    "(lambda s: (s.__iadd__(seq(L)), list(s._modules)))(seq(L))",
    "'0' in dir(seq(L))", "names(seq(L)[1:])",
    "names(ml(L) + ml(L))", "(lambda s: (s.__iadd__([L.nn.ELU()]), names(s)))(ml(L))",
    "(lambda s: (s.insert(1, L.nn.ELU()), names(s)))(ml(L))",
    "(lambda s: (s.pop(0).__class__.__name__, names(s)))(ml(L))",
    "(lambda s: (s.__delitem__(0), list(s._modules)))(ml(L))",
    "(lambda s: (s.__delitem__(slice(None, None, 2)), list(s._modules)))(ml(L) + ml(L))",
    "(lambda s: (s.__setitem__(-2, L.nn.ELU()), names(s)))(ml(L))", "ml(L)[7]",
    "ml(L).extend(3)", "names(ml(L)[::-1])", "'1' in dir(ml(L))",
    "(lambda d: (d.pop('a').__class__.__name__, list(d)))(L.nn.ModuleDict({'a': L.nn.ReLU(), 'b': L.nn.Tanh()}))",
    "L.nn.ModuleDict([('a', L.nn.ReLU(), 1)])", "L.nn.ModuleDict(3)",
])
def test_module_containers(code):
    def seq(L):
        return L.nn.Sequential(L.nn.ReLU(), L.nn.Sigmoid(), L.nn.Tanh())

    def ml(L):
        return L.nn.ModuleList([L.nn.ReLU(), L.nn.Sigmoid()])

    def names(s):
        return [type(m).__name__ for m in s]
    _same(lambda L: eval(code, {"L": L, "seq": seq, "ml": ml, "names": names}))


@pytest.mark.parametrize("code", [
    "(lambda p: (len(p), p[1], type(p[0]).__name__, len(list(p.parameters()))))(pl(L).append(3))",
    "(lambda p: (p.__iadd__([L.zeros(1)]), len(p), len(list(p.parameters()))))(pl(L))",
    "pl(L).__delitem__(0)", "pl(L)(1)", "pl(L).extend(L.zeros(2))", "pl(L)[4]",
    "len(pl(L)[0:1])",
    "(lambda d: (d.__setitem__('c', 3), d['c'], list(d), len(list(d.parameters()))))(pd(L))",
    "(lambda d: (d.pop('a').shape, list(d)))(pd(L))", "pd(L).get('zz', 5)",
    "pd(L).get('a').shape", "(lambda d: (d.clear(), len(d), list(d.parameters())))(pd(L))",
    "list(pd(L).copy())", "list(pd(L) | L.nn.ParameterDict({'c': L.zeros(1)}))",
    "(lambda d: (d.setdefault('z', None), d.setdefault('a').shape, list(d)))(pd(L))",
    "list(pd(L).fromkeys(['x', 'y'], 3).items())", "(lambda d: d.popitem()[0])(pd(L))",
    "list(L.nn.ParameterDict({'b': L.zeros(1), 'a': L.zeros(1)}))",
    "list(L.nn.ParameterDict(OrderedDict(b=L.zeros(1), a=L.zeros(1))))",
    "pd(L)['missing']", "pd(L)[3]", "pd(L)(1)", "L.nn.ParameterDict([('a', 1, 2)])",
    "(lambda d: (d.__ior__({'q': L.zeros(1)}), list(d)))(pd(L))",
])
def test_parameter_containers(code):
    def pl(L):
        return L.nn.ParameterList([L.nn.Parameter(L.zeros(2)), L.zeros(3)])

    def pd(L):
        return L.nn.ParameterDict({"a": L.nn.Parameter(L.zeros(2)), "b": L.zeros(3)})
    theirs, ours = torch_and_viewgrad(lambda L: eval(code, {"L": L, "pl": pl, "pd": pd,
                                               "OrderedDict": OrderedDict}))
    if isinstance(theirs, tuple) and len(theirs) == 2 and str(theirs[0]).endswith("Error"):
        assert ours[0] == theirs[0]
    else:
        assert _norm(ours) == _norm(theirs)


# -- B9: reprs -------------------------------------------------------------------------------------

REPRS = [
    "nn.Conv2d(4, 8, 3, padding='same', padding_mode='reflect')",
    "nn.Conv2d(4, 8, 3, padding='valid')",
    "nn.Conv1d(2, 4, 3, padding=1, padding_mode='circular', dilation=2, groups=2, bias=False)",
    "nn.Conv2d(2, 4, (3, 2), stride=2, padding=(1, 0), padding_mode='replicate')",
    "nn.Conv3d(2, 4, 3, padding=1)", "nn.ConvTranspose2d(2, 4, 3, stride=2, output_padding=1)",
    "nn.Embedding(10, 3, max_norm=1.0)", "nn.Embedding(10, 3, sparse=True)",
    "nn.Embedding(10, 3, padding_idx=2, norm_type=1.0, scale_grad_by_freq=True)",
    "nn.AvgPool1d(3)", "nn.AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False)",
    "nn.MaxPool1d(2, return_indices=True)", "nn.MaxPool1d(3, 2, 1, 2, ceil_mode=True)",
    "nn.MaxPool2d(2)", "nn.MaxPool2d((2, 3), stride=1, padding=1, return_indices=True)",
    "nn.MaxPool3d(2)", "nn.MaxPool3d(2, 1, 1, 2, True, True)", "nn.AvgPool2d(2)",
    "nn.AvgPool2d(3, 1, 1, True, False, 2)", "nn.AvgPool3d(2, 1, 1)",
    "nn.AdaptiveAvgPool1d(3)", "nn.AdaptiveMaxPool2d(2, return_indices=True)",
    "nn.LPPool2d(2.0, 2, stride=1, ceil_mode=True)",
    "nn.ParameterList([nn.Parameter(L.zeros(2)), nn.Parameter(L.zeros(2, 3).double())])",
    "nn.ParameterList([nn.Parameter(L.zeros(2)), 3])",
    "nn.ParameterDict({'a': nn.Parameter(L.zeros(2)), 'b': nn.Parameter(L.zeros(2, 3).double())})",
    "nn.ParameterList()", "nn.ParameterDict()",
]


@pytest.mark.parametrize("code", REPRS)
def test_reprs(code):
    theirs, ours = torch_and_viewgrad(lambda L: str(eval(code, {"nn": L.nn, "L": L})))
    assert ours.replace("viewgrad.", "torch.") == theirs


def test_pools_still_compute_as_torch():
    def run(L):
        x = L.tensor(np.random.default_rng(0).standard_normal((2, 3, 9)))
        return [L.nn.AvgPool1d(3, 2, 1)(x).sum().item(), L.nn.MaxPool1d(3)(x).sum().item(),
                L.nn.AvgPool1d(2)(x).shape[-1], L.nn.MaxPool1d(2, 1)(x).shape[-1]]
    theirs, ours = torch_and_viewgrad(run)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
