"""A tiny TrueType reader: advance widths from a real font file (cmap format 4 + hmtx).

Used by the font-width test to measure every label of a picture with the font the SVG
names, independently of viewgrad's bundled metrics (viewgrad/render/fontmetrics.py).
"""
import struct


class TTF:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = data = f.read()
        n = struct.unpack(">H", data[4:6])[0]
        self.tables = {}
        for i in range(n):
            tag, _chk, off, length = struct.unpack(">4sIII", data[12 + 16 * i:28 + 16 * i])
            self.tables[tag.decode("latin-1")] = (off, length)
        head = self.tables["head"][0]
        self.units = struct.unpack(">H", data[head + 18:head + 20])[0]
        hhea = self.tables["hhea"][0]
        self.n_hmetrics = struct.unpack(">H", data[hhea + 34:hhea + 36])[0]
        self.cmap = self._cmap()

    def _cmap(self):
        data = self.data
        base = self.tables["cmap"][0]
        n = struct.unpack(">H", data[base + 2:base + 4])[0]
        for i in range(n):
            pid, eid, off = struct.unpack(">HHI", data[base + 4 + 8 * i:base + 12 + 8 * i])
            sub = base + off
            if struct.unpack(">H", data[sub:sub + 2])[0] == 4 and pid in (0, 3):
                return self._format4(sub)
        raise ValueError("no format-4 cmap")

    def _format4(self, sub):
        data = self.data
        segx2 = struct.unpack(">H", data[sub + 6:sub + 8])[0]
        seg = segx2 // 2
        ends = struct.unpack(f">{seg}H", data[sub + 14:sub + 14 + segx2])
        p = sub + 16 + segx2
        starts = struct.unpack(f">{seg}H", data[p:p + segx2])
        deltas = struct.unpack(f">{seg}h", data[p + segx2:p + 2 * segx2])
        ro_pos = p + 2 * segx2
        ros = struct.unpack(f">{seg}H", data[ro_pos:ro_pos + segx2])
        cmap = {}
        for i in range(seg):
            for c in range(starts[i], ends[i] + 1):
                if c == 0xFFFF:
                    continue
                if ros[i] == 0:
                    g = (c + deltas[i]) & 0xFFFF
                else:
                    a = ro_pos + 2 * i + ros[i] + 2 * (c - starts[i])
                    g = struct.unpack(">H", data[a:a + 2])[0]
                    if g:
                        g = (g + deltas[i]) & 0xFFFF
                cmap[c] = g
        return cmap

    def advance(self, ch) -> float:
        """Advance width of ``ch`` in em units (0..~1.5)."""
        g = self.cmap.get(ord(ch), 0)
        g = min(g, self.n_hmetrics - 1)
        off = self.tables["hmtx"][0] + 4 * g
        return struct.unpack(">H", self.data[off:off + 2])[0] / self.units

    def width(self, text, size) -> float:
        return sum(self.advance(c) for c in text) * size
