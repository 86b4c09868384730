"""Large PNGs decoded band by band give the same grey page as a decode in one piece."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image, ImageChops, ImageDraw

from renamerd.engine.readers import images
from renamerd.engine.readers.images import ImagePages, reduce_grey, to_grey
from renamerd.engine.readers.png_bands import png_bands, read_header
from renamerd.engine.types import EngineConfig, UnreadableDocument

CFG = EngineConfig()


def _picture(mode: str, size: tuple[int, int] = (301, 217)) -> Image.Image:
    """Text-like strokes and noise, so every PNG filter type is chosen by the encoder."""
    rnd = random.Random(7)
    rgba = Image.new("RGBA", size, (255, 255, 255, 0))
    draw = ImageDraw.Draw(rgba)
    for _ in range(60):
        x, y = rnd.randrange(size[0]), rnd.randrange(size[1])
        colour = tuple(rnd.randrange(256) for _ in range(3)) + (rnd.randrange(40, 256),)
        draw.line((x, y, x + rnd.randrange(-80, 80), y + rnd.randrange(-30, 30)),
                  fill=colour, width=rnd.randrange(1, 5))
    draw.text((10, 10), "ACME Trading Sdn Bhd 12/03/2024", fill=(0, 0, 0, 255))
    if mode == "P":
        return rgba.convert("RGB").quantize(64)
    return rgba.convert(mode)


def _png(image: Image.Image, **params: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", **params)
    return out.getvalue()


@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA", "P"])
@pytest.mark.parametrize("rows", [1, 16, 1000])
def test_bands_join_to_the_whole_image(mode: str, rows: int) -> None:
    data = _png(_picture(mode), optimize=True)
    header = read_header(data)
    assert header.bandable
    bands = list(png_bands(data, header, rows))
    assert all(b.mode == mode and b.width == header.width for b in bands)
    assert sum(b.height for b in bands) == header.height
    joined = Image.new(mode, (header.width, header.height))
    if mode == "P":
        joined.putpalette(bands[0].getpalette() or [])
    top = 0
    for band in bands:
        joined.paste(band, (0, top))
        top += band.height
    whole = Image.open(io.BytesIO(data))
    assert joined.tobytes() == whole.tobytes()


def test_palette_transparency_goes_to_white_in_bands_too() -> None:
    picture = _picture("RGBA").convert("P")  # Pillow keeps the alpha as a tRNS chunk
    data = _png(picture)
    header = read_header(data)
    bands = list(png_bands(data, header, 32))
    assert "transparency" in bands[0].info
    grey = Image.new("L", picture.size)
    top = 0
    for band in bands:
        grey.paste(to_grey(band), (0, top))
        top += band.height
    expected = to_grey(Image.open(io.BytesIO(data)))
    assert ImageChops.difference(grey, expected).getbbox() is None


def test_grey_conversion_composites_alpha_over_white() -> None:
    image = Image.new("RGBA", (4, 1))
    image.putdata([(0, 0, 0, 0), (0, 0, 0, 255), (0, 0, 0, 128), (200, 200, 200, 255)])
    assert list(to_grey(image).getdata()) == [255, 0, 127, 200]


@pytest.mark.parametrize("mode", ["RGBA", "RGB", "P"])
def test_large_png_pages_are_read_in_bands(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """Below the band threshold and above it, a page reads the same (threshold lowered)."""
    data = _png(_picture(mode, (700, 530)))
    whole = ImagePages(data, CFG).image_of(0)
    monkeypatch.setattr(images, "BAND_ABOVE", 1000)
    monkeypatch.setattr(images, "BAND_ROWS", 64)
    monkeypatch.setattr(images, "OCR_LONG_SIDE", 300)  # so the page is also reduced 2x
    banded = ImagePages(data, CFG).image_of(0)
    assert banded.mode == "L" and banded.size == (350, 265)
    reference = reduce_grey(whole, 2)
    # (the same pixels, averaged in 64-row bands instead of one piece: identical)
    assert ImageChops.difference(banded, reference).getbbox() is None


def test_interlaced_and_16_bit_pngs_are_not_banded() -> None:
    data = bytearray(_png(_picture("RGB")))
    ihdr = data.index(b"IHDR") + 4
    assert read_header(bytes(data)).bandable
    data[ihdr + 12] = 1  # interlace method: Adam7 (Pillow writes no interlaced PNG)
    assert not read_header(bytes(data)).bandable
    assert not read_header(_png(Image.new("I;16", (40, 30)))).bandable


def test_broken_stream_is_a_clear_error() -> None:
    data = bytearray(_png(_picture("RGB")))
    start = data.index(b"IDAT") + 4
    data[start + 10:start + 40] = bytes(30)
    with pytest.raises(UnreadableDocument, match="broken image"):
        list(png_bands(bytes(data), read_header(bytes(data)), 16))
