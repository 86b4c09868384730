"""Bytes -> page texts: `open_text(data, config)` gives a lazy, cached `DocumentText`.

* PDF: the text layer (pypdf); a page with (almost) no text layer is OCR'd from its scan image,
  and so is a page-sized scan under a short text layer (a stamp: DMS header, page number).
* JPEG/PNG/TIFF: OCR, one page per TIFF frame.
* DOCX/XLSX/PPTX: their XML (see readers/office.py).
* DOC/XLS/PPT: converted to PDF by LibreOffice when installed (readers/legacy.py).

Pages are read only when asked for, so a caller that needs page 1 never pays for OCR of page 2.
At most `config.ocr_max_pages` pages of one document are OCR'd; later pages that would need OCR
read as "" (their text layer, if any, is still returned).

Text is capped here for every reader: a page keeps its first `config.max_page_chars`
characters, a document its first `config.max_document_chars`; once those are used up, later
pages read as "" without being read at all (the field extractors' work grows with the text).
"""

from __future__ import annotations

from PIL import Image

from renamerd.engine.fields.dates import date_lines
from renamerd.engine.formats import (
    IMAGE_KINDS,
    LEGACY_OFFICE_KINDS,
    OFFICE_XML_KINDS,
    DocumentFormat,
    check_size,
    detect,
)
from renamerd.engine.readers.images import ImagePages
from renamerd.engine.readers.legacy import convert_to_pdf
from renamerd.engine.readers.ocr import OcrSession, OcrUnavailable, PageImage
from renamerd.engine.readers.office import OfficePages
from renamerd.engine.readers.pdf import SCAN_MIN_PIXELS, PdfPages
from renamerd.engine.types import EngineConfig, UnreadableDocument, UnsupportedDocument

__all__ = ["DocumentText", "open_text"]


class DocumentText:
    """The text of a document, page by page, read lazily and cached.

    Attributes: `format`, `page_count`, `ocr_used` (True once any page came from OCR),
    `pages_read` (pages extracted so far), `ocr_pages` (pages OCR'd so far), `ocr_languages`
    (tesseract language string(s) used, comma-separated when a page was re-read in a second
    language, else None).
    Not thread-safe: one instance per document and caller.
    """

    def __init__(self, fmt: DocumentFormat, source: PdfPages | ImagePages | OfficePages,
                 config: EngineConfig) -> None:
        self.format = fmt
        self.page_count: int = source.page_count
        self.ocr_used = False
        self._source = source
        self._config = config
        self._cache: dict[int, str] = {}
        self._ocr: OcrSession | None = None
        self._ocr_pages = 0
        self._chars_left = config.max_document_chars

    @property
    def pages_read(self) -> int:
        """Number of distinct pages extracted so far."""
        return len(self._cache)

    @property
    def ocr_pages(self) -> int:
        """Number of pages OCR'd so far (each costs a tesseract run of about a second)."""
        return self._ocr_pages

    @property
    def ocr_languages(self) -> str | None:
        """Tesseract language(s) used so far, e.g. "eng" or "eng,deu"; None without OCR."""
        return self._ocr.languages if self._ocr is not None else None

    def page(self, index: int) -> str:
        """Text of page `index` (0-based), read on first use and cached.

        Raises IndexError past the end (or for a negative index), UnreadableDocument /
        DocumentTooLarge for a page that is broken or hostile. Repeating is free (cached).
        """
        if not 0 <= index < self.page_count:
            raise IndexError(f"page {index} of a {self.page_count}-page document")
        if index not in self._cache:
            text = self._clip(self._read(index)) if self._chars_left > 0 else ""
            self._chars_left -= len(text)
            self._cache[index] = text
        return self._cache[index]

    def _clip(self, text: str) -> str:
        """`text` cut to what a page may keep of the document's remaining share."""
        return text[:min(self._config.max_page_chars, self._chars_left)]

    def text(self, max_pages: int | None = None) -> str:
        """Pages 0..max_pages-1 (default: all) joined by form feeds; reads them as needed."""
        count = self.page_count if max_pages is None else min(max_pages, self.page_count)
        return "\f".join(self.page(i) for i in range(count))

    def _read(self, index: int) -> str:
        source = self._source
        if isinstance(source, OfficePages):
            return source.text(index)
        if isinstance(source, PdfPages):
            layer = self._clip(source.text(index))
            if not self._ocr_allowed() or not source.may_be_stamped_scan(layer):
                return layer
            if not source.needs_ocr(layer) and (
                    source.largest_image_pixels(index) < SCAN_MIN_PIXELS):
                return layer  # a short born-digital page, not a scan with a stamp
            image = source.scan_image(index)
            if image is None:
                return layer
            return _merge(layer, self._run_ocr(image))
        if not self._ocr_allowed():
            return ""
        native = source.native_file() if index == 0 else None
        return self._run_ocr(PageImage(lambda: source.image_of(index), native))

    def _ocr_allowed(self) -> bool:
        return self._ocr_pages < self._config.ocr_max_pages

    def _run_ocr(self, image: Image.Image | PageImage) -> str:
        if self._ocr is None:
            try:
                self._ocr = OcrSession(self._config)
            except OcrUnavailable as exc:
                raise UnsupportedDocument(str(exc)) from None
        self._ocr_pages += 1
        page = image if isinstance(image, PageImage) else PageImage(lambda: image)
        reading = self._ocr.read(page)
        self.ocr_used = True
        first = self._clip(reading.text)
        if reading.small_print:
            # print too small to read digits reliably: the enlarged reading is the page's text
            # (on the SROIE receipts, 2x reads 5 of the 9 dates the first reading got wrong,
            # and names as well); the first reading's date lines only when it shows none
            enlarged = self._ocr.read_closer(page, reading)
            return _with_date_lines(self._clip(enlarged.text), first)
        if self._ocr_pages > 1 or date_lines(first):
            return first
        # the first OCR'd page shows no date: read it once more, closer, and add the date lines
        # that reading finds (only those: the first reading keeps the layout and the names)
        # as one block of text (--psm 6): on the SROIE receipts it found 7 of 15 missed dates
        # (automatic layout 6, --psm 4 5), e.g. "Date: 27/07/17" printed beside "Slip: ..."
        block = self._clip(self._ocr.read_closer(page, reading, psm="6").text)
        if date_lines(block):
            return _with_date_lines(first, block)
        # still none: read as sparse text (--psm 11: words found anywhere, in no order), which
        # finds a date standing apart from every block (1 of the 4 receipt dates left)
        sparse = self._ocr.read_closer(page, reading, psm="11")
        return _with_date_lines(first, self._clip(sparse.text))


def _with_date_lines(text: str, other: str) -> str:
    """`text`, and when it shows no date, the lines of `other` that do (at its end)."""
    if date_lines(text):
        return text
    found = date_lines(other)
    return text + "\n\n" + "\n".join(found) if found else text


def _merge(layer: str, ocr_text: str) -> str:
    """A scan's OCR text, with the text layer first unless the OCR already holds it."""
    layer_words = " ".join(layer.split())
    if not layer_words or layer_words in " ".join(ocr_text.split()):
        return ocr_text
    if not ocr_text.strip():
        return layer
    return layer.rstrip() + "\n\n" + ocr_text


def open_text(data: bytes, config: EngineConfig, fmt: DocumentFormat | None = None) -> DocumentText:
    """Open `data` for reading; nothing beyond headers and directories is decoded yet.

    `fmt` skips detection when the caller already ran `detect`. Raises UnsupportedDocument,
    DocumentTooLarge (bytes, pages or pixels over the limits), UnreadableDocument (broken,
    encrypted, bomb). Safe to repeat.
    """
    check_size(len(data), config)
    if fmt is None:
        fmt = detect(data, config)
    source: PdfPages | ImagePages | OfficePages
    if fmt.kind == "pdf":
        source = PdfPages(data, config)
    elif fmt.kind in IMAGE_KINDS:
        source = ImagePages(data, config)
    elif fmt.kind in OFFICE_XML_KINDS:
        source = OfficePages(data, fmt.kind, config)
    elif fmt.kind in LEGACY_OFFICE_KINDS:
        pdf = convert_to_pdf(data, fmt.kind, config)
        source = PdfPages(pdf, config)  # the text is the PDF's; the format stays the original
    else:
        raise UnsupportedDocument(f"no reader for {fmt.kind}")
    if source.page_count < 1:
        raise UnreadableDocument("the document has no pages")
    return DocumentText(fmt, source, config)



