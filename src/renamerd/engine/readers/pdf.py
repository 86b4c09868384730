"""PDF pages: the text layer through pypdf, and the page's scan image for OCR.

Hostile PDFs: every pypdf call runs under `pypdf.apply_configuration` with decoding limits far
below pypdf's defaults (a flate bomb is cut off at `MAX_STREAM_BYTES` decoded bytes and refused),
images are size-checked from their dictionaries before decoding, and any other parser failure
becomes UnreadableDocument.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pypdf
from PIL import Image
from pypdf.errors import DependencyError, FileNotDecryptedError, LimitReachedError
from pypdf.generic import DictionaryObject, StreamObject

from renamerd.engine.readers.images import check_pixels
from renamerd.engine.types import (
    DocumentTooLarge,
    EngineConfig,
    EngineError,
    UnreadableDocument,
    UnsupportedDocument,
)

log = logging.getLogger(__name__)
# pypdf's warnings and errors about broken files quote the document's bytes, and document
# content must not reach the service's logs: failures surface as UnreadableDocument instead.
logging.getLogger("pypdf").setLevel(logging.CRITICAL)

#: most decoded bytes one PDF stream may produce (content streams, images)
MAX_STREAM_BYTES = 48 * 1024 * 1024
#: a page whose text layer has fewer letters/digits than this is treated as a scan
MIN_TEXT_CHARS = 20
#: a page with fewer letters/digits than this *and* a page-sized image is a scan with a stamp
#: (a DMS header, "received" note, page number) on top: its image is OCR'd as well
STAMP_TEXT_CHARS = 200
#: pixels from which an image counts as a page scan (A4 at about 120 dpi)
SCAN_MIN_PIXELS = 1_400_000

_LIMITS: dict[str, Any] = {
    "maximum_declared_stream_length": MAX_STREAM_BYTES,
    "array_based_stream_maximum_output_length": MAX_STREAM_BYTES,
    "jbig2_maximum_output_length": MAX_STREAM_BYTES,
    "lzw_maximum_output_length": MAX_STREAM_BYTES,
    "run_length_maximum_output_length": MAX_STREAM_BYTES,
    "zlib_maximum_output_length": MAX_STREAM_BYTES,
    "brotli_maximum_output_length": MAX_STREAM_BYTES,
    "image_maximum_buffer_size": MAX_STREAM_BYTES,
    "stream_decoding_work_maximum_length": 2 * MAX_STREAM_BYTES,
    "xfa_decoding_work_maximum_length": 2 * MAX_STREAM_BYTES,
}

T = TypeVar("T")


@contextmanager
def pdf_limits() -> Iterator[None]:
    """Run pypdf under renamerd's decoding limits (context-local; other code is unaffected)."""
    with pypdf.apply_configuration(**_LIMITS):
        yield


def guarded(what: str | list[str], func: Callable[[], T]) -> T:
    """Call `func` under the limits, mapping every parser failure to UnreadableDocument.

    `what` names the step in the error; a one-item list may be updated by `func` as it goes
    through several steps. Raises what `func` raises as EngineError, else UnreadableDocument
    or UnsupportedDocument (a missing decoder)."""
    try:
        with pdf_limits():
            return func()
    except EngineError:
        raise
    except LimitReachedError:
        raise UnreadableDocument(
            f"refused: a PDF stream decodes to more than {MAX_STREAM_BYTES // (1024 * 1024)} MB "
            "(decompression bomb)"
        ) from None
    except DependencyError as exc:  # e.g. a JBIG2 scan without the jbig2dec binary
        raise UnsupportedDocument(f"the PDF needs a decoder that is not installed: {exc}") from None
    except FileNotDecryptedError:
        raise UnreadableDocument("the PDF is password-protected (encrypted)") from None
    except MemoryError:
        raise UnreadableDocument(f"refused: {_step(what)} needs too much memory") from None
    except Exception as exc:  # noqa: BLE001 - hostile input: any parser failure means "broken"
        log.info("pdf parse failure in %s: %s", _step(what), type(exc).__name__)
        raise UnreadableDocument(f"broken PDF ({_step(what)}: {type(exc).__name__})") from None


def _step(what: str | list[str]) -> str:
    return what if isinstance(what, str) else what[0]


class PdfPages:
    """Pages of a PDF: `text(i)` reads the text layer, `scan_image(i)` the page's scan."""

    def __init__(self, data: bytes, config: EngineConfig) -> None:
        self.config = config
        if data.rfind(b"%%EOF", max(0, len(data) - 4096)) < 0:
            raise UnreadableDocument("truncated PDF (no end-of-file marker)")
        step = ["opening"]  # named in the error of a failing step

        def open_count() -> tuple[pypdf.PdfReader, int]:
            reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
            step[0] = "decrypting"
            if reader.is_encrypted and (reader.decrypt("") == pypdf.PasswordType.NOT_DECRYPTED):
                raise UnreadableDocument("the PDF is password-protected (encrypted)")
            step[0] = "counting pages"
            return reader, len(reader.pages)

        # one guarded call for the three steps: each applies pypdf's configuration (~25 us)
        self.reader, self.page_count = guarded(step, open_count)
        if self.page_count > config.max_pages:
            raise DocumentTooLarge(
                f"the PDF has {self.page_count} pages; the limit is {config.max_pages}"
            )
        if self.page_count == 0:
            raise UnreadableDocument("the PDF has no pages")

    def text(self, index: int) -> str:
        """Text layer of page `index` ("" if none). Raises IndexError, UnreadableDocument."""
        if not 0 <= index < self.page_count:
            raise IndexError(index)
        return guarded(f"page {index + 1}", lambda: self.reader.pages[index].extract_text())

    @staticmethod
    def needs_ocr(text: str) -> bool:
        """True when a text layer is too thin to be the page's real text."""
        return _alnum_below(text, MIN_TEXT_CHARS)

    @staticmethod
    def may_be_stamped_scan(text: str) -> bool:
        """True when a text layer is short enough to be a stamp on a scan (check the image)."""
        return _alnum_below(text, STAMP_TEXT_CHARS)

    def largest_image_pixels(self, index: int) -> int:
        """Pixel count of the largest image XObject on page `index`, from its dictionary."""
        page = guarded(f"page {index + 1}", lambda: self.reader.pages[index])
        sizes = guarded(f"page {index + 1} images",
                        lambda: [w * h for _key, w, h in _xobject_images(page)])
        return max(sizes, default=0)

    def scan_image(self, index: int) -> Image.Image | None:
        """The largest image drawn on page `index`, decoded and turned by the page's /Rotate.

        None when the page has no image. Raises DocumentTooLarge (image over max_pixels) or
        UnreadableDocument.
        """
        return guarded(f"page {index + 1} image", lambda: self._scan_image(index))

    def _scan_image(self, index: int) -> Image.Image | None:
        page = self.reader.pages[index]
        best: tuple[int, str | list[str]] | None = None
        for key, width, height in _xobject_images(page):
            check_pixels(width, height, self.config, f"image on page {index + 1}")
            if best is None or width * height > best[0]:
                best = (width * height, key)
        if best is not None:
            img = page.images[best[1]].image
        else:  # inline images (BI ... EI), bounded by the content stream's size
            images = [f.image for f in page.images if f.image is not None]
            img = max(images, key=lambda i: i.width * i.height, default=None)
        if img is None:
            return None
        check_pixels(img.width, img.height, self.config, f"image on page {index + 1}")
        rotation = int(page.rotation or 0) % 360
        return img.rotate(-rotation, expand=True) if rotation else img


def _alnum_below(text: str, limit: int) -> bool:
    count = 0
    for char in text:
        if char.isalnum():
            count += 1
            if count >= limit:
                return False
    return True


def _xobject_images(
    obj: DictionaryObject, ancestors: tuple[str, ...] = (), depth: int = 0
) -> Iterator[tuple[str | list[str], int, int]]:
    """(pypdf image key, width, height) of the image XObjects of a page and its forms."""
    if depth > 5:
        return
    resources = obj.get("/Resources")
    resources = resources.get_object() if resources is not None else None
    if not isinstance(resources, DictionaryObject) or "/XObject" not in resources:
        return
    xobjects = resources["/XObject"].get_object()
    if not isinstance(xobjects, DictionaryObject):
        return
    for name in xobjects:
        entry = xobjects[name].get_object()
        if not isinstance(entry, StreamObject):
            continue
        if entry.get("/Subtype") == "/Image":
            key: str | list[str] = name if not ancestors else [*ancestors, name]
            yield key, int(entry.get("/Width", 0)), int(entry.get("/Height", 0))
        elif entry.get("/Subtype") == "/Form":
            yield from _xobject_images(entry, (*ancestors, name), depth + 1)
