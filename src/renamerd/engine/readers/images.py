"""JPEG, PNG and TIFF pages: pixel limits checked from the header, one page per TIFF frame."""

from __future__ import annotations

import io
import struct
import warnings
import zlib

from PIL import Image, ImageOps, UnidentifiedImageError

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


def ocr_scale(width: int, height: int) -> int:
    """Power-of-two reduction (1, 2 or 4) that keeps the long side at or above OCR_LONG_SIDE."""
    scale = 1
    while scale < 4 and max(width, height) // (scale * 2) >= OCR_LONG_SIDE:
        scale *= 2
    return scale


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
        """Decoded page `index` (0-based), upright per EXIF orientation.

        Raises IndexError past the end, UnreadableDocument if its pixels cannot be decoded.
        """
        if not 0 <= index < self.page_count:
            raise IndexError(index)
        try:
            if self.page_count > 1:
                self.image.seek(index)
            if self.image.format == "JPEG":
                scale = ocr_scale(self.image.width, self.image.height)
                # decode straight to grey, and at 1/2 or 1/4 size when far above OCR needs
                self.image.draft("L", (self.image.width // scale, self.image.height // scale))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                self.image.load()
            # a frame of a multi-page TIFF is copied: the next seek reuses the same object
            frame = self.image.copy() if self.page_count > 1 else self.image
            if frame.getexif().get(_EXIF_ORIENTATION, 1) not in (0, 1):
                return ImageOps.exif_transpose(frame) or frame
            return frame
        except Image.DecompressionBombError:
            raise DocumentTooLarge("the image is over the pixel limit") from None
        except _IMAGE_ERRORS as exc:
            raise UnreadableDocument(f"broken image: {exc}") from None
