"""tutorials/scripts/conv_as_views.py runs and shows what it says it shows."""
import importlib.util
import os

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "tutorials", "scripts",
                     "conv_as_views.py")


def test_conv_as_views_script():
    spec = importlib.util.spec_from_file_location("conv_as_views", _PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    lines = []
    mod.main(print=lambda *a: lines.append(" ".join(map(str, a))))
    text = "\n".join(lines)
    assert "same values: True" in text
    assert "Im2ColBackward0" in text and "conv2d graph nodes: ConvolutionBackward0" in text
    assert "saves input and weight: True True" in text
    assert "modified by an inplace operation" in text
    assert "own grad_fn is ConvolutionBackward0" in text
