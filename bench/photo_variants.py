"""How the fields hold up when a receipt is photographed badly: a labelled folder's images
turned, tilted, slanted (a keystone), shrunk, blurred, compressed, dimmed or shadowed, each
renamed by the engine with its default configuration (OCR `auto`) and scored as `renamerd eval`
scores.

    .venv/bin/python bench/photo_variants.py DIR [--every 3] [--workers 2] [--variants ...]

DIR is a folder for `renamerd eval` (its images and truth.json), e.g. shared/corpus/sroie-dev.
`--every N` takes every Nth labelled image (the whole set takes ~2 s an image a variant).
Prints the share right per field and variant, and the documents a variant broke (right as is,
wrong after). docs/engine-accuracy.md keeps the figures.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops, ImageEnhance, ImageFilter

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from renamerd.engine.evaluation import truth_matches  # noqa: E402

FIELDS = ("date", "issuer", "document_type")


def _tilt(degrees: float) -> Callable[[Image.Image], Image.Image]:
    return lambda im: im.rotate(degrees, resample=Image.Resampling.BICUBIC, expand=True,
                                fillcolor=(255, 255, 255))


def _on_table(im: Image.Image) -> Image.Image:
    """A photo: the paper on a darker table, a little tilted, slightly out of focus."""
    w, h = im.size
    table = Image.new("RGB", (int(w * 1.3), int(h * 1.15)), (96, 84, 70))
    paper = im.rotate(2.5, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=(96, 84, 70))
    table.paste(paper, ((table.width - paper.width) // 2, (table.height - paper.height) // 2))
    return table.filter(ImageFilter.GaussianBlur(1.0))


def _slanted(im: Image.Image) -> Image.Image:
    """A photo taken from below the paper's edge: the far end narrower (a keystone)."""
    w, h = im.size
    inset = w * 0.12
    # (the output's corners taken from the input: top-left, bottom-left, bottom-right, top-right)
    quad = (-inset, 0.0, 0.0, float(h), float(w), float(h), w + inset, 0.0)
    return im.transform((w, h), Image.Transform.QUAD, quad, Image.Resampling.BICUBIC,
                        fillcolor=(255, 255, 255))


def _shadowed(im: Image.Image) -> Image.Image:
    """A phone's shadow over one side of the page: light falling from 100% to 45%."""
    w, h = im.size
    ramp = Image.linear_gradient("L").rotate(90).resize((w, h))  # dark on the right
    shade = ramp.point(lambda v: 255 - int(v * 0.55))
    grey = Image.merge("RGB", [shade] * 3)
    return ImageChops.multiply(im, grey)


def _jpeg(quality: int) -> Callable[[Image.Image], Image.Image]:
    def squeeze(im: Image.Image) -> Image.Image:
        out = io.BytesIO()
        im.save(out, "JPEG", quality=quality)
        return Image.open(io.BytesIO(out.getvalue())).convert("RGB")
    return squeeze


VARIANTS: dict[str, Callable[[Image.Image], Image.Image]] = {
    "as is": lambda im: im,
    "sideways": lambda im: im.rotate(90, expand=True),
    "upside down": lambda im: im.rotate(180),
    "tilted 4 deg": _tilt(4),
    "half size": lambda im: im.resize((im.width // 2, im.height // 2), Image.Resampling.LANCZOS),
    "jpeg q15": _jpeg(15),
    "dim": lambda im: ImageEnhance.Brightness(
        ImageEnhance.Contrast(im).enhance(0.45)).enhance(0.8),
    "photo on a table": _on_table,
    "slanted": _slanted,
    "shadowed": _shadowed,
}


def score(predicted: dict[str, Any], expected: dict[str, Any]) -> dict[str, bool]:
    return {f: truth_matches(f, predicted.get(f), expected) for f in FIELDS
            if expected.get(f) not in (None, "")}


def run_one(path: str, variant: str) -> dict[str, Any]:
    from renamerd.engine import rename

    image = Image.open(path).convert("RGB")
    out = io.BytesIO()
    VARIANTS[variant](image).save(out, "JPEG", quality=92)
    try:
        info = rename(out.getvalue(), Path(path).name).extracted_info
    except Exception as err:  # noqa: BLE001  (a refused image scores nothing)
        info = {"error": f"{type(err).__name__}: {err}"}
    return info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    args = parser.parse_args()
    truth = json.loads((args.directory / "truth.json").read_text(encoding="utf-8"))
    names = sorted(truth)[::args.every]
    jobs = [(n, v) for v in args.variants for n in names]
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(run_one, [str(args.directory / n) for n, _ in jobs],
                                [v for _, v in jobs]))
    right: dict[tuple[str, str], dict[str, bool]] = {}
    print(f"{len(names)} documents of {args.directory}")
    print(f"{'variant':<18}" + "".join(f"{f:>15}" for f in FIELDS))
    for (name, variant), info in zip(jobs, results, strict=True):
        right[(name, variant)] = score(info, truth[name])
    for variant in args.variants:
        cells = []
        for f in FIELDS:
            marks = [right[(n, variant)][f] for n in names if f in right[(n, variant)]]
            cells.append(f"{sum(marks)}/{len(marks)} {sum(marks) / max(1, len(marks)):.2f}")
        print(f"{variant:<18}" + "".join(f"{c:>15}" for c in cells))
    if "as is" in args.variants:
        for (name, variant), info in zip(jobs, results, strict=True):
            lost = [f for f, ok in right[(name, variant)].items()
                    if not ok and right[(name, "as is")].get(f)]
            if lost:
                shown = {f: info.get(f) for f in lost} | ({"error": info["error"]}
                                                         if "error" in info else {})
                print(f"  {variant}: {name} lost {', '.join(lost)}: {shown}")


if __name__ == "__main__":
    main()
