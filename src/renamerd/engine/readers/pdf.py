"""PDF pages: the text layer through pypdf, and the page's scan image for OCR.

Hostile PDFs: every pypdf call runs under `pypdf.apply_configuration` with decoding limits far
below pypdf's defaults (a flate bomb is cut off at `MAX_STREAM_BYTES` decoded bytes and refused),
the page count is checked before the page tree is walked (and the walk is capped near
`max_pages`), a page's text is extracted only when what pypdf would parse for it (content,
forms, font maps: readers/pdf_cost.py) is within `max_page_content_bytes`, images are
size-checked from their dictionaries before decoding, and any other parser failure becomes
UnreadableDocument.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pypdf
from PIL import Image
from pypdf.errors import DependencyError, FileNotDecryptedError, LimitReachedError
from pypdf.generic import DictionaryObject, StreamObject

from renamerd.engine.readers.einvoice import KNOWN_NAMES, MAX_XML_BYTES
from renamerd.engine.readers.images import check_pixels
from renamerd.engine.readers.pdf_cost import OverLimit, PageCost, page_cost
from renamerd.engine.readers.pdf_spacing import blanks_are_tabs, joined_words, tabs_as_blanks
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
#: a text layer of at least this many lines, this share of them a single word, was written one
#: word at a time (each word placed on its own): it is read again in visual order
WORDS_APART_LINES, WORDS_APART_SHARE = 30, 0.7
#: attachments whose names are looked at for an e-invoice's XML (a PDF may attach thousands
#: of files: their names cost little, their contents are decoded only for the XML files)
MAX_ATTACHMENTS = 1000
#: attached XML files decoded and parsed at most, the standards' names first
MAX_XML_FILES = 3
#: pixels from which an image counts as a page scan (A4 at about 120 dpi)
SCAN_MIN_PIXELS = 1_400_000
#: characters pypdf may produce per byte of page content, on average over the page's limit
#: (a font's ToUnicode map can turn one byte into 256 characters; ligatures give 2 or 3)
MAX_TEXT_EXPANSION = 8

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
    except LimitReachedError as exc:
        raise _limit_error(_step(what), exc) from None
    except DependencyError as exc:  # e.g. a JBIG2 scan without the jbig2dec binary
        raise UnsupportedDocument(f"the PDF needs a decoder that is not installed: {exc}") from None
    except FileNotDecryptedError:
        raise UnreadableDocument("the PDF is password-protected (encrypted)") from None
    except MemoryError:
        raise UnreadableDocument(f"refused: {_step(what)} needs too much memory") from None
    except Exception as exc:  # noqa: BLE001 - hostile input: any parser failure means "broken"
        # (the parser's exception goes to the log, for diagnosis; the user is told what failed)
        log.info("pdf parse failure in %s: %s", _step(what), type(exc).__name__)
        raise UnreadableDocument(
            f"broken PDF: its structure is damaged ({_step(what)} failed)") from None


def _step(what: str | list[str]) -> str:
    return what if isinstance(what, str) else what[0]


def _limit_error(step: str, exc: LimitReachedError) -> EngineError:
    """The refusal for one of pypdf's limits, named for what it guards."""
    reason = str(exc).lower()
    if "page tree" in reason:
        return DocumentTooLarge("refused: the PDF's page tree holds more pages than the limit")
    if "token" in reason or "array" in reason or "dictionary" in reason:
        return UnreadableDocument(
            f"refused: the PDF holds an array, dictionary or stream of more items than "
            f"renamerd parses ({step})")
    return UnreadableDocument(
        f"refused: a PDF stream decodes to more than {MAX_STREAM_BYTES // (1024 * 1024)} MB "
        "(decompression bomb)"
    )


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f}".rstrip("0").rstrip(".")


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
            self._check_declared_pages(reader)
            # the walk of the tree stops a little past the limit whatever /Count claims
            # (a tree may name one page a million times in a few KB)
            walk = config.max_pages + 64
            with pypdf.apply_configuration(page_tree_maximum_entries=2 * walk,
                                           page_tree_maximum_page_entries=64 * walk):
                return reader, len(reader.pages)

        # one guarded call for the three steps: each applies pypdf's configuration (~25 us)
        self.reader, self.page_count = guarded(step, open_count)
        if self.page_count > config.max_pages:
            raise DocumentTooLarge(
                f"the PDF has {self.page_count} pages; the limit is {config.max_pages}"
            )
        if self.page_count == 0:
            raise UnreadableDocument("the PDF has no pages")

    def _check_declared_pages(self, reader: pypdf.PdfReader) -> None:
        """Refuse a PDF whose page tree declares more pages than the limit, before walking
        it (the walk of 100,000 pages costs 10 s and 300 MB)."""
        root = reader.trailer["/Root"].get_object()
        pages = root.get("/Pages") if isinstance(root, DictionaryObject) else None
        pages = pages.get_object() if pages is not None else None
        declared = pages.get("/Count") if isinstance(pages, DictionaryObject) else None
        if isinstance(declared, int) and declared > self.config.max_pages:
            raise DocumentTooLarge(
                f"the PDF has {declared} pages; the limit is {self.config.max_pages}")

    def text(self, index: int) -> str:
        """Text layer of page `index` ("" if none), letter-spaced and small-capital words
        written whole (pdf_spacing.py).

        Raises IndexError; DocumentTooLarge when extracting it would parse more than
        `config.max_page_content_bytes` (see `content_cost`); UnreadableDocument.
        """
        return joined_words(self._extract(index))

    def invoice_xmls(self) -> Iterator[bytes]:
        """The attached XML files that may be the PDF's e-invoice (ZUGFeRD, Factur-X,
        XRechnung), the names those standards give first ("factur-x.xml"...), then any other
        ".xml", at most MAX_XML_FILES of them. Looks at the names of the first MAX_ATTACHMENTS
        attachments only and decodes none whose declared or decoded size is over
        einvoice.MAX_XML_BYTES. Never raises: a broken attachment ends the search (the pages
        are read as usual). Safe to repeat."""
        try:
            with pdf_limits():
                yield from _invoice_xmls(self.reader)
        except Exception as exc:  # noqa: BLE001 - hostile input: the attachment is ignored
            log.info("pdf attachment not read: %s", type(exc).__name__)

    def layout_text(self, index: int) -> str:
        """Text layer of page `index` in visual order (pypdf's layout mode: rows as they
        stand on the page, label and value side by side), each row stripped. Same limits and
        errors as `text`; a few ms more per page."""
        text = tabs_as_blanks(self._extract(index, extraction_mode="layout"))
        return "\n".join(row.strip() for row in text.splitlines() if row.strip())

    def _extract(self, index: int, **options: str) -> str:
        if not 0 <= index < self.page_count:
            raise IndexError(index)
        self.content_cost(index)
        return guarded(f"page {index + 1}",
                       lambda: self.reader.pages[index].extract_text(**options))  # type: ignore[arg-type]

    def content_cost(self, index: int) -> PageCost:
        """What extracting page `index`'s text would parse (readers/pdf_cost.py).

        Raises DocumentTooLarge over `config.max_page_content_bytes` (or when its fonts would
        turn that into more than MAX_TEXT_EXPANSION characters a byte), UnreadableDocument
        for forms that draw themselves or nest too deep. Cheap: decodes, never parses.
        """
        limit = self.config.max_page_content_bytes
        where = f"page {index + 1} of the PDF"

        def measure() -> PageCost | OverLimit:
            try:
                return page_cost(self.reader.pages[index], limit)
            except OverLimit as exc:
                return exc

        cost = guarded(f"page {index + 1}", measure)
        if isinstance(cost, OverLimit):
            if str(cost):
                raise UnreadableDocument(f"refused: {where}: {cost}")
            raise DocumentTooLarge(
                f"{where} holds more than {_mb(limit)} MB of content (text and drawing "
                f"instructions, counting each form it draws); the limit is {_mb(limit)} MB")
        if cost.content_bytes * cost.expansion > MAX_TEXT_EXPANSION * limit:
            raise DocumentTooLarge(
                f"{where}: its fonts turn one byte of text into up to {cost.expansion} "
                f"characters, more than {_mb(MAX_TEXT_EXPANSION * limit)} million characters "
                "in all")
        return cost

    def rows_text(self, index: int) -> str:
        """Text layer of page `index` in visual order (`layout_text`), a wide gap between two
        parts of a row written " | " as OCR writes a column break. Same limits and errors."""
        return _WIDE_GAP.sub(" | ", self.layout_text(index))

    @staticmethod
    def words_apart(text: str) -> bool:
        """True when a text layer holds one word a line (WORDS_APART_*), or its words stand
        tabs apart (`blanks_are_tabs`: Debian's wkhtmltopdf draws each glyph on its own, a blank
        as a tab): its producer placed each word on its own, and pypdf's plain reading loses
        the rows."""
        if blanks_are_tabs(text):
            return True
        lines = text.split("\n", WORDS_APART_LINES * 10)[:WORDS_APART_LINES * 10]
        lines = [line for line in lines if line.strip()]
        if len(lines) < WORDS_APART_LINES:
            return False
        single = sum(1 for line in lines if " " not in line.strip())
        return single >= WORDS_APART_SHARE * len(lines)

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
                        lambda: [w * h for _key, w, h, _image in _xobject_images(page)])
        return max(sizes, default=0)

    def scan_image(self, index: int) -> Image.Image | None:
        """The largest image drawn on page `index`, decoded and turned by the page's /Rotate.

        None when the page has no image. Raises DocumentTooLarge (image over max_pixels) or
        UnreadableDocument.
        """
        return guarded(f"page {index + 1} image", lambda: self._scan_image(index))

    def _scan_image(self, index: int) -> Image.Image | None:
        page = self.reader.pages[index]
        best: tuple[int, str | list[str], StreamObject] | None = None
        for key, width, height, stream in _xobject_images(page):
            check_pixels(width, height, self.config, f"image on page {index + 1}")
            if best is None or width * height > best[0]:
                best = (width * height, key, stream)
        if best is not None:
            img = page.images[best[1]].image
            # pypdf keeps the decoded pixels with the stream for the reader's life: a copy of
            # the image per scanned page read (46 MB for an A4 page at 600 dpi)
            if hasattr(best[2], "decoded_self"):
                best[2].decoded_self = None
        else:  # inline images (BI ... EI): one decoded at a time, the largest kept
            img = None
            for item in page.images:
                candidate = item.image
                if candidate is not None and (
                        img is None or candidate.width * candidate.height > img.width * img.height):
                    img = candidate
        if img is None:
            return None
        check_pixels(img.width, img.height, self.config, f"image on page {index + 1}")
        rotation = int(page.rotation or 0) % 360
        turn = _TURNS.get(rotation)
        if turn is not None:  # (a transpose: a copy, but no resampling)
            return img.transpose(turn)
        return img.rotate(-rotation, expand=True) if rotation else img


_WIDE_GAP = re.compile(r" {8,}")


def _invoice_xmls(reader: pypdf.PdfReader) -> Iterator[bytes]:
    named = [f for _, f in zip(range(MAX_ATTACHMENTS), reader.attachment_list, strict=False)
             if f.name.lower().endswith(".xml")]
    named.sort(key=lambda f: f.name.lower() not in KNOWN_NAMES)
    for attached in named[:MAX_XML_FILES]:
        stream = attached._embedded_file  # (pypdf's own accessor; no public one gives the stream)
        declared = max(int(attached.size or 0), int(stream.get("/Length", 0) or 0))
        if declared > MAX_XML_BYTES:
            log.info("pdf attachment not read: declared over %d bytes", MAX_XML_BYTES)
            continue
        data = attached.content
        if len(data) <= MAX_XML_BYTES:
            yield bytes(data)


def _alnum_below(text: str, limit: int) -> bool:
    count = 0
    for char in text:
        if char.isalnum():
            count += 1
            if count >= limit:
                return False
    return True


_TURNS = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180,
          270: Image.Transpose.ROTATE_90}


def _xobject_images(
    obj: DictionaryObject, ancestors: tuple[str, ...] = (), depth: int = 0,
    seen: set[int] | None = None,
) -> Iterator[tuple[str | list[str], int, int, StreamObject]]:
    """(pypdf image key, width, height, stream) of the image XObjects of a page and its forms.

    Each form is looked into once, however many names lead to it (forms naming one form a
    hundred times, five deep, would be 10^10 walks)."""
    if depth > 5:
        return
    seen = set() if seen is None else seen
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
            yield key, int(entry.get("/Width", 0)), int(entry.get("/Height", 0)), entry
        elif entry.get("/Subtype") == "/Form" and id(entry) not in seen:
            seen.add(id(entry))
            yield from _xobject_images(entry, (*ancestors, name), depth + 1, seen)
