"""Decode a large PNG band by band, so no full-size copy of its pixels is ever held.

Pillow decodes a PNG in one piece: an 8940x8940 RGBA page is 320 MB before any conversion, and
turning it grey over a white background took three more copies (+1.2 GB in all). Here the
compressed stream is inflated incrementally (`zlib.decompressobj` with an output cap), `rows`
scanlines at a time; each band is decoded by Pillow's own PNG decoder (its filters and
unpackers, no pixel code of ours) from a small stand-alone stream whose first scanline is the
previous band's last row, already unfiltered (PNG's "Up", "Average" and "Paeth" filters refer to
the row above), and is handed to the caller, who reduces it before the next one is decoded.

Non-interlaced PNGs of bit depth 8 (grey, grey+alpha, RGB, RGBA, palette) are handled; callers
decode the others (rare at this size) in one piece within a byte budget.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from PIL import Image

from renamerd.engine.types import UnreadableDocument

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: PNG colour type -> (Pillow mode, raw mode, bytes per pixel) at bit depth 8
_COLOUR_TYPES = {0: ("L", "L", 1), 2: ("RGB", "RGB", 3), 3: ("P", "P", 1),
                 4: ("LA", "LA", 2), 6: ("RGBA", "RGBA", 4)}
#: read the compressed stream in pieces of this size
_CHUNK = 1 << 16


@dataclass(frozen=True)
class PngHeader:
    """What the chunks before the pixels say: size, colour type, palette and transparency."""

    width: int
    height: int
    bit_depth: int
    colour_type: int
    interlaced: bool
    palette: bytes | None
    transparency: bytes | None
    exif: bytes | None

    @property
    def bandable(self) -> bool:
        """True when `png_bands` can decode this PNG band by band."""
        return self.bit_depth == 8 and not self.interlaced and self.colour_type in _COLOUR_TYPES


def _chunks(data: bytes) -> Iterator[tuple[bytes, int, int]]:
    """(type, payload start, payload end) of each chunk; stops at IEND or the end of data."""
    pos = len(_SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        start = pos + 8
        end = start + length
        if end > len(data):
            raise UnreadableDocument("broken image: truncated PNG chunk")
        yield kind, start, end
        if kind == b"IEND":
            return
        pos = end + 4  # CRC: Pillow checked the header's; a broken stream fails in zlib


def read_header(data: bytes) -> PngHeader:
    """Parse the PNG's header chunks (no pixel is decoded). Raises UnreadableDocument."""
    if not data.startswith(_SIGNATURE):
        raise UnreadableDocument("broken image: not a PNG")
    ihdr: tuple[int, ...] | None = None
    palette = transparency = exif = None
    for kind, start, end in _chunks(data):
        if kind == b"IHDR" and end - start >= 13:
            ihdr = struct.unpack(">IIBBBBB", data[start:start + 13])
        elif kind == b"PLTE":
            palette = data[start:end]
        elif kind == b"tRNS":
            transparency = data[start:end]
        elif kind == b"eXIf":
            exif = data[start:end]
        elif kind == b"IDAT":
            break
    if ihdr is None:
        raise UnreadableDocument("broken image: PNG without a header")
    width, height, depth, colour, _compression, _filter, interlace = ihdr
    return PngHeader(width, height, depth, colour, interlace != 0, palette, transparency, exif)


def _compressed(data: bytes) -> Iterator[bytes]:
    """The IDAT payloads in order, in pieces of at most _CHUNK bytes."""
    for kind, start, end in _chunks(data):
        if kind == b"IDAT":
            for pos in range(start, end, _CHUNK):
                yield data[pos:min(pos + _CHUNK, end)]


def _scanlines(data: bytes, stride: int, rows: int) -> Iterator[bytes]:
    """Raw (still filtered) scanlines, `rows` at a time; the output of inflate is capped."""
    inflate = zlib.decompressobj()
    want = stride * rows
    pending = bytearray()
    try:
        for piece in _compressed(data):
            chunk = piece
            while chunk:
                pending += inflate.decompress(chunk, max(want - len(pending), 1))
                chunk = inflate.unconsumed_tail
                while len(pending) >= want:
                    yield bytes(pending[:want])
                    del pending[:want]
        pending += inflate.flush()
    except zlib.error as exc:
        raise UnreadableDocument(f"broken image: {exc}") from None
    whole = len(pending) - len(pending) % stride
    if whole:
        yield bytes(pending[:whole])


def png_bands(data: bytes, header: PngHeader, rows: int) -> Iterator[Image.Image]:
    """The PNG's pixels as images of `rows` rows each (the last one may be shorter), in the
    PNG's own mode (palette and transparency attached). Needs `header.bandable`.

    Raises UnreadableDocument for a broken stream (a truncated one ends early: the missing
    rows are simply not yielded, as Pillow would leave them blank).
    """
    mode, rawmode, pixel = _COLOUR_TYPES[header.colour_type]
    width = header.width
    stride = 1 + width * pixel
    previous: bytes | None = None  # the last row decoded, unfiltered, without its filter byte
    for block in _scanlines(data, stride, rows):
        count = len(block) // stride
        if previous is not None:
            block = b"\x00" + previous + block
        lines = count + (previous is not None)
        try:
            band = Image.frombytes(mode, (width, lines), zlib.compress(block, 0), "zip", rawmode)
        except (ValueError, OSError) as exc:
            raise UnreadableDocument(f"broken image: {exc}") from None
        previous = band.crop((0, lines - 1, width, lines)).tobytes("raw", rawmode)
        if lines != count:
            band = band.crop((0, 1, width, lines))
        if header.palette is not None and mode == "P":
            band.putpalette(header.palette)
        if header.transparency is not None:
            band.info["transparency"] = _transparency(header, mode)
        yield band


def _transparency(header: PngHeader, mode: str) -> int | bytes | tuple[int, ...]:
    """tRNS as Pillow keeps it: per-index alphas (palette), one grey level or one colour."""
    raw = header.transparency or b""
    if mode == "P":
        return raw
    values = struct.unpack(f">{len(raw) // 2}H", raw[:len(raw) // 2 * 2])
    return values[0] if mode == "L" and values else tuple(values)
