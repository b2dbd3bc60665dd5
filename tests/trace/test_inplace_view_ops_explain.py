"""The tracer on in-place view ops (t_, unsqueeze_...): the call is shown with its
arguments, the rewrite rebinds the tensor to the view (no scatter: no value changed), and
the summary names the tensor's own new node."""
import viewgrad as vg


def test_metadata_ops_are_explained_as_rebinding():
    a = vg.randn(2, 3, requires_grad=True)
    b = a * 2
    v = b[0]
    with vg.trace() as tr:
        b.t_()
        v.unsqueeze_(0)
    e0, e1 = tr.events
    assert e0.call_text() == "b.t_()" and e1.call_text() == "v.unsqueeze_(0)"
    text = vg.trace.explain(e1)
    assert "v₁ = v₀.unsqueeze(0)" in text and "scatter" not in text
    assert "no CopySlices" in text
    assert "v keeps its values" in vg.trace.explain(e0)
    assert vg.trace.summarize(e1) == ("v.unsqueeze_(0): v.grad_fn is now UnsqueezeBackward1 "
                                      "(its edge 0 is the old SelectBackward0)")
    assert "TBackward1 (its edge 0 is the old MulBackward0); 1 other view went stale" in \
        vg.trace.summarize(e0)
