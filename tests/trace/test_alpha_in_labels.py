"""An in-place op's ``alpha`` shows in the tracer's call text and its explanation, as the
user wrote it (an optimizer's ``p.add_(buf, alpha=-lr)`` read ``p.add_(buf)`` before,
whose picture then showed p moving the other way), and a computed one-element operand
is labelled with four significant digits."""
import viewgrad as vg


def test_the_alpha_is_shown_and_explained():
    w = vg.ones(3, requires_grad=True)
    g = vg.full((3,), 2.0)
    with vg.trace() as tr:
        with vg.no_grad():
            w.add_(g, alpha=-0.1)
        x = w * 1.0
        x.sub_(g, alpha=3)
    e0, e1 = tr.events
    assert e0.call_text() == "w.add_(g, alpha=-0.1)"
    assert e1.call_text() == "x.sub_(g, alpha=3)"
    assert "x₀ - 3 * g" in vg.trace.explain(e1)
    assert [round(v, 6) for v in w.tolist()] == [0.8, 0.8, 0.8]


def test_a_computed_one_element_operand_reads_in_four_digits():
    b = vg.ones(1, requires_grad=True)
    with vg.trace() as tr:
        with vg.no_grad():
            b.add_(vg.tensor([0.1]) / 3.0)   # (no name on the line: the value labels it)
    assert tr.events[0].call_text() == "b.add_(0.03333)"
