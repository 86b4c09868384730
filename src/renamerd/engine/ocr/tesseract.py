"""Tesseract OCR for one page image: language choice, rotation, timeout.

Strategy (measured in bench/engine.py; see the README "Formats and limits"):

* Language data is what `tesseract --list-langs` reports (cached per process) intersected with
  `EngineConfig.ocr_languages`, or with the lexicon languages when that is empty.
* Tesseract gets slower with every language loaded at once, so a document's first OCR'd page is
  read with one primary language (the first configured one, else ``eng``). Its text is then
  language-guessed (stopwords, diacritics folded); when another installed language is clearly
  more likely, that page is read again with it, and the document's later pages use it directly.
* Rotation and script: only when a pass gives little or low-confidence text, tesseract's OSD is
  asked for the page's orientation and script; the page is turned and read again, and on a
  document's first page read again with the packs of a non-Latin script OSD names (Japanese,
  Chinese, Korean, Arabic, Hindi: scripts.py); the better reading is kept.
* Every tesseract run has `EngineConfig.ocr_timeout_s`.
* A closer second reading (`OcrSession.read_closer`) is asked for by the caller only when the
  first one is of small print (`OcrReading.small_print`) or lacks a field (text.py: no date):
  the page enlarged 2x when its text is small (small print: automatic layout, which keeps the
  names right; no date: `--psm 6`, one block of text, which reads a date beside other columns),
  else read as a single column of variable-size text (`--psm 4`, how receipts are printed).
"""

from __future__ import annotations

import csv
import functools
import io
import math
import os
import shutil
import statistics
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from PIL import Image

from renamerd.engine.ocr import children
from renamerd.engine.ocr.lines import OcrLine, layout_text
from renamerd.engine.ocr.scripts import latin, parse_osd, script_pack
from renamerd.engine.readers.images import ocr_scale, reduce_grey, to_grey
from renamerd.engine.readers.langid import guess_language
from renamerd.engine.types import EngineConfig, EngineError, UnreadableDocument

#: ISO 639-1 codes of the lexicon languages -> tesseract codes
LEXICON_LANGUAGES: dict[str, str] = {
    "en": "eng", "de": "deu", "fr": "fra", "es": "spa", "it": "ita", "pt": "por", "nl": "nld",
    "pl": "pol", "sv": "swe", "da": "dan", "no": "nor", "fi": "fin", "cs": "ces", "tr": "tur",
    "id": "ind", "ja": "jpn", "zh": "chi_sim", "ko": "kor", "ar": "ara", "hi": "hin",
}
#: the output-language codes of the API that name a tesseract pack the lexicon codes do not
OTHER_LANGUAGES: dict[str, str] = {"zh-Hans": "chi_sim", "zh-Hant": "chi_tra", "pt-BR": "por"}


def tesseract_code(code: str) -> str:
    """The tesseract pack of an ISO or API language code ("de", "zh-Hant"); other codes are
    taken as tesseract codes already ("deu")."""
    return LEXICON_LANGUAGES.get(code) or OTHER_LANGUAGES.get(code, code)
#: a reading with fewer words or a lower mean confidence than this triggers the OSD check
MIN_WORDS = 8
MIN_CONFIDENCE = 60.0
#: print this small (median word height in pixels, about an x-height of 10 px: tesseract's
#: documented limit for accurate reading) is always read again, closer (see text.py)
SMALL_PRINT_PX = 14
#: the closer reading enlarges pages whose words are under this height (pixels, median) ...
SMALL_TEXT_PX = 40
#: ... by this factor, unless the long side would exceed CLOSER_MAX_SIDE
CLOSER_SCALE = 2
CLOSER_MAX_SIDE = 6000
#: page segmentation of the closer reading: one column of text of variable sizes
CLOSER_PSM = "4"


class OcrUnavailable(EngineError):
    """Tesseract is not installed or has no language data."""


class OcrTimeout(UnreadableDocument):
    """A tesseract run took longer than `EngineConfig.ocr_timeout_s` and was stopped."""


@dataclass(frozen=True)
class OcrReading:
    """One tesseract reading of a page: its text, language, mean word confidence (0-100),
    number of words and the clockwise rotation (degrees) applied before reading."""

    text: str
    lang: str
    confidence: float
    words: int
    rotation: int = 0
    word_height: float = 0.0  # median height of the words, pixels of the image read

    @property
    def small_print(self) -> bool:
        """The words are too small for tesseract to read digits reliably."""
        return 0 < self.word_height < SMALL_PRINT_PX

    @property
    def weak(self) -> bool:
        return self.words < MIN_WORDS or self.confidence < MIN_CONFIDENCE

    def score(self) -> float:
        return self.words * max(self.confidence, 0.0)


def tesseract_cmd() -> str:
    """Path of the tesseract binary; raises OcrUnavailable when missing."""
    path = shutil.which(os.environ.get("RENAMERD_TESSERACT", "tesseract"))
    if not path:
        raise OcrUnavailable("tesseract is not installed; it is needed to read scans and images")
    return path


@functools.lru_cache(maxsize=4)
def installed_languages(cmd: str | None = None) -> tuple[str, ...]:
    """Tesseract language codes installed (without "osd"), cached per process."""
    out = subprocess.run(
        [cmd or tesseract_cmd(), "--list-langs"], capture_output=True, text=True, timeout=30,
        check=False,
    )
    langs = [ln.strip() for ln in out.stdout.splitlines()[1:] if ln.strip()]
    return tuple(lang for lang in langs if lang != "osd")


@functools.lru_cache(maxsize=4)
def _has_osd(cmd: str) -> bool:
    out = subprocess.run([cmd, "--list-langs"], capture_output=True, text=True, timeout=30,
                         check=False)
    return any(ln.strip() == "osd" for ln in out.stdout.splitlines()[1:])


def candidate_languages(config: EngineConfig) -> tuple[str, ...]:
    """Installed tesseract languages the engine may use, primary first.

    `config.ocr_languages` may hold tesseract codes ("deu") or ISO codes ("de"); when empty,
    the lexicon languages are used, English first, the non-Latin scripts last (they are read
    with only when OSD names their script: scripts.py). Raises OcrUnavailable when none is installed.
    """
    installed = installed_languages()
    wanted = [tesseract_code(code) for code in config.ocr_languages]
    if not wanted:
        wanted = [*LEXICON_LANGUAGES.values(), "chi_tra"]
    langs = tuple(dict.fromkeys(code for code in wanted if code in installed))
    if not langs:
        raise OcrUnavailable(
            "no OCR language data installed for " + ", ".join(wanted)
            + f" (installed: {', '.join(installed) or 'none'})"
        )
    return langs


#: what tesseract is given: a decoded image (written as PNM) or (file bytes, suffix) as is
_Source = Image.Image | tuple[bytes, str]


class PageImage:
    """A page to OCR: decoded (and grey-scaled, reduced) only when needed.

    `native` is the original file when tesseract can read it as it is (single-frame PNG, JPEG
    or TIFF that needs no conversion): then an upright page is never decoded in Python at all.
    """

    def __init__(self, load: Callable[[], Image.Image],
                 native: tuple[bytes, str] | None = None) -> None:
        self._load = load
        self.native = native
        self._prepared: Image.Image | None = None

    def prepared(self) -> Image.Image:
        """The decoded page as tesseract should see it (8-bit grey or 1-bit, about 300 dpi)."""
        if self._prepared is None:
            self._prepared = _prepare(self._load())
        return self._prepared

    def upright(self, clockwise: int) -> _Source:
        """The page turned `clockwise` degrees, in the cheapest form tesseract accepts."""
        if clockwise % 360 == 0 and self.native is not None:
            return self.native
        return _rotate(self.prepared(), clockwise)


class OcrSession:
    """OCR state shared by the pages of one document (chosen language, pages read).

    Not thread-safe; one per document.
    """

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.cmd = tesseract_cmd()
        self.candidates = candidate_languages(config)
        self.lang: str | None = None  # settled after the first page
        self.pages = 0
        self.langs_used: list[str] = []

    @property
    def languages(self) -> str | None:
        """The tesseract language string(s) used so far, e.g. "eng" or "eng,deu"."""
        return ",".join(dict.fromkeys(self.langs_used)) or None

    def read(self, image: Image.Image | PageImage) -> OcrReading:
        """OCR one page image; returns the best reading.

        Raises UnreadableDocument on timeout or a tesseract failure. Safe to repeat.
        """
        page = image if isinstance(image, PageImage) else PageImage(lambda: image)
        self.pages += 1
        lang = self.lang or self.candidates[0]
        try:
            reading = self._run(page.upright(0), lang)
        except OcrTimeout:
            raise
        except UnreadableDocument:
            if page.native is None:
                raise
            # tesseract could not read the file as is: decode it here, which either works or
            # raises the precise "broken image" error
            page.native = None
            reading = self._run(page.upright(0), lang)
        if reading.weak:
            reading = self._fix_rotation_and_script(page, reading)
        if self.lang is None:
            self.lang = lang
            guess = guess_language(reading.text, self.candidates)
            if guess is not None and guess != lang:
                self.lang = guess
                again = self._run(page.upright(reading.rotation), guess, reading.rotation)
                if again.score() >= reading.score() * 0.8:
                    reading = again
        return reading

    def read_in(self, page: PageImage, lang: str, first: OcrReading) -> OcrReading:
        """Read a page already read as `first` again in language `lang` (upright as `first`);
        the better of the two is kept, and `lang` becomes the document's language when its
        reading is kept. Raises UnreadableDocument on a timeout or failure."""
        again = self._run(page.upright(first.rotation), lang, first.rotation)
        if again.score() >= first.score() * 0.8:
            self.lang = lang
            return again
        return first

    def read_closer(self, image: PageImage, first: OcrReading,
                    psm: str | None = None) -> OcrReading:
        """A second, closer reading of a page already read as `first`: upright as `first`,
        enlarged CLOSER_SCALE times when its words are small (median under SMALL_TEXT_PX
        pixels high) and the page not too large already; else read at its size. `psm` is
        tesseract's page segmentation mode; by default automatic when enlarged, else
        CLOSER_PSM (a single column of variable-size text).

        Costs one more tesseract run (about 2-4x the first on an enlarged page); callers ask
        for it only when the first reading lacks something. Raises UnreadableDocument on a
        timeout or a tesseract failure. Safe to repeat.
        """
        img = _rotate(image.prepared(), first.rotation)
        small = 0 < first.word_height < SMALL_TEXT_PX
        if small and max(img.size) * CLOSER_SCALE <= CLOSER_MAX_SIDE:
            if img.mode != "L":
                img = img.convert("L")
            img = img.resize((img.width * CLOSER_SCALE, img.height * CLOSER_SCALE),
                             Image.Resampling.BICUBIC)
            return self._run(img, first.lang, first.rotation, ["--psm", psm] if psm else None)
        return self._run(img, first.lang, first.rotation, ["--psm", psm or CLOSER_PSM])

    def _fix_rotation_and_script(self, page: PageImage, reading: OcrReading) -> OcrReading:
        """A weak reading: OSD's rotation applied, and on a document's first page the page read
        again with the packs of the script OSD names (scripts.py); the best reading is kept
        and, when it is the script's, its packs become the document's language."""
        angle, script = self._osd(page.upright(0))
        if angle != 0:
            turned = self._run(page.upright(angle), reading.lang, angle)
            reading = turned if turned.score() > reading.score() else reading
        pack = script_pack(script, self.candidates) if self.lang is None else None
        if pack is None or pack == reading.lang:
            return reading
        again = self._run(page.upright(reading.rotation), pack, reading.rotation)
        if again.words < MIN_WORDS:  # the automatic layout missed lines (Korean): one block
            block = self._run(page.upright(reading.rotation), pack, reading.rotation,
                              ["--psm", "6"])
            again = block if block.score() > again.score() else again
        if again.score() >= reading.score() * 0.8 or again.confidence > reading.confidence:
            self.lang = pack
            return again
        return reading

    def _osd(self, source: _Source) -> tuple[int, str | None]:
        """(clockwise rotation, script or None) of a page by tesseract's OSD."""
        if not _has_osd(self.cmd):
            return 0, None
        try:
            out = self._tesseract(source, ["--psm", "0", "-l", "osd"])
        except UnreadableDocument:
            return 0, None  # OSD fails on pages with too few characters: keep the reading
        return parse_osd(out)

    def _run(self, source: _Source, lang: str, rotation: int = 0,
             extra: list[str] | None = None) -> OcrReading:
        tsv = self._tesseract(source, [*(extra or []), "-l", lang, "tsv"])
        self.langs_used.append(lang)
        text, conf, words, height = parse_tsv_full(tsv, rows=latin(lang))
        return OcrReading(text, lang, conf, words, rotation, height)

    def _tesseract(self, source: _Source, args: list[str]) -> str:
        with children.scratch_dir() as tmp:
            if isinstance(source, Image.Image):
                path = os.path.join(tmp, "page.pnm")
                source.save(path, format="PPM")
            else:
                path = os.path.join(tmp, "page" + source[1])
                with open(path, "wb") as handle:
                    handle.write(source[0])
            try:
                code, out, err = children.run(
                    [self.cmd, path, "stdout", *args], timeout=self.config.ocr_timeout_s,
                    env={**os.environ, "OMP_THREAD_LIMIT": "1"})
            except subprocess.TimeoutExpired:
                raise OcrTimeout(
                    f"OCR took longer than {self.config.ocr_timeout_s:g} s and was stopped"
                ) from None
        if code != 0:
            lines = err.decode("utf-8", "replace").strip().splitlines()
            raise UnreadableDocument(f"OCR failed: {lines[-1] if lines else code}")
        return out.decode("utf-8", "replace")


def parse_tsv(tsv: str) -> tuple[str, float, int]:
    """Tesseract TSV -> (text with line and paragraph breaks, mean word confidence, word count)."""
    text, mean, count, _height = parse_tsv_full(tsv)
    return text, mean, count


def parse_tsv_full(tsv: str, rows: bool = False) -> tuple[str, float, int, float]:
    """Tesseract TSV -> (text, mean word confidence, word count, median word height in px).

    The text is in tesseract's order of blocks, or with `rows` laid out by the rows of the
    page as PP-OCR's is (ocr/lines.py): a column of labels and the column of their values,
    which tesseract reads as two blocks far apart ("Rechnungs-Nr." ... "RE-2024-0387"), then
    share their lines ("Rechnungs-Nr. | RE-2024-0387")."""
    lines: dict[tuple[str, ...], list[_Word]] = {}  # (page, block, paragraph, line) -> words
    confs: list[float] = []
    heights: list[float] = []
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        text = (row.get("text") or "").strip()
        if row.get("level") != "5" or not text:
            continue
        word = _Word.of(row, text)
        lines.setdefault((row["page_num"], row["block_num"], row["par_num"], row["line_num"]),
                         []).append(word)
        if word.conf >= 0 and any(c.isalnum() for c in text):
            confs.append(word.conf)
            if word.conf >= 50:
                heights.append(float(word.bottom - word.top))
    mean = sum(confs) / len(confs) if confs else 0.0
    height = statistics.median(heights) if heights else 0.0
    if rows:
        return layout_text([_ocr_line(words) for words in lines.values()]), mean, len(confs), height
    return _in_blocks(lines), mean, len(confs), height


class _Word(NamedTuple):
    """A word of a TSV and its box in pixels; `conf` 0-100, -1 when tesseract gives none."""

    text: str
    left: int
    top: int
    right: int
    bottom: int
    conf: float

    @classmethod
    def of(cls, row: dict[str, str], text: str) -> _Word:
        try:
            conf = float(row.get("conf") or -1)
        except ValueError:
            conf = -1.0
        left, top = int(row["left"]), int(row["top"])
        return cls(text, left, top, left + int(row["width"]), top + int(row["height"]), conf)


def _in_blocks(lines: dict[tuple[str, ...], list[_Word]]) -> str:
    """Tesseract's lines in its own order, a blank line between its blocks (paragraphs)."""
    out: list[str] = []
    previous: tuple[str, ...] | None = None
    for key, words in lines.items():
        if previous is not None and key[:3] != previous[:3]:
            out.append("")
        out.append(" ".join(w.text for w in words))
        previous = key
    return "\n".join(out)


def _ocr_line(words: list[_Word]) -> OcrLine:
    """One of tesseract's lines as an OcrLine: its words' box, mean confidence and slope
    (from its first word's bottom to its last one's, as a skewed page runs)."""
    confs = [w.conf for w in words if w.conf >= 0]
    first, last = words[0], words[-1]
    angle = (math.degrees(math.atan2(last.bottom - first.bottom, last.right - first.left))
             if len(words) >= 3 else 0.0)
    box = (min(w.left for w in words), min(w.top for w in words),
           max(w.right for w in words), max(w.bottom for w in words))
    return OcrLine(" ".join(w.text for w in words), box,
                   sum(confs) / len(confs) / 100 if confs else 0.0, angle)


def _prepare(image: Image.Image) -> Image.Image:
    """Grey-scale 8-bit (or 1-bit as is) that PPM/PGM can hold, reduced to about 300 dpi
    when far larger (600 dpi scans OCR as well at half size, in a quarter of the time)."""
    grey = to_grey(image)
    return reduce_grey(grey, ocr_scale(grey.width, grey.height))


def _rotate(img: Image.Image, clockwise: int) -> Image.Image:
    if clockwise % 360 == 0:
        return img
    return img.rotate(-clockwise, expand=True)
