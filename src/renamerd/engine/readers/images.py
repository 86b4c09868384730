"""JPEG, PNG and TIFF pages: pixel limits checked from the header, one page per TIFF frame, each
decoded for OCR without a full-size copy of its pixels.

Memory per page stays bounded (issue 14): a JPEG is decoded straight to grey at 1/2 or 1/4 size
(`draft`), a large 8-bit PNG band by band (readers/png_bands.py) with each band turned grey and
reduced before the next is decoded, and anything else only when its decoded pixels fit in
`DECODE_BUDGET` bytes (else DocumentTooLarge, before any pixel is decoded). Grey conversion
(`to_grey`) works on one-byte-per-pixel planes: alpha is composited over white as
255 - (255 - grey) * alpha / 255, never through an RGBA copy.
"""

from __future__ import annotations

import io
import struct
import warnings
import zlib

from PIL import Image, ImageChops, ImageOps, UnidentifiedImageError

from renamerd.engine.readers.png_bands import png_bands, read_header
from renamerd.engine.types import DocumentTooLarge, EngineConfig, UnreadableDocument

_IMAGE_ERRORS = (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError,
                 zlib.error, struct.error, IndexError, TypeError, KeyError, ZeroDivisionError)


def check_pixels(width: int, height: int, config: EngineConfig, what: str = "image") -> None:
    """Raise DocumentTooLarge when width x height exceeds `config.max_pixels`."""
    if width * height > config.max_pixels:
        raise DocumentTooLarge(
            f"the {what} is {width}x{height} pixels; the limit is {config.max_pixels} pixels"
        )


def open_image(data: bytes, config: EngineConfig) -> Image.Image:
    """Open an image lazily (header only) and check its size before any pixel is decoded.

    Raises DocumentTooLarge (over config.max_pixels, also PIL's own bomb guard) or
    UnreadableDocument (broken file).
    """
    try:
        with warnings.catch_warnings():
            # our own limit (config.max_pixels) is checked below; PIL's hard limit still raises
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        raise DocumentTooLarge(
            f"the image is over the pixel limit of {config.max_pixels} pixels"
        ) from None
    except _IMAGE_ERRORS as exc:
        raise UnreadableDocument(f"broken image: {exc}") from None
    check_pixels(img.width, img.height, config)
    return img


_EXIF_ORIENTATION = 0x0112
_NATIVE_SUFFIX = {"PNG": ".png", "JPEG": ".jpg", "TIFF": ".tif"}

#: long side (pixels) of an A4 page at about 300 dpi, the resolution tesseract reads best
OCR_LONG_SIDE = 3300
#: most bytes of decoded pixels (Pillow's in-memory size) held for one page at once; a large
#: 8-bit PNG is decoded in bands instead, a JPEG at reduced size; other images above it are
#: refused (an 80-Mpixel RGB TIFF would need 320 MB)
DECODE_BUDGET = 96 * 1024 * 1024
#: a PNG whose decoded pixels exceed this is decoded in bands (smaller ones in one piece)
BAND_ABOVE = 24 * 1024 * 1024
#: rows per band (a multiple of every reduction factor)
BAND_ROWS = 256
#: bytes per pixel of Pillow's in-memory modes
_PIXEL_BYTES = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16B": 2, "I;16L": 2}


def ocr_scale(width: int, height: int) -> int:
    """Power-of-two reduction (1, 2 or 4) that keeps the long side at or above OCR_LONG_SIDE."""
    scale = 1
    while scale < 4 and max(width, height) // (scale * 2) >= OCR_LONG_SIDE:
        scale *= 2
    return scale


def decoded_bytes(image: Image.Image) -> int:
    """Bytes Pillow holds for `image` once decoded (from the header: nothing is decoded)."""
    return image.width * image.height * _PIXEL_BYTES.get(image.mode, 4)


def to_grey(image: Image.Image) -> Image.Image:
    """`image` as 8-bit grey (1-bit kept as is): alpha goes to white, 16-bit is scaled down.

    Temporaries are one byte per pixel (the grey plane, the alpha plane): no RGBA copy.
    """
    if image.mode in ("1", "L"):
        return image
    if image.mode == "P" and "transparency" in image.info or image.mode == "PA":
        image = image.convert("RGBA")  # (a palette's alphas apply per index)
    if image.mode in ("RGBA", "LA", "La", "RGBa"):
        alpha = image.getchannel("A")
        grey = image.convert("L") if image.mode in ("RGBA", "RGBa") else image.getchannel("L")
        # over white: 255 - (255 - grey) * alpha / 255
        return ImageChops.invert(ImageChops.multiply(ImageChops.invert(grey), alpha))
    if image.mode.startswith("I;16") or image.mode == "I":
        return image.point(lambda v: v / 256).convert("L")
    return image.convert("L")


def reduce_grey(image: Image.Image, scale: int) -> Image.Image:
    """`image` (grey) reduced `scale` times by box averaging; 1-bit pages are kept as they are
    (their reduction would blur them into grey)."""
    return image.reduce(scale) if scale > 1 and image.mode == "L" else image


def upright(image: Image.Image, orientation: int) -> Image.Image:
    """`image` turned as its EXIF orientation tag says (1 or 0: as it is)."""
    if orientation in (0, 1):
        return image
    exif = Image.Exif()
    exif[_EXIF_ORIENTATION] = orientation
    image.info["exif"] = exif.tobytes()
    turned = ImageOps.exif_transpose(image)
    return turned if turned is not None else image


class ImagePages:
    """Pages of a JPEG, PNG or TIFF (one per TIFF frame); pixels decoded only when read."""

    def __init__(self, data: bytes, config: EngineConfig) -> None:
        self.config = config
        self.data = data
        self.image = open_image(data, config)
        self.page_count = self._count_frames()

    def _count_frames(self) -> int:
        if self.image.format != "TIFF":
            return 1
        count = 0
        try:
            while True:
                self.image.seek(count)
                check_pixels(self.image.width, self.image.height, self.config, "TIFF page")
                count += 1
                if count > self.config.max_pages:
                    raise DocumentTooLarge(
                        f"the TIFF has more than {self.config.max_pages} pages (the limit)"
                    )
        except EOFError:
            pass
        except _IMAGE_ERRORS as exc:
            if count == 0:
                raise UnreadableDocument(f"broken TIFF: {exc}") from None
        self.image.seek(0)
        return max(count, 1)

    def native_file(self) -> tuple[bytes, str] | None:
        """(bytes, suffix) when tesseract can read the original file as it is: one frame,
        a plain grey/colour/1-bit mode, upright by EXIF, and no larger than OCR needs."""
        img = self.image
        if self.page_count != 1 or img.format not in _NATIVE_SUFFIX:
            return None
        if img.mode not in ("1", "L", "RGB") or img.info.get("transparency") is not None:
            return None
        if ocr_scale(img.width, img.height) != 1:
            return None
        if img.format == "PNG":
            if "exif" in img.info:  # PNG's getexif() would decode the whole image
                return None
        elif img.getexif().get(_EXIF_ORIENTATION, 1) not in (0, 1):
            return None
        return self.data, _NATIVE_SUFFIX[str(img.format)]

    def image_of(self, index: int) -> Image.Image:
        """Page `index` (0-based) as OCR reads it: grey (or 1-bit), upright per EXIF, reduced
        to about 300 dpi when far larger; decoded within DECODE_BUDGET bytes (see above).

        Raises IndexError past the end, DocumentTooLarge when it cannot be decoded within
        the budget, UnreadableDocument if its pixels cannot be decoded. Safe to repeat.
        """
        if not 0 <= index < self.page_count:
            raise IndexError(index)
        try:
            if self.page_count > 1:
                self.image.seek(index)
            img = self.image
            scale = ocr_scale(img.width, img.height)
            if img.format == "PNG" and decoded_bytes(img) > BAND_ABOVE:
                header = read_header(self.data)
                if header.bandable:
                    page = self._banded_png(scale)
                    return upright(page, _png_orientation(header.exif))
            if img.format == "JPEG":
                # decode straight to grey, and at 1/2 or 1/4 size when far above OCR needs
                img.draft("L", (img.width // scale, img.height // scale))
                scale = ocr_scale(img.width, img.height)
            if decoded_bytes(img) > DECODE_BUDGET:
                raise DocumentTooLarge(
                    f"the image ({img.width}x{img.height} pixels, {img.mode}) would take "
                    f"{decoded_bytes(img) >> 20} MB to decode; the limit is "
                    f"{DECODE_BUDGET >> 20} MB"
                )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                img.load()
            orientation = img.getexif().get(_EXIF_ORIENTATION, 1)
            # (a frame of a multi-page TIFF is converted, hence copied: the next seek reuses
            # the same object)
            page = reduce_grey(to_grey(img), scale)
            if page is img and self.page_count > 1:
                page = img.copy()
            return upright(page, orientation)
        except Image.DecompressionBombError:
            raise DocumentTooLarge("the image is over the pixel limit") from None
        except _IMAGE_ERRORS as exc:
            raise UnreadableDocument(f"broken image: {exc}") from None

    def _banded_png(self, scale: int) -> Image.Image:
        """The PNG decoded band by band: each band grey and reduced before the next."""
        img = self.image
        out = Image.new("L", ((img.width + scale - 1) // scale, (img.height + scale - 1) // scale),
                        255)
        top = 0
        for band in png_bands(self.data, read_header(self.data), BAND_ROWS):
            small = reduce_grey(to_grey(band), scale)
            out.paste(small, (0, top))
            top += small.height
        return out


def _png_orientation(exif: bytes | None) -> int:
    """The EXIF orientation held in a PNG's eXIf chunk (1 when none or unreadable)."""
    if not exif:
        return 1
    try:
        info = Image.Exif()
        info.load(exif)
        return int(info.get(_EXIF_ORIENTATION, 1))
    except _IMAGE_ERRORS:
        return 1
