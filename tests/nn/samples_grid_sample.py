"""Gradcheck samples for grid_sample's and affine_grid's rows (viewgrad/ops/grid_sample.py),
in the format of ``tests/ops/samples.py`` (merged into the sweep there). The grid's
standard normal values put points inside and outside [-1, 1]; kinks (pixel boundaries,
borders) are hit with probability zero."""
from viewgrad.nn import functional as F


def _gs(mode, pad, align, scale=1.0):
    return lambda x, g: F.grid_sample(x, g * scale, mode=mode, padding_mode=pad,
                                      align_corners=align)


SAMPLES = {
    "grid_sampler_2d": [(_gs("bilinear", "zeros", False), [(1, 2, 3, 4), (1, 2, 3, 2)]),
                        (_gs("bilinear", "reflection", True, 1.5), [(2, 1, 3, 3), (2, 2, 1, 2)]),
                        (_gs("bicubic", "border", False, 0.8), [(1, 1, 3, 4), (1, 2, 2, 2)]),
                        (_gs("bicubic", "zeros", True), [(1, 1, 4, 3), (1, 1, 3, 2)]),
                        (_gs("nearest", "reflection", False), [(1, 2, 3, 3), (1, 2, 2, 2)])],
    "grid_sampler_3d": [(_gs("bilinear", "zeros", True), [(1, 1, 2, 3, 3), (1, 1, 2, 2, 3)]),
                        (_gs("bilinear", "border", False, 0.7), [(1, 2, 2, 2, 3),
                                                                  (1, 2, 1, 1, 3)]),
                        (_gs("nearest", "zeros", False), [(1, 1, 2, 2, 2), (1, 1, 1, 2, 3)])],
    "affine_grid_generator": [
        (lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False), [(2, 2, 3)]),
        (lambda t: F.affine_grid(t, (1, 1, 2, 3, 2), align_corners=True), [(1, 3, 4)])],
}
