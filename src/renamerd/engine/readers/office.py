"""DOCX, XLSX and PPTX read from their XML parts, with zip-bomb checks before any inflating.

Before a byte is inflated the archive's directory is checked: entry count, total declared
uncompressed size, and compression ratio (whole archive and per part). Parts are then
stream-parsed (defusedxml iterparse: no DTDs or entities) from a reader that stops at
`MAX_PART_BYTES` whatever the directory claims. Memory stays flat whatever a part holds: each
element is cleared and dropped from its parent once its end event is handled. Work is
bounded too: a part is read no further than `MAX_PART_ELEMENTS` elements, a row than
`MAX_CELLS_PER_ROW` cells, a paragraph than `MAX_RUNS_PER_PARAGRAPH` runs, a worksheet than
`config.max_page_chars` characters, and reading stops once the document holds
`config.max_document_chars` (what was read so far is the text; the rest is never parsed).

Pages: DOCX splits at explicit and last-rendered page breaks (headers lead page 1, footers end
it); XLSX gives one page per worksheet (rows as lines, cells tab-separated); PPTX one per slide.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO, Any

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from renamerd.engine.formats import MAX_ZIP_ENTRIES, zip_entry_count
from renamerd.engine.types import DocumentTooLarge, EngineConfig, UnreadableDocument

#: most bytes one XML part may inflate to (what is read of it: the caps below stop reading
#: well before this unless single elements are huge, and one text node is held whole)
MAX_PART_BYTES = 32 * 1024 * 1024
#: most uncompressed bytes the whole archive may declare
MAX_TOTAL_BYTES = 512 * 1024 * 1024
#: highest compression ratio accepted (whole archive, and any part over 1 MiB)
MAX_RATIO = 100
#: elements read of one part; past this the rest of the part is not read (a 300-page DOCX
#: has about 500,000)
MAX_PART_ELEMENTS = 500_000
#: cells read of one row (Excel's own limit: 16,384 columns, A to XFD); the sheet stops there
MAX_CELLS_PER_ROW = 16_384
#: runs (text, tab and break pieces) read of one paragraph; the part stops there
MAX_RUNS_PER_PARAGRAPH = 10_000

_BOMB = "refused: {} (this looks like a zip bomb)"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _number(name: str) -> int:
    match = re.search(r"(\d+)\.xml$", name)
    return int(match.group(1)) if match else 0


def check_zip(data: bytes) -> zipfile.ZipFile:
    """Open an Office ZIP after checking its directory against bombs.

    Raises UnreadableDocument (bomb or broken archive). Reads the directory only.
    """
    count = zip_entry_count(data)
    if count > MAX_ZIP_ENTRIES:
        raise UnreadableDocument(_BOMB.format(f"{count} entries (limit {MAX_ZIP_ENTRIES})"))
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError) as exc:
        raise UnreadableDocument(f"broken ZIP container: {exc}") from None
    if len(infos) > MAX_ZIP_ENTRIES:
        raise UnreadableDocument(_BOMB.format(f"{len(infos)} entries (limit {MAX_ZIP_ENTRIES})"))
    total = sum(i.file_size for i in infos)
    packed = sum(i.compress_size for i in infos)
    if total > MAX_TOTAL_BYTES:
        raise UnreadableDocument(_BOMB.format(f"it declares {total} uncompressed bytes"))
    if total > 1024 * 1024 and total > MAX_RATIO * max(packed, 1):
        raise UnreadableDocument(_BOMB.format(f"compression ratio {total // max(packed, 1)}:1"))
    for info in infos:
        if info.file_size > 1024 * 1024 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise UnreadableDocument(
                _BOMB.format(f"part {info.filename} has compression ratio "
                             f"{info.file_size // max(info.compress_size, 1)}:1")
            )
        if info.flag_bits & 0x1:
            raise UnreadableDocument("the Office document is encrypted")
    return zf


class _Bounded(io.RawIOBase):
    """A read-only stream that fails once more than `limit` bytes came through."""

    def __init__(self, raw: IO[bytes], limit: int, name: str) -> None:
        self.raw, self.left, self.name = raw, limit, name

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        chunk = self.raw.read(min(len(buffer), 64 * 1024))
        self.left -= len(chunk)
        if self.left < 0:
            raise UnreadableDocument(_BOMB.format(f"part {self.name} inflates past its limit"))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def _events(zf: zipfile.ZipFile, name: str) -> Iterator[tuple[str, Any]]:
    """(event, element) pairs of an XML part, "start" and "end", streamed.

    An element is cleared, and dropped from its parent, once the caller has handled its end
    event: read what you need (text, attributes) at that event. Stops after
    MAX_PART_ELEMENTS elements. Raises UnreadableDocument for a broken or bomb part.
    """
    try:
        with zf.open(name) as raw:
            stream = io.BufferedReader(_Bounded(raw, MAX_PART_BYTES, name))
            open_elements: list[Any] = []
            count = 0
            for event, elem in iterparse(stream, events=("start", "end")):
                if event == "start":
                    count += 1
                    if count > MAX_PART_ELEMENTS:
                        return
                    open_elements.append(elem)
                    yield event, elem
                    continue
                yield event, elem
                open_elements.pop()
                elem.clear()
                if open_elements:  # the parent keeps no ended child (nor one not yet handled:
                    del open_elements[-1][:]  # its pending event holds it)
    except UnreadableDocument:
        raise
    except (DefusedXmlException, SyntaxError, zipfile.BadZipFile, OSError, EOFError,
            ValueError, zlib.error, NotImplementedError) as exc:
        raise UnreadableDocument(f"broken Office part {name}: {type(exc).__name__}") from None


class _Text:
    """Text accumulator with a cap: `take` keeps what fits, `full` says when nothing does."""

    def __init__(self, limit: int) -> None:
        self.size = 0
        self.limit = limit

    @property
    def full(self) -> bool:
        return self.size >= self.limit

    def take(self, text: str) -> str:
        room = self.limit - self.size
        if room <= 0:
            return ""
        text = text[:room]
        self.size += len(text)
        return text


class OfficePages:
    """Pages of a DOCX, XLSX or PPTX; the whole text is extracted on open (bounded)."""

    def __init__(self, data: bytes, kind: str, config: EngineConfig) -> None:
        self.zf = check_zip(data)
        self.names = set(self.zf.namelist())
        self.budget = _Text(config.max_document_chars)
        self.page_chars = config.max_page_chars
        reader = {"docx": self._docx, "xlsx": self._xlsx, "pptx": self._pptx}[kind]
        self.pages = [p.strip() for p in reader()] or [""]
        self.page_count = len(self.pages)
        if self.page_count > config.max_pages:
            raise DocumentTooLarge(
                f"the document has {self.page_count} pages; the limit is {config.max_pages}"
            )

    def text(self, index: int) -> str:
        """Text of page `index`. Raises IndexError past the end."""
        if index < 0:
            raise IndexError(index)
        return self.pages[index]

    def _paragraphs(self, name: str, para: str, text: str, breaks: bool) -> Iterator[str | None]:
        """Paragraph texts of an XML part; None marks a page break (when `breaks`).

        Stops (keeping what was read) once the document's text is full or a paragraph has
        more than MAX_RUNS_PER_PARAGRAPH pieces."""
        buf: list[str] = []
        for event, elem in _events(self.zf, name):
            tag = _local(elem.tag)
            if event == "start":
                if breaks and (tag == "lastRenderedPageBreak" or (
                        tag == "br" and _attr(elem, "type") == "page")):
                    if buf:
                        yield "".join(buf)
                        buf = []
                    yield None
                continue
            if tag == text and elem.text:
                buf.append(self.budget.take(elem.text))
            elif tag == "tab":
                buf.append("\t")
            elif tag == "br":
                buf.append("\n")
            elif tag == para:
                yield "".join(buf)
                buf = []
                continue
            else:
                continue
            if self.budget.full or len(buf) > MAX_RUNS_PER_PARAGRAPH:
                break
        if buf:
            yield "".join(buf)

    def _part_text(self, name: str, para: str, text: str) -> str:
        return "\n".join(p for p in self._paragraphs(name, para, text, False) if p)

    def _docx(self) -> list[str]:
        headers = sorted((n for n in self.names if re.fullmatch(r"word/header\d*\.xml", n)),
                         key=_number)
        footers = sorted((n for n in self.names if re.fullmatch(r"word/footer\d*\.xml", n)),
                         key=_number)
        pages: list[list[str]] = [[]]
        for para in self._paragraphs("word/document.xml", "p", "t", True):
            if para is None:
                if pages[-1]:
                    pages.append([])
            elif para:
                pages[-1].append(para)
        if not pages[-1] and len(pages) > 1:
            pages.pop()
        head = [self._part_text(n, "p", "t") for n in headers]
        foot = [self._part_text(n, "p", "t") for n in footers]
        pages[0] = [h for h in head if h] + pages[0] + [f for f in foot if f]
        return ["\n".join(p) for p in pages]

    def _pptx(self) -> list[str]:
        slides = sorted((n for n in self.names if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)),
                        key=_number)
        return [self._part_text(n, "p", "t") for n in slides]

    def _xlsx(self) -> list[str]:
        shared = self._shared_strings()
        date_styles = self._date_styles()
        sheets = sorted(
            (n for n in self.names if re.fullmatch(r"xl/worksheets/sheet\d+\.xml", n)),
            key=_number,
        )
        return [self._sheet(n, shared, date_styles) for n in sheets]

    def _shared_strings(self) -> list[str]:
        """The shared-string table (its own cap: a cell's text counts when a sheet uses it)."""
        if "xl/sharedStrings.xml" not in self.names:
            return []
        out: list[str] = []
        buf: list[str] = []
        kept = _Text(self.budget.limit)
        for event, elem in _events(self.zf, "xl/sharedStrings.xml"):
            if event != "end":
                continue
            tag = _local(elem.tag)
            if tag == "t" and elem.text:
                buf.append(kept.take(elem.text))
            elif tag == "si":
                out.append("".join(buf))
                buf = []
                if kept.full:
                    break
        return out

    def _date_styles(self) -> set[int]:
        """Indexes of cell styles whose number format is a date."""
        if "xl/styles.xml" not in self.names:
            return set()
        custom: dict[int, str] = {}
        xfs: list[int] = []
        in_xfs = False
        for event, elem in _events(self.zf, "xl/styles.xml"):
            tag = _local(elem.tag)
            if tag == "cellXfs":
                in_xfs = event == "start"
            elif event == "start" and tag == "numFmt":
                custom[int(_attr(elem, "numFmtId") or 0)] = _attr(elem, "formatCode") or ""
            elif event == "start" and tag == "xf" and in_xfs:
                xfs.append(int(_attr(elem, "numFmtId") or 0))
        return {i for i, fmt_id in enumerate(xfs) if _is_date_format(fmt_id, custom.get(fmt_id))}

    def _sheet(self, name: str, shared: list[str], date_styles: set[int]) -> str:
        """A worksheet's rows, cells tab-separated. Stops (keeping what was read) at the
        page's or the document's text cap, or at a row of more than MAX_CELLS_PER_ROW cells."""
        rows: list[str] = []
        cells: list[str] = []
        size = 0
        kind = style = ""
        value: str | None = None
        inline: list[str] = []
        for event, elem in _events(self.zf, name):
            tag = _local(elem.tag)
            if event == "start":
                if tag == "c":
                    kind, style = _attr(elem, "t") or "", _attr(elem, "s") or ""
                    value, inline = None, []
                continue
            if tag == "v":
                value = elem.text
            elif tag == "t":
                inline.append(elem.text or "")
            elif tag == "c":
                cell = self.budget.take(_cell(kind, style, value, inline, shared, date_styles))
                cells.append(cell)
                size += len(cell) + 1
                if (len(cells) >= MAX_CELLS_PER_ROW or size >= self.page_chars
                        or self.budget.full):
                    break
            elif tag == "row":
                line = "\t".join(cells).strip()
                if line:
                    rows.append(line)
                cells = []
        line = "\t".join(cells).strip()  # a row cut short by a cap
        if line:
            rows.append(line)
        return "\n".join(rows)


def _attr(elem: Any, name: str) -> str | None:
    for key, value in elem.attrib.items():
        if _local(key) == name:
            return str(value)
    return None


_BUILTIN_DATE_FORMATS = set(range(14, 23)) | {45, 46, 47}


def _is_date_format(fmt_id: int, code: str | None) -> bool:
    if fmt_id in _BUILTIN_DATE_FORMATS:
        return True
    if not code:
        return False
    bare = re.sub(r'"[^"]*"|\[[^\]]*\]|\\.', "", code).lower()
    return bool(re.search(r"[dy]", bare)) or bool(re.search(r"m.*[dy]|[dy].*m", bare))


def _cell(kind: str, style: str, value: str | None, inline: list[str], shared: list[str],
          date_styles: set[int]) -> str:
    if kind == "inlineStr":
        return "".join(inline)
    if value is None:
        return ""
    if kind == "s":
        try:
            return shared[int(value)]
        except (ValueError, IndexError):
            return ""
    if kind in ("", "n") and style.isdigit() and int(style) in date_styles:
        try:
            serial = float(value)
        except ValueError:
            return value
        if 0 < serial < 2958466:
            day = dt.datetime(1899, 12, 30) + dt.timedelta(days=serial)
            return day.date().isoformat()
    return value
