"""Inference tensors against PyTorch 2.13: made in ``inference_mode``, they report
``is_inference()``, have no version counter, cannot be saved for backward, may be modified
in place only inside inference mode (outside, PyTorch raises after the write), and their
views are inference tensors that are no views. Views of normal tensors made in inference
mode stay normal views; nothing spurious is refused inside inference mode."""
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch, outcome, error_wording


def _try(f):
    try:
        return ("ok", f())
    except RuntimeError as e:
        return error_wording(e)


def _vals(t):
    return [round(float(v), 4) for v in t.detach().reshape(-1).tolist()]


def _made_inside(lib):
    with lib.inference_mode():
        a = lib.ones(3)
        b = lib.ones(3, requires_grad=True)
        v = a[:2]
        vv = v[:1]
        c = b * 2
        inside = [a.is_inference(), b.is_inference(), b.requires_grad, v.is_inference(),
                  v._is_view(), vv.is_inference(), vv._is_view(), c.requires_grad,
                  c.grad_fn is None, _try(lambda: a._version), _try(lambda: _vals(a.add_(1))),
                  _try(lambda: _vals(v.mul_(2)))]
        with lib.inference_mode(False):
            inside.append(lib.ones(2).is_inference())
    outside = [_try(lambda: a._version), a.is_leaf, a.grad_fn, a.requires_grad,
               a.detach().is_inference(), a.clone().is_inference(), (a * 2).is_inference(),
               a[:1].is_inference(), a[:1]._is_view(), _vals(a.exp())]
    return inside, outside


def _inplace_outside(lib):
    with lib.inference_mode():
        a = lib.ones(3)
        v = a[:2]
    # PyTorch raises after writing: the values show it
    return [_try(lambda: a.add_(1)), _vals(a), _try(lambda: v.add_(1)), _vals(a),
            _try(lambda: a.requires_grad_())]


def _saved_for_backward(lib):
    with lib.inference_mode():
        a = lib.ones(3) * 2
    x = lib.ones(3, requires_grad=True)
    return [_try(lambda: (x * a).grad_fn), _try(lambda: (a * x).grad_fn),
            _try(lambda: _vals(x.clone().add_(a))),        # add saves nothing: allowed
            _try(lambda: x.clone().mul_(a).grad_fn),      # mul_ saves the operand
            _try(lambda: _vals((x + a).sum().backward() or x.grad))]


def _normal_tensors_in_inference_mode(lib):
    n = lib.ones(3)
    x = lib.ones(3, requires_grad=True)
    y = x * 1
    with lib.inference_mode():
        w = n[:2]
        ww = w[:1]
        yv = y[:2]
        yvv = yv[:1]
        inside = [w.is_inference(), w._is_view(), ww._is_view(), ww._base is n,
                  _try(lambda: _vals(n.add_(1))), _try(lambda: w._version),
                  _try(lambda: _vals(x.add_(1))), x._version,      # like no_grad: allowed
                  _try(lambda: _vals(yvv.mul_(3))), yv.requires_grad]
    outside = [_try(lambda: _vals(w.add_(1))), _vals(n),
               _try(lambda: yv.mul_(2)), _try(lambda: yvv.mul_(2)),
               _try(lambda: yv.grad_fn)]
    return inside, outside


SCENARIOS = {"made_inside": _made_inside, "inplace_outside": _inplace_outside,
             "saved_for_backward": _saved_for_backward,
             "normal_tensors_in_inference_mode": _normal_tensors_in_inference_mode}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_inference_tensors_like_torch(name):
    assert_same_as_torch(SCENARIOS[name], wording_too=True)


def test_inference_refusals_are_real():
    (inside, outside) = outcome(vg, _made_inside)[1]
    assert inside[0] and outside[0][1].startswith("Inference tensors do not track")
    out = outcome(vg, _saved_for_backward)[1]
    assert out[0][1].startswith("Inference tensors cannot be saved for backward")
    out = outcome(vg, _inplace_outside)[1]
    assert out[0][1].startswith("Inplace update to inference tensor outside InferenceMode")


def _modes(lib):
    return (lib.is_grad_enabled(), lib.is_inference_mode_enabled())


def _nested_modes(lib):
    """no_grad, enable_grad and inference_mode nested every way, as context managers and
    decorators: what each level sees, and what each exit gives back."""
    seen = [_modes(lib)]
    with lib.no_grad():
        seen.append(_modes(lib))
        with lib.inference_mode():
            seen.append(_modes(lib))
            with lib.no_grad():
                seen.append(_modes(lib))
                with lib.enable_grad():
                    seen.append(_modes(lib))
                seen.append(_modes(lib))
            seen.append(_modes(lib))
        seen.append(_modes(lib))
        with lib.enable_grad():
            seen.append(_modes(lib))
            with lib.no_grad():
                seen.append(_modes(lib))
            seen.append(_modes(lib))
        seen.append(_modes(lib))
    seen.append(_modes(lib))
    with lib.inference_mode():
        with lib.no_grad():
            seen.append(_modes(lib))
        seen.append(_modes(lib))
    seen.append(_modes(lib))
    f = lib.no_grad()(lambda: _modes(lib))
    seen.append(f())
    seen.append(lib.no_grad(lambda: _modes(lib))())
    seen.append(_modes(lib))
    try:
        with lib.no_grad():
            raise KeyError("inside")
    except KeyError:
        seen.append(_modes(lib))
    with lib.set_grad_enabled(False):
        with lib.no_grad():
            seen.append(_modes(lib))
        seen.append(_modes(lib))
    seen.append(_modes(lib))
    return seen


def test_grad_modes_nest_and_restore_like_torch():
    assert_same_as_torch(_nested_modes)
