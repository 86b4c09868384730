"""Which OCR reads a page: `OcrReader`, one per document, following `EngineConfig.ocr`.

* "tesseract": tesseract only, as before PP-OCR came in: the first page in the primary
  language, read again in the language its text shows, OSD when the reading is weak, a closer
  second reading for small print or when no date was read (engine/ocr/tesseract.py).
* "rapidocr": PP-OCR only (engine/ocr/rapid.py); tesseract is not needed at all.
* "auto" (the default): one tesseract pass first (about a second on an A4 page, and its
  language packs keep every diacritic; read again with the pack of the language the text shows
  when that is another one); where that reading is not good enough for the fields
  (mean word confidence under AUTO_TESSERACT_CONFIDENCE, small print, little text, no date
  on a first page, no total on a first page that reads as a bill or as no kind of paper, or a
  language's second pass that lost a fifth of the first one's text: receipts and photos,
  mostly), PP-OCR reads the page, scaled by the word
  height tesseract measured, and its text is used unless tesseract's scored better; a date
  only tesseract saw is added. Receipts go to PP-OCR too (three point-of-sale cues in
  tesseract's text), and a page shaped like a till roll (short side under 0.6 of the long one)
  is read by PP-OCR first, tesseract only where PP-OCR's reading is weak or shows no date
  (then only tesseract's date lines are added): on real receipts
  PP-OCR's text holds the shop's name and the date far more often (docs/engine-ocr.md).
  Without PP-OCR installed, tesseract's closer readings as in
  "tesseract". The measurements behind this are in docs/engine-ocr.md.
"""

from __future__ import annotations

import logging

from PIL import Image

from renamerd.engine.fields import extract
from renamerd.engine.fields.dates import date_lines
from renamerd.engine.fields.doctype import till_cues
from renamerd.engine.fields.document import Doc
from renamerd.engine.language import detect as detect_language
from renamerd.engine.lexicon import fold
from renamerd.engine.ocr import rapid
from renamerd.engine.ocr.lines import OcrPage
from renamerd.engine.ocr.scripts import pp_ocr_reads
from renamerd.engine.ocr.tesseract import (
    LEXICON_LANGUAGES,
    OcrReading,
    OcrSession,
    OcrUnavailable,
    PageImage,
)
from renamerd.engine.types import EngineConfig, UnreadableDocument, UnsupportedDocument

log = logging.getLogger(__name__)

MODES = ("auto", "rapidocr", "tesseract")
#: a tesseract reading under this mean word confidence (0-100) is read again by PP-OCR
AUTO_TESSERACT_CONFIDENCE = 85.0
#: ... and so is one with this many point-of-sale cues (cashier, change, a time...): a receipt
TILL_CUES = 3
#: a page narrower than this (short side / long side; A4 is 0.71) is a till roll: PP-OCR first
NARROW_RATIO = 0.6
#: PP-OCR's reading of a narrow page is kept without tesseract at this confidence (0-1)
AUTO_RAPID_CONFIDENCE = 0.80
#: a language's second tesseract pass keeping less than this share of the first one's letters
#: and digits sends the page to PP-OCR too
LOST_TEXT = 0.8
#: the types whose first page shows a total
BILLS = ("invoice", "receipt")


class OcrReader:
    """Reads the scanned pages of one document; remembers what it used.

    `backends_used` lists the backend of each page read ("rapidocr", "tesseract"); `languages`
    the tesseract language data used, if any. Not thread-safe: one per document.
    Raises ValueError for an unknown `config.ocr`.
    """

    def __init__(self, config: EngineConfig) -> None:
        if config.ocr not in MODES:
            raise ValueError(f"ocr: '{config.ocr}' is not one of {', '.join(MODES)}")
        self.config = config
        self.backends_used: list[str] = []
        self._tesseract: OcrSession | None = None
        self._pages_read = 0

    @property
    def languages(self) -> str | None:
        """Tesseract language string(s) used so far ("eng", "eng,deu"), None if none."""
        return self._tesseract.languages if self._tesseract is not None else None

    @property
    def tesseract_passes(self) -> int:
        """Tesseract runs made so far (OSD excluded)."""
        return len(self._tesseract.langs_used) if self._tesseract is not None else 0

    def read(self, page: PageImage) -> str:
        """The text of one page (layout kept as lines and blocks).

        Raises UnsupportedDocument when no OCR backend is available, UnreadableDocument on
        a timeout or a broken image. Safe to repeat (reads again).
        """
        self._pages_read += 1
        mode = self.config.ocr
        if mode == "rapidocr":
            if not rapid.available():
                raise UnsupportedDocument(
                    "engine.ocr is \"rapidocr\" but the rapidocr package is not installed")
            self.backends_used.append("rapidocr")
            return _pp_ocr(page).text
        if mode == "tesseract" or not rapid.available():
            return self._tesseract_text(page)
        try:
            session = self._session()
        except UnsupportedDocument:  # no tesseract: PP-OCR alone
            self.backends_used.append("rapidocr")
            return _pp_ocr(page).text
        if _narrow(page):
            return self._pp_ocr_first(session, page)
        plain = session.read(page)
        first = self._in_document_language(session, page, plain)
        if not self._needs_second_reader(first) and not _lost_text(first, plain):
            self.backends_used.append("tesseract")
            return first.text
        return self._better_of(session, page, first)

    @staticmethod
    def _in_document_language(session: OcrSession, page: PageImage,
                              first: OcrReading) -> OcrReading:
        """`first`, or the page read again with the language pack of the language the
        extractors see in its text, when tesseract read it with another one (its own
        stopword guess needs more words): "Krüger", not "Kruger"."""
        language, _scores = detect_language(fold(first.text))
        code = LEXICON_LANGUAGES.get(language or "")
        if code is None or code in first.lang.split("+") or code not in session.candidates:
            return first
        return session.read_in(page, code, first)

    def _needs_second_reader(self, first: OcrReading) -> bool:
        """Tesseract's first reading is not good enough for the fields (see the docstring)."""
        return (first.weak or first.small_print
                or first.confidence < AUTO_TESSERACT_CONFIDENCE
                or (self._pages_read == 1 and not date_lines(first.text))
                or len(till_cues(Doc.from_pages([first.text]))) >= TILL_CUES
                or (self._pages_read == 1 and _without_total(first.text)))

    def _pp_ocr_first(self, session: OcrSession, page: PageImage) -> str:
        """A receipt-shaped page: PP-OCR's reading, unless it is weak and tesseract's scores
        better; a first page whose confident PP-OCR reading shows no date gets the date lines
        of one tesseract pass."""
        reading = _pp_ocr(page)
        if reading.confidence >= AUTO_RAPID_CONFIDENCE and reading.characters >= 40:
            self.backends_used.append("rapidocr")
            if self._pages_read > 1 or date_lines(reading.text):
                return reading.text
            return with_date_lines(reading.text, session.read(page).text)
        first = session.read(page)
        if reading.score() >= _tesseract_score(first):
            self.backends_used.append("rapidocr")
            return with_date_lines(reading.text, first.text)
        self.backends_used.append("tesseract")
        return with_date_lines(self._closer_if_needed(session, page, first), reading.text)

    def _better_of(self, session: OcrSession, page: PageImage, first: OcrReading) -> str:
        """PP-OCR's reading of the page, unless tesseract's scored better (then tesseract's
        closer readings, as without PP-OCR); a date only the other one saw is added."""
        if not pp_ocr_reads(first.lang) and first.confidence >= AUTO_TESSERACT_CONFIDENCE:
            # a script PP-OCR's models do not know (a doubtful reading in it is compared all
            # the same: OSD names Arabic for a faint French invoice, which PP-OCR reads well)
            self.backends_used.append("tesseract")
            return self._closer_if_needed(session, page, first)
        reading = _pp_ocr(page, first.word_height)
        if reading.score() >= _tesseract_score(first):
            self.backends_used.append("rapidocr")
            return with_date_lines(reading.text, first.text)
        self.backends_used.append("tesseract")
        return with_date_lines(self._closer_if_needed(session, page, first), reading.text)

    def _session(self) -> OcrSession:
        if self._tesseract is None:
            try:
                self._tesseract = OcrSession(self.config)
            except OcrUnavailable as exc:
                raise UnsupportedDocument(str(exc)) from None
        return self._tesseract

    def _tesseract_text(self, page: PageImage) -> str:
        session = self._session()
        self.backends_used.append("tesseract")
        return self._closer_if_needed(session, page, session.read(page))

    def _closer_if_needed(self, session: OcrSession, page: PageImage,
                          reading: OcrReading) -> str:
        """Tesseract's text of a page, with a closer second reading where the first one is
        of small print or shows no date (first page only)."""
        if reading.small_print:
            # print too small to read digits reliably: the enlarged reading is the page's text
            # (on the SROIE receipts, 2x reads 5 of the 9 dates the first reading got wrong,
            # and names as well); the first reading's date lines only when it shows none
            closer = session.read_closer(page, reading)
            return with_date_lines(closer.text, reading.text)
        if self._pages_read > 1 or date_lines(reading.text):
            return reading.text
        # no date on the first page: read it once more as one block of text (--psm 6), and
        # add the date lines found (the first reading keeps the layout and the names); on the
        # SROIE receipts it found 7 of 15 missed dates, e.g. "Date: 27/07/17" beside "Slip:"
        closer = session.read_closer(page, reading, psm="6")
        if date_lines(closer.text):
            return with_date_lines(reading.text, closer.text)
        # still none: sparse text (--psm 11: words anywhere, in no order) finds a date
        # standing apart from every block
        sparse = session.read_closer(page, reading, psm="11")
        return with_date_lines(reading.text, sparse.text)


def _without_total(text: str) -> bool:
    """`text` reads as an invoice or a receipt but shows no total: the reading lost the
    page's middle (a photo's blurred table of items), though what it kept read confidently;
    or it reads as no kind of paper and shows no total (a photo whose shadowed top, the
    shop's name and the slip's title, tesseract lost)."""
    values = extract([text]).values
    return values.get("document_type") in (*BILLS, "other") and "amount" not in values


def _lost_text(reading: OcrReading, plain: OcrReading) -> bool:
    """Reading the page again in its language's pack lost a fifth of what the first pass read
    or more (a photo's column in a shadow): tesseract is unsure of this page."""
    if reading is plain:
        return False
    return _characters(reading.text) < LOST_TEXT * _characters(plain.text)


def _characters(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


def _tesseract_score(reading: OcrReading) -> float:
    """A tesseract reading on PP-OCR's scale: characters times confidence (0-1)."""
    return _characters(reading.text) * max(reading.confidence, 0.0) / 100


def with_date_lines(text: str, other: str) -> str:
    """`text`, and when it shows no date, the lines of `other` that do (at its end)."""
    if date_lines(text):
        return text
    found = date_lines(other)
    return text + "\n\n" + "\n".join(found) if found else text


def _pp_ocr(page: PageImage, word_height: float = 0.0) -> OcrPage:
    """PP-OCR's reading of a page. A failure inside the backend (ONNX Runtime, OpenCV) on an
    odd page becomes UnreadableDocument with its reason, never a crash of the rename."""
    image = page.prepared()
    try:
        return rapid.read(image, word_height)
    except rapid.backend_errors() as exc:
        log.warning("PP-OCR failed on a %dx%d page: %s", image.width, image.height, exc)
        raise UnreadableDocument(f"OCR failed: {exc}") from None


def _narrow(page: PageImage) -> bool:
    """The page is shaped like a till roll (a receipt): much longer than wide."""
    width, height = page.prepared().size
    return min(width, height) < NARROW_RATIO * max(width, height)


def page_of(image: Image.Image | PageImage) -> PageImage:
    """`image` as a PageImage (decoded images are wrapped; nothing is copied)."""
    return image if isinstance(image, PageImage) else PageImage(lambda: image)
