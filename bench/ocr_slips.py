"""How the fields hold up when OCR misreads characters: a labelled folder's page texts with
slips added, as OCR makes them, measured with the same scoring as `renamerd eval`.

    .venv/bin/python bench/ocr_slips.py DIR [--rates 0 0.01 0.03] [--seeds 3] [--cache CACHE]

Each document of DIR (a folder for `renamerd eval`: its files and truth.json) is read once with
the engine's default configuration (OCR for scans) and its page texts kept in CACHE (default
DIR/.page_texts/; read again only when missing). Then, for each rate and seed, every character that OCR
confuses with another ("O" and "0", "I" and "1", "S" and "5", "B" and "8", "/" and "1", "." and
",", ":" and ";" ...) is swapped with probability `rate`, and a blank dropped with 0.3 x `rate`
(PP-OCR joins words); `extract` reads the result. Prints the share right per field (medians
are not needed: the slips are drawn from fixed seeds, so a run is repeatable).
Rate 0 is the texts as read. Then the texts as read with a line put above the first page, as
receipts print one over the shop's name: a banner ("Welcome", "*** COPY ***", "DUPLICATE"),
or a person's name (the cashier, a customer). docs/engine-accuracy.md keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from renamerd.engine import extract_text_fields, page_text  # noqa: E402
from renamerd.engine.evaluation import truth_matches  # noqa: E402
from renamerd.engine.text import open_text  # noqa: E402
from renamerd.engine.types import EngineConfig  # noqa: E402

#: what OCR reads for what (both ways where both happen)
LOOKALIKES = {"O": "0", "0": "O", "I": "1", "1": "I", "S": "5", "5": "S", "B": "8", "8": "B",
              "l": "1", "D": "0", "G": "6", "Z": "2", "/": "1", ".": ",", ",": ".", ":": ";"}
FIELDS = ("date", "issuer", "document_type", "invoice_number")
ABOVE = {"a banner": ("Welcome", "*** COPY ***", "DUPLICATE", "OFFICIAL RECEIPT"),
         "a person's name": ("Lim Siew Mei", "ONG KAH HUAT", "Maria Schmidt")}
MAX_PAGES = 3


def page_texts(directory: Path, names: list[str], cache: Path) -> dict[str, list[str]]:
    """Each document's page texts (at most MAX_PAGES), read once and cached in `cache`."""
    cache.mkdir(parents=True, exist_ok=True)
    texts = {}
    for name in names:
        kept = cache / f"{name}.json"
        if not kept.exists():
            doc = open_text((directory / name).read_bytes(), EngineConfig())
            pages = [page_text(doc.page(i)) for i in range(min(doc.page_count, MAX_PAGES))]
            kept.write_text(json.dumps(pages, ensure_ascii=False), encoding="utf-8")
        texts[name] = json.loads(kept.read_text(encoding="utf-8"))
    return texts


def with_slips(text: str, rate: float, rnd: random.Random) -> str:
    out = []
    for ch in text:
        draw = rnd.random()
        if draw < rate and ch in LOOKALIKES:
            out.append(LOOKALIKES[ch])
        elif draw < rate * 1.3 and ch == " ":
            continue
        else:
            out.append(ch)
    return "".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--rates", type=float, nargs="+", default=[0.0, 0.01, 0.03])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--cache", type=Path, help="where page texts are kept")
    args = parser.parse_args()
    truth = json.loads((args.directory / "truth.json").read_text(encoding="utf-8"))
    texts = page_texts(args.directory, sorted(truth), args.cache or args.directory / ".page_texts")
    print(f"{len(texts)} documents of {args.directory}")
    for rate in args.rates:
        def slipped(name: str, pages: list[str], seed: int, rate: float = rate) -> list[str]:
            rnd = random.Random(zlib.crc32(f"{name}/{seed}".encode()))
            return [with_slips(p, rate, rnd) for p in pages]
        print(f"slips {rate:.0%}: {measure(texts, truth, slipped, args.seeds if rate else 1)}")
    for what, lines in ABOVE.items():
        def above(name: str, pages: list[str], seed: int, lines: tuple[str, ...] = lines) -> list[str]:
            line = lines[zlib.crc32(name.encode()) % len(lines)]
            return [f"{line}\n{pages[0]}", *pages[1:]] if pages else pages
        print(f"{what} above: {measure(texts, truth, above, 1)}")


def measure(texts: dict[str, list[str]], truth: dict[str, dict[str, object]],
            change: Callable[[str, list[str], int], list[str]], seeds: int) -> str:
    """The share right per field of `extract` on every document's pages as `change` makes
    them (for each seed)."""
    counts = {f: [0, 0] for f in FIELDS}
    for seed in range(seeds):
        for name, pages in texts.items():
            values = extract_text_fields(change(name, pages, seed)).values
            for f in FIELDS:
                if truth[name].get(f) not in (None, ""):
                    counts[f][0] += truth_matches(f, values.get(f), truth[name])
                    counts[f][1] += 1
    return "  ".join(f"{f} {ok / n:.3f}" for f, (ok, n) in counts.items() if n)


if __name__ == "__main__":
    main()
