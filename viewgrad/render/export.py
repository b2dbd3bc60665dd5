"""Writing pictures in the format a file name asks for: SVG, PNG or PDF.

Both renderers make SVG and PNG. A system Graphviz also makes PDF; the bundled
``graphviz-pure`` does not, so viewgrad makes the PDF itself: it renders a PNG at 144 dpi
and wraps it in a one-page PDF (the image unfiltered and composited onto white, then
Flate-compressed: nothing but the standard library's ``zlib``). Any other extension is
refused with the list of what works, never silently written as SVG.

  output_format(path)                 "svg" | "png" | "pdf", or ValueError
  render_bytes(source, fmt, renderer) DOT text → file contents
  png_to_pdf(png)                     PNG bytes (8-bit RGB/RGBA, not interlaced) → PDF bytes
"""
from __future__ import annotations

import os
import struct
import zlib

__all__ = ["FORMATS", "output_format", "render_bytes", "png_to_pdf", "write_picture"]

FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf"}
PDF_DPI = 144


def output_format(path) -> str:
    ext = os.path.splitext(str(path))[1].lower()
    fmt = FORMATS.get(ext)
    if fmt is None:
        what = f"a {ext!r} file" if ext else f"{os.path.basename(str(path))!r} (no extension)"
        raise ValueError(f"cannot write {what}: viewgrad writes pictures as .svg, .png or "
                         ".pdf — name the file with one of those extensions")
    return fmt


def render_bytes(source: str, fmt: str, renderer=None) -> bytes:
    from .svg import find_renderer, run_renderer
    if fmt == "svg":
        return run_renderer(source, "svg", renderer).encode("utf-8")
    if fmt == "png":
        return run_renderer(source, "png", renderer, binary=True)
    if fmt == "pdf":
        kind, _exe = find_renderer(renderer)
        if kind in ("dot", "path"):
            try:
                return run_renderer(source, "pdf", renderer, binary=True)
            except RuntimeError:
                pass          # a Graphviz built without cairo: go through PNG below
        png = run_renderer(source, "png", renderer, binary=True, dpi=PDF_DPI)
        return png_to_pdf(png, scale=72.0 / PDF_DPI)
    raise ValueError(f"unknown picture format {fmt!r}; use svg, png or pdf")


def write_picture(source: str, path, renderer=None) -> str:
    data = render_bytes(source, output_format(path), renderer)
    d = os.path.dirname(os.path.abspath(str(path)))
    os.makedirs(d, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


# -- PNG → PDF --------------------------------------------------------------------------

def _chunks(png: bytes):
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    i = 8
    while i < len(png):
        n = struct.unpack(">I", png[i:i + 4])[0]
        yield png[i + 4:i + 8], png[i + 8:i + 8 + n]
        i += 12 + n


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(raw: bytes, width: int, height: int, bpp: int) -> bytearray:
    """PNG scanline filters undone (RFC 2083 §6): rows of ``width * bpp`` bytes."""
    stride = width * bpp
    out = bytearray(stride * height)
    prev = bytearray(stride)
    pos = 0
    for r in range(height):
        ftype = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:
            line = bytearray((x + y) & 0xFF for x, y in zip(line, prev))
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                ul = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + _paeth(left, prev[i], ul)) & 0xFF
        elif ftype != 0:
            raise ValueError(f"bad PNG filter type {ftype}")
        out[r * stride:(r + 1) * stride] = line
        prev = line
    return out


def png_to_pdf(png: bytes, scale: float = 1.0) -> bytes:
    """A one-page PDF showing ``png`` (page size = image size × ``scale`` points)."""
    width = height = None
    idat = b""
    for tag, body in _chunks(png):
        if tag == b"IHDR":
            width, height, depth, ctype, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("only 8-bit RGB/RGBA, non-interlaced PNGs can be wrapped")
            bpp = 4 if ctype == 6 else 3
        elif tag == b"IDAT":
            idat += body
    pix = _unfilter(zlib.decompress(idat), width, height, bpp)
    if bpp == 4:        # composite onto white: rgb*a + 255*(1-a)
        rgb = bytearray(width * height * 3)
        rgb[0::3] = bytes((c * a + 255 * (255 - a)) // 255 for c, a in zip(pix[0::4], pix[3::4]))
        rgb[1::3] = bytes((c * a + 255 * (255 - a)) // 255 for c, a in zip(pix[1::4], pix[3::4]))
        rgb[2::3] = bytes((c * a + 255 * (255 - a)) // 255 for c, a in zip(pix[2::4], pix[3::4]))
        pix = rgb
    image = zlib.compress(bytes(pix), 6)
    w, h = width * scale, height * scale
    content = f"q {w:.2f} 0 0 {h:.2f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w:.2f} {h:.2f}] "
         "/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode(),
        (f"<< /Type /XObject /Subtype /Image /Width {width} /Height {height} "
         f"/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode "
         f"/Length {len(image)} >>\nstream\n").encode() + image + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
            "%%EOF\n").encode()
    return bytes(out)
