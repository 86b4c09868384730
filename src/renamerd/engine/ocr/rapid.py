"""PP-OCR through RapidOCR (the `rapidocr` package, ONNX Runtime): detection, recognition and
the line classifier, with the models shipped inside the wheel (nothing is downloaded).

* Scale: detection finds lines whose text is about TARGET_TEXT_PX high; the page is scaled so
  its median word height (when a tesseract reading gave it) comes near that, within
  [MIN_SCALE, MAX_SCALE] and a long side of at most MAX_SIDE pixels. Detection itself runs on
  the page reduced so its boxes are about DETECT_BOX_PX high (a third of the cost on receipts);
  lines are recognised from the page.
* Memory: the detector's activations cost about 190 MB per megapixel of input (measured), so
  the page is detected in horizontal bands of at most BAND_PIXELS pixels that overlap by a few
  lines; a line cut by a band's edge is taken from the neighbouring band, where it is whole,
  and a line seen whole in two bands is kept once (by which side of the overlap's middle its
  centre lies). Each band becomes a 3-channel array only while it is read. Every line is then
  recognised once, cropped from the whole page (recognition costs more than detection: lines
  in the overlaps are not read twice).
* Threads: each engine runs ONNX Runtime with one intra-op and one inter-op thread, and at most
  `POOL_SIZE` engines (one per core) exist per process, shared by the threads that OCR: the
  engine renames several documents at once on few cores, so parallelism comes from documents,
  and memory stays at POOL_SIZE copies of the models (~60 MB each) whatever the thread count.
* Small print: a page whose boxes are small (SMALL_BOX_PX) is enlarged and detected again.
* Faint pages: levels stretched to black and white (FAINT_RANGE) before detection.
* Slant: a page whose lines run at a slant of MIN_SLANT to MAX_SLANT degrees is turned
  straight and detected again (detection merges or drops close lines on a slant).
* Orientation: a photo taken sideways gives mostly tall text boxes; an upside-down page gives
  few confident lines. Either way the longest boxes are read again, turned, recognition only
  (a few small crops), and the page is read once more turned the way that reads best.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

from PIL import Image, ImageOps

from renamerd.engine.ocr.lines import OcrLine, OcrPage

log = logging.getLogger(__name__)

#: long side (pixels) of the page detected at most
MAX_SIDE = 2000
#: text height (pixels) the detector finds reliably (lines of ~20 px were missed, ~30 found)
TARGET_TEXT_PX = 30.0
#: the page is reduced at most 4x, enlarged at most 2x to bring its text to TARGET_TEXT_PX
MIN_SCALE, MAX_SCALE = 0.25, 2.0
#: pixels per detection band (~190 MB of activations per megapixel, plus ~60 MB fixed)
BAND_PIXELS = 250_000
#: rows of overlap between bands (at least the height of a heading line)
BAND_OVERLAP = 64
#: engines per process (each one thread): one per core, at most 4
POOL_SIZE = max(1, min(os.cpu_count() or 1, 4))
#: a page whose lines slant by this many degrees (either way) is straightened and detected
#: again: detection merges or drops close lines that run at a slant (a tilted photo)
MIN_SLANT, MAX_SLANT = 1.5, 20.0
#: a page whose boxes are under SMALL_BOX_PX high (median) is enlarged to bring them near
#: GOOD_BOX_PX and detected again: small print is partly missed (receipt scans at their
#: usual size measure 20-50 px; the same at half size 15)
SMALL_BOX_PX, GOOD_BOX_PX = 17.0, 24.0
#: detection runs on the page reduced so its lines' boxes are about DETECT_BOX_PX high (never
#: enlarged): on the SROIE receipts (boxes of 20-50 px at their size), detection found the same
#: lines down to boxes of about 13 px, at a third of the cost; under 12 px it lost dates. The
#: boxes' height is measured first by a detection of the page at most PROBE_SIDE pixels long
#: (cheap; it overestimates by 1.14x, at most 1.46x, so boxes stay over 15 px). Lines are
#: still cropped from the whole page for recognition.
DETECT_BOX_PX = 22.0
PROBE_SIDE = 800
#: a page whose darkest INK_SHARE of pixels and brightest PAPER_SHARE lie less than this many
#: grey levels apart is faint: its levels are stretched before detection (ordinary receipt
#: scans measure 155-255; a dimmed photo 60-95)
FAINT_RANGE = 128
INK_SHARE, PAPER_SHARE = 0.002, 0.005
#: lines read with less confidence than this are dropped (RapidOCR's own default)
MIN_LINE_CONFIDENCE = 0.5
#: a reading whose mean confidence is under this is weak (upside down? upright pages read
#: at 0.95-1.0, upside-down ones at 0.6-0.8: measured on generated pages)
WEAK_CONFIDENCE = 0.85
#: a reading scoring less than this (characters x confidence) is tried upside down too
LITTLE_TEXT = 20
#: a sideways page turned upright is kept when it scores at least this share of the sideways
#: reading (the two read alike, a few characters apart)
SIDEWAYS_SHARE = 0.9
#: longest boxes read again, turned, to find a page's orientation (six, not three: detected
#: on a reduced page, a dashed rule can be among the longest boxes and reads as nothing either way)
PROBE_BOXES = 6

_PARAMS: dict[str, Any] = {
    "Global.log_level": "error",
    "Global.text_score": 0.0,  # every box comes back; we filter (and count the rejects)
    "Global.max_side_len": MAX_SIDE,
    "Global.use_vertical_padding": False,  # (it would pad a wide band to 1/8 of its width)
    "Det.limit_type": "max",  # detect at the size given (bands are at most MAX_SIDE wide)
    "Det.limit_side_len": MAX_SIDE,
    "Global.use_cls": False,  # orientation is found per page (see above)
    "EngineConfig.onnxruntime.intra_op_num_threads": 1,
    "EngineConfig.onnxruntime.inter_op_num_threads": 1,
    # (ONNX Runtime's memory arena stays off, as RapidOCR sets it: on, a receipt read 6% faster
    # but a huge page's detection kept ~20 MB more than the memory bound allows)
}


class RapidUnavailable(RuntimeError):
    """The `rapidocr` package or ONNX Runtime is not installed (or its models are missing)."""


@functools.cache
def available() -> bool:
    """True when RapidOCR and ONNX Runtime can be imported (checked once per process)."""
    try:
        import onnxruntime  # noqa: F401
        import rapidocr  # noqa: F401
    except ImportError:
        return False
    return True


@functools.cache
def backend_errors() -> tuple[type[BaseException], ...]:
    """What RapidOCR, ONNX Runtime and OpenCV raise on a page they cannot read."""
    errors: tuple[type[BaseException], ...] = (RuntimeError, ValueError, TypeError, IndexError)
    try:
        import cv2

        errors += (cv2.error,)
    except ImportError:
        pass
    return errors


class _Pool:
    """At most POOL_SIZE RapidOCR engines, made on first need (one at a time: a caller arriving
    while one is being made waits for the next free engine rather than loading a second copy
    of the models beside it), lent one per caller."""

    def __init__(self) -> None:
        self._free: list[Any] = []
        self._made = 0
        self._making = False
        self._changed = threading.Condition()

    @contextlib.contextmanager
    def engine(self) -> Iterator[Any]:
        engine = self._take()
        try:
            yield engine
        finally:
            with self._changed:
                self._free.append(engine)
                self._changed.notify()

    def _take(self) -> Any:
        with self._changed:
            while not self._free:
                if self._made < POOL_SIZE and not self._making:
                    self._making = True
                    break
                self._changed.wait()
            else:
                return self._free.pop()
        made = None
        try:
            made = _make_engine()
        finally:
            with self._changed:
                self._making = False
                self._made += made is not None
                self._changed.notify()  # a waiting caller may make the next one
        return made


def _make_engine() -> Any:
    if not available():
        raise RapidUnavailable("rapidocr / onnxruntime is not installed")
    from rapidocr import RapidOCR

    # (RapidOCR logs through its own handler; our level keeps its info lines out of ours)
    logging.getLogger("RapidOCR").setLevel(logging.ERROR)
    return RapidOCR(params=dict(_PARAMS))


_POOL = _Pool()


def warm_up() -> None:
    """Load one engine's models now (about a second) instead of on the first scan."""
    with _POOL.engine() as engine:
        engine(_as_array(Image.new("L", (64, 32), 255)), use_det=True, use_cls=False,
               use_rec=True)


def read(image: Image.Image, word_height: float = 0.0) -> OcrPage:
    """OCR one page image (any mode; grey is best) and return its lines, upright.

    `word_height`: the median word height in `image`'s pixels when known (from a tesseract
    reading), used to scale the page for detection. Raises RapidUnavailable when the backend
    is missing. Thread-safe (engines are pooled); safe to repeat.
    """
    started = time.perf_counter()
    page = fit(image, word_height)
    with _POOL.engine() as engine:
        raw, page = _read_bands(engine, page)
        rotation = _orientation(engine, page, raw)
        if rotation == 0 and _score(raw) < LITTLE_TEXT:
            rotation = 180  # upside-down lines are often not even recognised as text
        if rotation:
            turned, turned_page = _read_bands(engine, page.rotate(-rotation, expand=True))
            # (a sideways page's lines read well as they are, their crops turned, but they do
            # not lay out as rows: the page turned upright wins unless it reads clearly worse)
            share = SIDEWAYS_SHARE if rotation in (90, 270) else 1.0
            if _score(turned) >= share * _score(raw):
                raw, page = turned, turned_page
            else:
                rotation = 0
    lines = [line for line in raw if line.confidence >= MIN_LINE_CONFIDENCE]
    return OcrPage(lines, page.width, page.height, "rapidocr", rotation,
                   seconds=time.perf_counter() - started)


def fit(image: Image.Image, word_height: float = 0.0) -> Image.Image:
    """`image` grey, its levels stretched when it is faint, scaled for detection (see the
    module docstring)."""
    grey = _stretched(image if image.mode == "L" else image.convert("L"))
    scale = 1.0
    if word_height > 0:
        scale = min(max(TARGET_TEXT_PX / word_height, MIN_SCALE), MAX_SCALE)
    scale = min(scale, MAX_SIDE / max(grey.size))
    if abs(scale - 1.0) < 0.05:
        return grey
    size = (max(1, round(grey.width * scale)), max(1, round(grey.height * scale)))
    resample = Image.Resampling.BOX if scale < 1 else Image.Resampling.BICUBIC
    return grey.resize(size, resample)


def _stretched(grey: Image.Image) -> Image.Image:
    """`grey` with its levels stretched to black and white when its ink and its paper lie
    less than FAINT_RANGE levels apart (a dim photo, a faded thermal slip: detection drops
    its palest lines); else `grey` itself."""
    counts = grey.histogram()
    total = sum(counts)
    seen, ink, paper = 0, 0, 255
    for level, count in enumerate(counts):
        if seen < total * INK_SHARE <= seen + count:
            ink = level
        if seen < total * (1 - PAPER_SHARE) <= seen + count:
            paper = level
        seen += count
    if paper - ink >= FAINT_RANGE:
        return grey
    return ImageOps.autocontrast(grey, cutoff=(INK_SHARE * 100, PAPER_SHARE * 100))


def _read_bands(engine: Any, page: Image.Image) -> tuple[list[OcrLine], Image.Image]:
    """Every line of `page` (confident or not): detected band by band (the page straightened
    first when its lines run at a slant), each line then recognised once, from the whole
    page (see the module docstring). Returns the lines and the page they were read on."""
    reduce = _detection_scale(engine, page)
    quads = _detect_at(engine, page, reduce)
    slant = _slant(quads)
    if MIN_SLANT <= abs(slant) <= MAX_SLANT:
        page = page.rotate(slant, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
        quads = _detect_at(engine, page, reduce)
    height = _box_height(quads)
    if 0 < height < SMALL_BOX_PX:
        scale = min(GOOD_BOX_PX / height, MAX_SCALE, MAX_SIDE / max(page.size))
        if scale >= 1.25:
            size = (round(page.width * scale), round(page.height * scale))
            page = page.resize(size, Image.Resampling.BICUBIC)
            quads = _detect(engine, page)
    lines = []
    for quad in quads:
        text, score = _recognise_line(engine, _crop(page, quad))
        if text.strip():
            lines.append(_line(quad, text, score))
    return lines, page


def _box_height(quads: list[Quad]) -> float:
    """The median height of the boxes (0 without any)."""
    heights = sorted(math.dist(a, d) for a, _b, _c, d in quads)
    return heights[len(heights) // 2] if heights else 0.0


def _detection_scale(engine: Any, page: Image.Image) -> float:
    """The scale (at most 1) at which `page`'s boxes measure about DETECT_BOX_PX, from a
    detection of the page reduced to PROBE_SIDE pixels; 1 for a small page or too few boxes.
    A box's short side is its text's height (the long side, on a sideways page)."""
    probe = PROBE_SIDE / max(page.size)
    if probe >= 0.8:
        return 1.0
    quads = _detect_at(engine, page, probe)
    if len(quads) < 3:
        return 1.0
    heights = sorted(min(math.dist(a, b), math.dist(a, d)) for a, b, _c, d in quads)
    height = heights[len(heights) // 2]
    return min(1.0, DETECT_BOX_PX / height) if height > 0 else 1.0


def _detect_at(engine: Any, page: Image.Image, scale: float) -> list[Quad]:
    """Text boxes of `page` (its pixels), detected on the page reduced by `scale` (<= 1)."""
    if scale >= 0.95:
        return _detect(engine, page)
    size = (max(1, round(page.width * scale)), max(1, round(page.height * scale)))
    quads = _detect(engine, page.resize(size, Image.Resampling.BOX))
    return [[(x / scale, y / scale) for x, y in quad] for quad in quads]


def _slant(quads: list[Quad]) -> float:
    """The median slope in degrees (clockwise positive) of the page's long boxes' top edges;
    0 with fewer than three."""
    angles = []
    for (ax, ay), (bx, by), _c, (dx, dy) in quads:
        width, height = math.dist((ax, ay), (bx, by)), math.dist((ax, ay), (dx, dy))
        if width >= 40 and width >= 3 * height:
            angles.append(math.degrees(math.atan2(by - ay, bx - ax)))
    return sorted(angles)[len(angles) // 2] if len(angles) >= 3 else 0.0


Quad = list[tuple[float, float]]


def _detect(engine: Any, page: Image.Image) -> list[Quad]:
    """Text boxes (four corners, page pixels) of `page`, detected in bands across the page;
    where most boxes were cut by the bands' edges (a sideways page: its lines run down the
    bands), in bands down the page instead."""
    quads, cut = _detect_across(engine, page)
    if cut <= len(quads):
        return quads
    turned, turned_cut = _detect_across(engine, page.transpose(Image.Transpose.ROTATE_90))
    if len(turned) <= len(quads):
        return quads
    # (ROTATE_90 is counter-clockwise: a point (x, y) of the turned page is (W - y, x) here)
    return [[(page.width - y, x) for x, y in quad] for quad in turned]


def _detect_across(engine: Any, page: Image.Image) -> tuple[list[Quad], int]:
    """(boxes kept, boxes dropped because a band's edge cut them)."""
    rows = max(BAND_PIXELS // max(page.width, 1), 2 * BAND_OVERLAP)
    if rows >= page.height:
        return _detect_in(engine, page, 0), 0
    quads: list[Quad] = []
    cut = 0
    top = 0
    while True:
        bottom = min(top + rows, page.height)
        upper_cut = top + BAND_OVERLAP / 2 if top > 0 else float("-inf")
        lower_cut = bottom - BAND_OVERLAP / 2 if bottom < page.height else float("inf")
        # (the band above's boxes reaching into this one: a line whose centre lies on the cut
        # may be kept by both, its box a pixel apart in each)
        above = [q for q in quads if _bounds(q)[3] > top]
        for quad in _detect_in(engine, page.crop((0, top, page.width, bottom)), top):
            _x0, y0, _x1, y1 = _bounds(quad)
            if (top > 0 and y0 <= top + 1) or (bottom < page.height and y1 >= bottom - 1):
                cut += 1
            elif upper_cut <= (y0 + y1) / 2 < lower_cut and not any(
                    _same_box(quad, other) for other in above):
                quads.append(quad)
        if bottom >= page.height:
            return quads, cut
        top += rows - BAND_OVERLAP


def _bounds(quad: Quad) -> tuple[float, float, float, float]:
    """The upright box around `quad`: (left, top, right, bottom)."""
    xs, ys = [x for x, _y in quad], [y for _x, y in quad]
    return min(xs), min(ys), max(xs), max(ys)


def _same_box(a: Quad, b: Quad) -> bool:
    """The boxes around `a` and `b` overlap by more than half of their union."""
    ax0, ay0, ax1, ay1 = _bounds(a)
    bx0, by0, bx1, by1 = _bounds(b)
    inter = max(0.0, min(ax1, bx1) - max(ax0, bx0)) * max(0.0, min(ay1, by1) - max(ay0, by0))
    union = (ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - inter
    return union > 0 and inter > union / 2


def _detect_in(engine: Any, image: Image.Image, top: int) -> list[Quad]:
    """Detection only, on `image`; corners moved down by `top` rows."""
    # (every flag given: RapidOCR keeps the flags of the previous call as its new defaults)
    out = engine(_as_array(image), use_det=True, use_cls=False, use_rec=False)
    boxes = getattr(out, "boxes", None)
    if boxes is None:
        return []
    return [[(float(x), float(y) + top) for x, y in quad] for quad in boxes]


def _crop(page: Image.Image, quad: Quad) -> Image.Image:
    """The line inside `quad` (top-left, top-right, bottom-right, bottom-left), straightened;
    a tall one turned a quarter counter-clockwise, as RapidOCR does."""
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = quad
    width = max(math.dist((ax, ay), (bx, by)), math.dist((dx, dy), (cx, cy)))
    height = max(math.dist((ax, ay), (dx, dy)), math.dist((bx, by), (cx, cy)))
    size = (max(1, round(width)), max(1, round(height)))
    crop = page.transform(size, Image.Transform.QUAD, (ax, ay, dx, dy, cx, cy, bx, by),
                          Image.Resampling.BICUBIC)
    return crop.rotate(90, expand=True) if size[1] >= 1.5 * size[0] else crop


def _recognise_line(engine: Any, crop: Image.Image) -> tuple[str, float]:
    """Recognition only, of one line image: (text, confidence)."""
    out = engine(_as_array(crop), use_det=False, use_cls=False, use_rec=True)
    texts: tuple[Any, ...] = tuple(getattr(out, "txts", None) or ())
    scores: tuple[Any, ...] = tuple(getattr(out, "scores", None) or ())
    if not texts or not scores:
        return "", 0.0
    return str(texts[0]), float(scores[0])


def _as_array(image: Image.Image) -> Any:
    import numpy as np

    grey = np.asarray(image.convert("L") if image.mode != "L" else image)
    return np.repeat(grey[:, :, None], 3, axis=2)


def _line(quad: Quad, text: str, score: float) -> OcrLine:
    (x0, y0), (x1, y1) = quad[0], quad[1]
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
    return OcrLine(text, _bounds(quad), float(score), angle)


def _score(lines: list[OcrLine]) -> float:
    """Characters of the confident lines times their confidence (compare readings)."""
    good = [ln for ln in lines if ln.confidence >= MIN_LINE_CONFIDENCE]
    return OcrPage(good, 0, 0, "rapidocr").score()


def _orientation(engine: Any, image: Image.Image, lines: list[OcrLine]) -> int:
    """Clockwise degrees that turn the page upright: 0 unless its boxes are mostly tall
    (sideways: 90 or 270) or few of its lines were read with confidence (maybe 180)."""
    long_boxes = [ln for ln in lines if max(ln.box[2] - ln.box[0], ln.height) > 40]
    if not long_boxes:
        return 0
    tall = sum(1 for ln in long_boxes if ln.height > 1.5 * (ln.box[2] - ln.box[0]))
    if tall * 2 > len(long_boxes):
        candidates = (90, 270)
    elif OcrPage(lines, image.width, image.height, "rapidocr").confidence < WEAK_CONFIDENCE:
        candidates = (0, 180)
    else:
        return 0
    probes = sorted(long_boxes, key=lambda ln: -max(ln.box[2] - ln.box[0], ln.height))
    crops = [image.crop(ln.box) for ln in probes[:PROBE_BOXES]]
    best, best_score = 0, -1.0
    for turn in candidates:
        score = sum(_recognise(engine, crop.rotate(-turn, expand=True)) for crop in crops)
        if score > best_score:
            best, best_score = turn, score
    return best


def _recognise(engine: Any, crop: Image.Image) -> float:
    """Recognition only, of one line image: characters read times confidence."""
    text, score = _recognise_line(engine, crop)
    return len(text) * score
