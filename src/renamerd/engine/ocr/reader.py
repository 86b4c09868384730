"""Which OCR reads a page: `OcrReader`, one per document, following `EngineConfig.ocr`.

* "tesseract": tesseract only, as before PP-OCR came in: the first page in the primary
  language, read again in the language its text shows, OSD when the reading is weak, a closer
  second reading for small print or when no date was read (engine/ocr/tesseract.py).
* "rapidocr": PP-OCR only (engine/ocr/rapid.py); tesseract is not needed at all.
* "auto" (the default): PP-OCR first; tesseract too, and the better reading kept, only where
  PP-OCR's reading of the page is weak (little text, or low confidence), or PP-OCR is not
  installed. The measurements behind this are in docs/engine-ocr.md.
"""

from __future__ import annotations

from PIL import Image

from renamerd.engine.fields.dates import date_lines
from renamerd.engine.ocr import rapid
from renamerd.engine.ocr.lines import OcrPage
from renamerd.engine.ocr.tesseract import OcrReading, OcrSession, OcrUnavailable, PageImage
from renamerd.engine.types import EngineConfig, UnsupportedDocument

MODES = ("auto", "rapidocr", "tesseract")
#: a PP-OCR reading under this confidence (0-1, per character) is checked with tesseract
AUTO_MIN_CONFIDENCE = 0.80
#: ... and so is one with fewer letters and digits than this
AUTO_MIN_CHARACTERS = 40


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

    def read(self, page: PageImage) -> str:
        """The text of one page (layout kept as lines and blocks).

        Raises UnsupportedDocument when no OCR backend is available, UnreadableDocument on
        a timeout or a broken image. Safe to repeat (reads again).
        """
        self._pages_read += 1
        mode = self.config.ocr
        if mode == "tesseract" or (mode == "auto" and not rapid.available()):
            return self._tesseract_text(page)
        if not rapid.available():
            raise UnsupportedDocument(
                "engine.ocr is \"rapidocr\" but the rapidocr package is not installed")
        reading = rapid.read(page.prepared())
        if mode == "rapidocr" or not self._weak(reading):
            self.backends_used.append("rapidocr")
            return reading.text
        return self._better_of(reading, page)

    @staticmethod
    def _weak(reading: OcrPage) -> bool:
        return (reading.confidence < AUTO_MIN_CONFIDENCE
                or reading.characters < AUTO_MIN_CHARACTERS)

    def _better_of(self, reading: OcrPage, page: PageImage) -> str:
        """PP-OCR's reading or tesseract's, whichever read more, more surely."""
        try:
            session = self._session()
        except UnsupportedDocument:
            self.backends_used.append("rapidocr")
            return reading.text
        other = session.read(page)
        if _tesseract_score(other) > reading.score():
            self.backends_used.append("tesseract")
            return self._closer_if_needed(session, page, other)
        self.backends_used.append("rapidocr")
        return reading.text

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


def _tesseract_score(reading: OcrReading) -> float:
    """A tesseract reading on PP-OCR's scale: characters times confidence (0-1)."""
    characters = sum(ch.isalnum() for ch in reading.text)
    return characters * max(reading.confidence, 0.0) / 100


def with_date_lines(text: str, other: str) -> str:
    """`text`, and when it shows no date, the lines of `other` that do (at its end)."""
    if date_lines(text):
        return text
    found = date_lines(other)
    return text + "\n\n" + "\n".join(found) if found else text


def page_of(image: Image.Image | PageImage) -> PageImage:
    """`image` as a PageImage (decoded images are wrapped; nothing is copied)."""
    return image if isinstance(image, PageImage) else PageImage(lambda: image)
