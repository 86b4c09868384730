"""Generated born-digital invoices laid out as real ones are, for measuring (issue 17).

Each invoice has a seller and a buyer, in one of several layouts seen on real invoices:

* "classic": the seller's trading name large at the top left, its address and ids below;
  "INVOICE" and the number/date block on the right; "Bill to" and "Ship to" blocks side by
  side; the items; totals; a footer with the legal entity, registered office and numbers.
* "window": the buyer's address in an envelope window at the top left (a small sender line
  above it), the seller's block on the right.
* "brand": a hotel or shop bill: a brand at the top, the operating company only in the footer
  ("Operated by ... GmbH"): the brand is the issuer; the company is accepted too.
* "table": a two-column header table ("Seller" | "Buyer") as Polish and Czech invoices print.

The truth's issuer is the trading name (the brand when there is one); `issuer_alternatives`
lists the legal entity. `split(items)` keeps a held-out part (by seed) out of any tuning.
Phrasing is independent of the engine's lexicon; languages and formats are those of
tests/engine/corpus.py.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.corpus import L
from engine.docmaker import TextAt, make_pdf, make_scan

LANGS = ("en", "de", "fr", "es", "it", "nl", "pl", "cs", "sv", "da", "pt", "fi", "no", "tr")
LAYOUTS = ("classic", "window", "brand", "table")
BRANDS = ("Hotel Aurora", "Café Lindenhof", "Casa Verde", "Nordlys Hotel", "Bistro Centrale",
          "Grand Hôtel du Lac", "Hotel Złota Róża", "Pension Zlatý Lev", "Seaside Inn",
          "Restaurante El Faro", "Ravintola Kaisla", "Otel Deniz Yıldızı")
SELLER_TITLES = {"en": ("Seller", "Buyer", "Ship to"),
                 "de": ("Verkäufer", "Käufer", "Lieferadresse"),
                 "fr": ("Vendeur", "Acheteur", "Livrer à"), "es": ("Vendedor", "Comprador", "Enviar a"),
                 "it": ("Venditore", "Acquirente", "Spedire a"), "nl": ("Verkoper", "Koper", "Afleveradres"),
                 "pl": ("Sprzedawca", "Nabywca", "Odbiorca"), "cs": ("Dodavatel", "Odběratel", "Příjemce"),
                 "sv": ("Säljare", "Köpare", "Leveransadress"), "da": ("Sælger", "Køber", "Leveringsadresse"),
                 "pt": ("Fornecedor", "Cliente", "Local de entrega"),
                 "fi": ("Myyjä", "Ostaja", "Toimitusosoite"),
                 "no": ("Selger", "Kjøper", "Leveringsadresse"), "tr": ("Satıcı", "Alıcı", "Teslimat adresi")}
OPERATED = {"en": "Operated by", "de": "Betrieben von", "fr": "Exploité par", "es": "Gestionado por",
            "it": "Gestito da", "nl": "Geëxploiteerd door", "pl": "Prowadzone przez",
            "cs": "Provozovatel", "sv": "Drivs av", "da": "Drives af", "pt": "Explorado por",
            "fi": "Ylläpitäjä", "no": "Drives av", "tr": "İşletmeci"}


@dataclass
class Invoice:
    name: str
    language: str
    layout: str
    lines: list[TextAt]
    truth: dict[str, Any] = field(default_factory=dict)


def _company(rnd: random.Random, lang: dict[str, Any]) -> str:
    return f"{rnd.choice(lang['firms'])} {rnd.choice(lang['trades'])} {rnd.choice(lang['suffixes'])}"


def _fmt(lang: dict[str, Any], d: dt.date, textual: bool) -> str:
    if textual:
        return str(lang["textual"].format(d=d.day, M=lang["months"][d.month - 1], y=d.year))
    return str(lang["numeric"].format(d=d.day, m=d.month, y=d.year))


def _parties(rnd: random.Random, code: str) -> dict[str, str]:
    lang = L[code]
    seller = _company(rnd, lang)
    buyer = _company(rnd, lang)
    while buyer == seller:
        buyer = _company(rnd, lang)
    n = rnd.randint(1, 9)
    return {"seller": seller, "buyer": buyer,
            "street": lang["street"].format(n=n * 3), "city": lang["city"].format(n=n),
            "bstreet": lang["street"].format(n=n * 7 + 2),
            "bcity": lang["city"].format(n=(n + 3) % 10),
            "sstreet": lang["street"].format(n=n * 5 + 1),
            "person": rnd.choice(lang["people"])}


def _meta(rnd: random.Random, code: str, date: dt.date, number: str) -> list[str]:
    lang = L[code]
    textual = rnd.random() < 0.4
    meta = [f"{lang['number']}: {number}", f"{lang['issue']}: {_fmt(lang, date, textual)}"]
    if rnd.random() < 0.7:
        meta.append(f"{lang['due']}: {_fmt(lang, date + dt.timedelta(days=30), textual)}")
    if rnd.random() < 0.5:
        meta.insert(rnd.randint(0, len(meta)), f"{lang['customer']}: {rnd.randint(10000, 99999)}")
    if rnd.random() < 0.4:
        meta.append(f"{lang['order']}: PO-{rnd.randint(1000, 9999)}")
    if rnd.random() < 0.3:
        start = date.replace(day=1) - dt.timedelta(days=27)
        meta.append(f"{lang['delivery']}: {_fmt(lang, start, False)}")
    return meta


def _items(rnd: random.Random, code: str, y: float) -> tuple[list[TextAt], float]:
    lang = L[code]
    out = [TextAt(20, y, "Pos.   Description                           Qty      Amount", 9, True)]
    for i in range(rnd.randint(2, 6)):
        y += 5.5
        trade = rnd.choice(lang["trades"])
        out.append(TextAt(20, y, f"{i + 1}      {trade} {rnd.randint(1, 99)}", 9))
        out.append(TextAt(120, y, str(rnd.randint(1, 20)), 9))
        out.append(TextAt(150, y, f"{rnd.randint(10, 9999)},{rnd.randint(0, 99):02d}", 9))
    y += 10
    total = f"{rnd.randint(100, 99999)},{rnd.randint(0, 99):02d} {lang['cur']}"
    out.append(TextAt(120, y, f"{lang['total']}: {total}", 10, True))
    return out, y + 8


def _footer(rnd: random.Random, code: str, legal: str, p: dict[str, str]) -> list[TextAt]:
    lang = L[code]
    reg = f"{lang['vat']} {rnd.randint(10**8, 10**9 - 1)}"
    return [TextAt(20, 272, f"{legal} · {p['street']} · {p['city']}", 7),
            TextAt(20, 276, f"{reg} · {lang['bank']} · IBAN DE{rnd.randint(10**19, 10**20 - 1)}", 7)]


def _invoice(idx: int, code: str, layout: str, rnd: random.Random) -> Invoice:
    lang = L[code]
    p = _parties(rnd, code)
    date = dt.date(2023, 1, 1) + dt.timedelta(days=rnd.randint(0, 800))
    prefix, sep = rnd.choice(["INV", "RE", "F", "FV", ""]), rnd.choice(["-", "/", ""])
    number = f"{prefix}{date.year}{sep}{rnd.randint(1, 99999):05d}"
    seller_t, buyer_t, ship_t = SELLER_TITLES[code]
    title = lang["titles"]["invoice"]
    issuer, alternatives = p["seller"], []
    lines: list[TextAt] = []
    meta = _meta(rnd, code, date, number)
    if layout == "classic":
        lines += [TextAt(20, 18, p["seller"], 17, True), TextAt(20, 26, p["street"], 9),
                  TextAt(20, 30, p["city"], 9),
                  TextAt(20, 34, f"Tel. +{rnd.randint(30, 49)} {rnd.randint(100, 999)} "
                                 f"{rnd.randint(10000, 99999)}", 9),
                  TextAt(130, 18, title, 18, True)]
        lines += [TextAt(130, 28 + 5 * i, m, 9) for i, m in enumerate(meta)]
        lines += [TextAt(20, 62, f"{lang['recipient']}:", 9, True), TextAt(20, 67, p["buyer"], 10),
                  TextAt(20, 72, p["bstreet"], 9), TextAt(20, 77, p["bcity"], 9)]
        if rnd.random() < 0.6:
            lines += [TextAt(110, 62, f"{ship_t}:", 9, True), TextAt(110, 67, p["buyer"], 10),
                      TextAt(110, 72, p["sstreet"], 9), TextAt(110, 77, p["bcity"], 9)]
        y = 95.0
    elif layout == "window":
        lines += [TextAt(20, 45, f"{p['seller']} · {p['street']} · {p['city']}", 7),
                  TextAt(20, 51, p["buyer"], 10), TextAt(20, 56, p["person"], 10),
                  TextAt(20, 61, p["bstreet"], 10), TextAt(20, 66, p["bcity"], 10),
                  TextAt(125, 18, p["seller"], 13, True), TextAt(125, 24, p["street"], 9),
                  TextAt(125, 28, p["city"], 9), TextAt(20, 85, title, 15, True)]
        lines += [TextAt(125, 45 + 5 * i, m, 9) for i, m in enumerate(meta)]
        y = 100.0
    elif layout == "brand":
        brand = rnd.choice(BRANDS)
        issuer, alternatives = brand, [p["seller"]]
        lines += [TextAt(70, 15, brand.upper() if rnd.random() < 0.5 else brand, 20, True),
                  TextAt(70, 24, f"{p['street']} · {p['city']}", 9),
                  TextAt(20, 40, title, 14, True)]
        lines += [TextAt(20, 48 + 5 * i, m, 9) for i, m in enumerate(meta)]
        lines += [TextAt(120, 48, f"{lang['recipient']}:", 9, True), TextAt(120, 53, p["buyer"], 10),
                  TextAt(120, 58, p["bstreet"], 9), TextAt(120, 63, p["bcity"], 9)]
        y = 90.0
    else:  # "table"
        lines += [TextAt(20, 18, title, 16, True)]
        lines += [TextAt(20, 26 + 5 * i, m, 9) for i, m in enumerate(meta)]
        top = 30 + 5 * len(meta)
        lines += [TextAt(20, top, f"{seller_t}:", 9, True), TextAt(20, top + 5, p["seller"], 10, True),
                  TextAt(20, top + 10, p["street"], 9), TextAt(20, top + 15, p["city"], 9),
                  TextAt(110, top, f"{buyer_t}:", 9, True), TextAt(110, top + 5, p["buyer"], 10, True),
                  TextAt(110, top + 10, p["bstreet"], 9), TextAt(110, top + 15, p["bcity"], 9)]
        y = top + 30
    items, y = _items(rnd, code, y)
    lines += items
    lines.append(TextAt(20, y, lang["thanks"], 9))
    legal = p["seller"]
    footer = _footer(rnd, code, legal, p)
    if layout == "brand":
        footer[0] = TextAt(20, 272, f"{OPERATED[code]} {legal} · {p['street']} · {p['city']}", 7)
    lines += footer
    truth: dict[str, Any] = {"date": date.isoformat(), "issuer": issuer,
                             "invoice_number": number, "document_type": "invoice"}
    if alternatives:
        truth["issuer_alternatives"] = alternatives
    return Invoice(f"inv{idx:04d}_{code}_{layout}", code, layout, lines, truth)


def invoices(count: int = 112, seed: int = 17) -> list[Invoice]:
    """Deterministic invoices: languages and layouts in turn, values drawn from `seed`."""
    rnd = random.Random(seed)
    return [_invoice(i, LANGS[i % len(LANGS)], LAYOUTS[(i // len(LANGS)) % len(LAYOUTS)], rnd)
            for i in range(count)]


def split(items: list[Invoice]) -> tuple[list[Invoice], list[Invoice]]:
    """(tuning part, held-out part): every third invoice is held out."""
    return ([inv for i, inv in enumerate(items) if i % 3 != 2],
            [inv for i, inv in enumerate(items) if i % 3 == 2])


def drawn_apart(inv: Invoice, seed: int) -> Invoice:
    """`inv` with its text blocks (runs of lines in one column) drawn in a random order, as
    some PDF producers write a page: the table first, the letterhead last, columns apart."""
    blocks: list[list[TextAt]] = []
    for item in inv.lines:
        last = blocks[-1][-1] if blocks else None
        if last is not None and abs(last.x_mm - item.x_mm) < 1 and 0 < item.y_mm - last.y_mm < 12:
            blocks[-1].append(item)
        else:
            blocks.append([item])
    random.Random(seed).shuffle(blocks)
    return Invoice(inv.name, inv.language, inv.layout, [t for b in blocks for t in b], inv.truth)


def write(directory: Path, items: list[Invoice], *, scans: bool = False) -> Path:
    """PDFs (or 200 dpi noisy scans) and truth.json for `renamerd eval`; returns the folder."""
    directory.mkdir(parents=True, exist_ok=True)
    truth = {}
    for inv in items:
        filename = inv.name + (".png" if scans else ".pdf")
        data = (make_scan(inv.lines, dpi=200, noise=0.02, seed=len(inv.name)) if scans
                else make_pdf(inv.lines))
        (directory / filename).write_bytes(data)
        truth[filename] = inv.truth
    (directory / "truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1),
                                          encoding="utf-8")
    return directory
