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

from renamerd.engine.formats import (
    IMAGE_KINDS,
    LEGACY_OFFICE_KINDS,
    OFFICE_XML_KINDS,
    DocumentFormat,
    check_size,
    detect,
)
from renamerd.engine.ocr.reader import OcrReader, page_of
from renamerd.engine.ocr.tesseract import PageImage
from renamerd.engine.readers.einvoice import EInvoice, parse_einvoice
from renamerd.engine.readers.images import ImagePages
from renamerd.engine.readers.legacy import convert_to_pdf
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
        self._ocr: OcrReader | None = None
        self._ocr_indexes: set[int] = set()  # the pages read by OCR
        self._chars_left = config.max_document_chars

    @property
    def pages_read(self) -> int:
        """Number of distinct pages extracted so far."""
        return len(self._cache)

    @property
    def ocr_pages(self) -> int:
        """Number of pages OCR'd so far (each costs a tesseract run of about a second)."""
        return len(self._ocr_indexes)

    @property
    def ocr_languages(self) -> str | None:
        """Tesseract language(s) used so far, e.g. "eng" or "eng,deu"; None without it."""
        return self._ocr.languages if self._ocr is not None else None

    @property
    def ocr_backends(self) -> list[str]:
        """The OCR backend of each page OCR'd so far ("rapidocr" or "tesseract")."""
        return list(self._ocr.backends_used) if self._ocr is not None else []

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

    def layout_page(self, index: int) -> str | None:
        """Page `index` of a PDF's text layer in visual order (PdfPages.layout_text), for a
        field the reading order of the layer hid; None for other formats and for pages read
        by OCR. Not cached; counts against no share (it is a second view of the same text).
        Raises like `page`."""
        source = self._source
        if not isinstance(source, PdfPages) or index in self._ocr_indexes:
            return None
        return source.layout_text(index)[:self._config.max_page_chars]

    def einvoice(self) -> EInvoice | None:
        """The e-invoice a PDF carries as XML (ZUGFeRD, Factur-X, XRechnung;
        readers/einvoice.py), or None (other formats, no or unreadable attachment). Never
        raises. Not cached."""
        if not isinstance(self._source, PdfPages):
            return None
        for xml in self._source.invoice_xmls():
            found = parse_einvoice(xml)
            if found is not None:
                return found
        return None

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
            if source.words_apart(layer):
                layer = self._clip(source.rows_text(index))
            if not self._ocr_allowed() or not source.may_be_stamped_scan(layer):
                return layer
            if not source.needs_ocr(layer) and (
                    source.largest_image_pixels(index) < SCAN_MIN_PIXELS):
                return layer  # a short born-digital page, not a scan with a stamp
            image = source.scan_image(index)
            if image is None:
                return layer
            return _merge(layer, self._run_ocr(index, image))
        if not self._ocr_allowed():
            return ""
        native = source.native_file() if index == 0 else None
        return self._run_ocr(index, PageImage(lambda: source.image_of(index), native))

    def _ocr_allowed(self) -> bool:
        return len(self._ocr_indexes) < self._config.ocr_max_pages

    def _run_ocr(self, index: int, image: Image.Image | PageImage) -> str:
        if self._ocr is None:
            self._ocr = OcrReader(self._config)
        self._ocr_indexes.add(index)
        text = self._ocr.read(page_of(image))
        self.ocr_used = True
        return self._clip(text)


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



