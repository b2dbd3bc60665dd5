"""Shared test helpers: the optional PyTorch oracle, graph printing."""
import pytest


def torch_or_skip():
    """PyTorch is a test-only oracle: skip (saying why) when it is not installed."""
    try:
        import torch
    except Exception as e:  # ImportError or a broken install
        pytest.skip(f"PyTorch oracle not installed ({e.__class__.__name__}): "
                    "pip install torch==2.13.0 to run the differential tests")
    return torch


def short(name):
    """PyTorch's C++ nodes are named 'torch::autograd::CopySlices'; viewgrad's 'CopySlices'."""
    return name.rsplit("::", 1)[-1]


def graph_text(t, label="t"):
    """The graph under ``t.grad_fn`` as indented text of node names (iterative DFS)."""
    lines = []
    fn = t.grad_fn
    if fn is None:
        return f"{label}: <leaf>"
    stack = [(fn, 0, None)]
    seen = set()
    while stack:
        node, depth, nr = stack.pop()
        if node is None:
            continue
        name = short(node.name())
        extra = ""
        if name == "CopySlices" and hasattr(node, "fn"):
            extra = f" (fn={node.fn.name()})"
        lines.append("  " * depth + name + extra)
        if id(node) in seen:
            continue
        seen.add(id(node))
        for e in reversed(node.next_functions):
            if e is not None and e[0] is not None:
                stack.append((e[0], depth + 1, e[1]))
    return f"{label}:\n" + "\n".join(lines)
