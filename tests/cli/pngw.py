"""A gray 8-bit PNG writer for the CLI tests' image folders (lib.sh puts
this folder on PYTHONPATH): png(path, px, w, h), px the w*h pixel values."""
import os
import struct
import zlib


def png(path, px, w=8, h=8):
    raw = b"".join(b"\x00" + bytes(px[r * w:(r + 1) * w]) for r in range(h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
