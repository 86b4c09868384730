"""What every OCR backend returns: lines with boxes and confidences, and the page's text from
their layout (rows top to bottom, wide gaps kept as column breaks, skew undone).

Text is laid out for the field extractors (fields/): one row of the page per text line, boxes
on the same row joined by a space, or by " | " across a gap wider than about two characters
(a label and its value far apart on a receipt stay on one line; the seller's and the invoice's
columns become separate segments, which the issuer scorer splits on), and a blank line where
the vertical gap between rows is wider than a line (blocks).
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field

#: boxes whose vertical centres differ by less than this share of the row's height share a row
ROW_TOLERANCE = 0.5
#: a horizontal gap wider than this many line heights separates columns (" | ")
COLUMN_GAP = 1.2
#: a vertical gap wider than this many line heights separates blocks (a blank line)
BLOCK_GAP = 1.4


#: a numeric date whose year runs into a time of day ("14/03/20185:57:07PM")
_FUSED_TIME = re.compile(r"(?<![\d/.-])(\d{1,2}[/.-]\d{1,2}[/.-](?:19|20)\d\d)(?=[012]?\d:[0-5]\d)")


def split_fused_times(text: str) -> str:
    """`text` with a space put back between a date and the time printed right after it, which
    OCR of narrow receipt print often drops ("19/02/201816:45" -> "19/02/2018 16:45")."""
    return _FUSED_TIME.sub(r"\1 ", text) if ":" in text else text


@dataclass(frozen=True)
class OcrLine:
    """One line of text as read: `box` is (left, top, right, bottom) in pixels of the upright
    page, `confidence` the recogniser's (0-1), `angle` the line's slope in degrees."""

    text: str
    box: tuple[float, float, float, float]
    confidence: float
    angle: float = 0.0

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]

    @property
    def centre_y(self) -> float:
        return (self.box[1] + self.box[3]) / 2


@dataclass
class OcrPage:
    """One page read by one backend. `rotation`: clockwise degrees the page was turned to be
    upright; `lang`: the language data used (tesseract) or None; `seconds`: time it took."""

    lines: list[OcrLine]
    width: int
    height: int
    backend: str
    rotation: int = 0
    lang: str | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def characters(self) -> int:
        """Letters and digits read."""
        return sum(sum(ch.isalnum() for ch in line.text) for line in self.lines)

    @property
    def confidence(self) -> float:
        """Mean line confidence weighted by the characters of each line (0 without text)."""
        weights = [sum(ch.isalnum() for ch in ln.text) for ln in self.lines]
        total = sum(weights)
        if not total:
            return 0.0
        return sum(w * ln.confidence for w, ln in zip(weights, self.lines, strict=True)) / total

    def score(self) -> float:
        """How much was read how surely: characters times confidence (compare readings)."""
        return self.characters * self.confidence

    @property
    def text(self) -> str:
        """The page's text in reading order (see the module docstring)."""
        return layout_text(self.lines)


def skew_angle(lines: list[OcrLine]) -> float:
    """The page's skew in degrees: the median slope of its longer lines (0 without any)."""
    slopes = [ln.angle for ln in lines if ln.box[2] - ln.box[0] > 3 * max(ln.height, 1)]
    return statistics.median(slopes) if slopes else 0.0


def _deskewed(lines: list[OcrLine]) -> list[OcrLine]:
    """Lines with their boxes turned back by the page's skew about the page's origin (only
    the centres matter for the layout, so each box keeps its size)."""
    angle = skew_angle(lines)
    if abs(angle) < 0.5:
        return lines
    cos, sin = math.cos(math.radians(-angle)), math.sin(math.radians(-angle))
    out = []
    for ln in lines:
        cx, cy = (ln.box[0] + ln.box[2]) / 2, ln.centre_y
        nx, ny = cx * cos - cy * sin, cx * sin + cy * cos
        half_w, half_h = (ln.box[2] - ln.box[0]) / 2, ln.height / 2
        out.append(OcrLine(ln.text, (nx - half_w, ny - half_h, nx + half_w, ny + half_h),
                           ln.confidence, 0.0))
    return out


def rows(lines: list[OcrLine]) -> list[list[OcrLine]]:
    """Lines grouped into rows of the page, top to bottom, each row left to right."""
    out: list[list[OcrLine]] = []
    for line in sorted(_deskewed(lines), key=lambda ln: (ln.centre_y, ln.box[0])):
        if out:
            row = out[-1]
            height = statistics.median(ln.height for ln in row)
            centre = statistics.median(ln.centre_y for ln in row)
            if abs(line.centre_y - centre) < ROW_TOLERANCE * max(min(height, line.height), 1):
                row.append(line)
                continue
        out.append([line])
    return [_without_doubles(sorted(row, key=lambda ln: ln.box[0])) for row in out]


def _without_doubles(row: list[OcrLine]) -> list[OcrLine]:
    """A row without a box detected twice: two boxes of the same text, or overlapping over
    more than half the narrower one, keep only the surer one."""
    kept: list[OcrLine] = []
    for line in row:
        if kept:
            last = kept[-1]
            overlap = min(last.box[2], line.box[2]) - max(last.box[0], line.box[0])
            narrower = min(last.box[2] - last.box[0], line.box[2] - line.box[0])
            if overlap > 0.5 * max(narrower, 1) or (
                    line.text.strip() == last.text.strip() and overlap > 0):
                if line.confidence > last.confidence:
                    kept[-1] = line
                continue
        kept.append(line)
    return kept


def layout_text(lines: list[OcrLine]) -> str:
    """Rows joined into text: " | " across wide gaps, blank lines between blocks."""
    out: list[str] = []
    previous_bottom: float | None = None
    for row in rows([ln for ln in lines if ln.text.strip()]):
        height = statistics.median(ln.height for ln in row)
        top = min(ln.box[1] for ln in row)
        if previous_bottom is not None and top - previous_bottom > BLOCK_GAP * height:
            out.append("")
        parts = [row[0].text.strip()]
        for left, right in zip(row, row[1:], strict=False):
            gap = right.box[0] - left.box[2]
            parts.append(" | " if gap > COLUMN_GAP * height else " ")
            parts.append(right.text.strip())
        out.append(split_fused_times("".join(parts)))
        previous_bottom = max(ln.box[3] for ln in row)
    return "\n".join(out)
