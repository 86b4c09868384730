"""Generated till receipts in the 14 extraction languages, photographed as people do.

`receipts()` returns deterministic `Receipt`s: a narrow till slip (80 mm) with a shop's name on
top (often with diacritics: "Bäckerei Köhler", "Piekarnia Żytnia"), its street, town, phone and
tax id, sometimes the operating company under them ("Köhler Backwaren GmbH": either name is
right, the brand is the truth), the date and time beside the till's and the slip's numbers, a
cashier, 3-6 items, the total, cash and change, a VAT line and the shop's thanks, in the
language's own words. `write(dir, items)` renders each one in a monospaced font as a phone
photo of it: turned by up to 5 degrees, slightly blurred, with specks and a shadow falling
across it, saved as JPEG, plus `truth.json` for `renamerd eval`.

The wording is what such slips print, written here independently of the engine's lexicon.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import random
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

from engine.docmaker import FONT_DIR

FONT_MONO = f"{FONT_DIR}/DejaVuSansMono.ttf"
FONT_MONO_BOLD = f"{FONT_DIR}/DejaVuSansMono-Bold.ttf"
#: characters a line of the slip holds (80 mm paper, 9 pt)
WIDTH_CHARS = 32

# per language: shops (brand, operating company), the slip's words, how dates are printed
T: dict[str, dict[str, Any]] = {
    "en": dict(shops=[("Corner Bakery", "Hollis Foods Ltd"), ("Greenleaf Grocers", None),
                      ("The Daily Grind", "Daily Grind Coffee Ltd")],
               street="14 Market Street", city="Leeds LS1 6DT", phone="Tel 0113 496 0{n}",
               tax="VAT Reg No GB 293 5{n}1 22", till="Till {t}  Trans {s}", cashier="Served by",
               total="TOTAL", cash="CASH", change="CHANGE", vat="VAT 20% incl.", title=None,
               thanks="Thank you for shopping with us", date="{d:02d}/{m:02d}/{y}", cur="£",
               comma=False, items=["Semi Skim Milk", "White Bloomer", "Free Range Eggs",
                                   "Cheddar 400g", "Bananas", "Flat White"]),
    "de": dict(shops=[("Bäckerei Köhler", "Köhler Backwaren GmbH"), ("Getränke Rößler", None),
                      ("Café Schönblick", "Schönblick Gastro GmbH")],
               street="Hauptstraße 1{n}", city="80331 München", phone="Tel. 089 21 5{n}",
               tax="St.-Nr. 143/5{n}1/20114", till="Kasse {t}  Bon {s}", cashier="Es bediente Sie",
               total="SUMME EUR", cash="Bar", change="Rückgeld", vat="MwSt 7% enthalten",
               title="Kassenbon", thanks="Vielen Dank für Ihren Einkauf!",
               date="{d:02d}.{m:02d}.{y}", cur="", comma=True,
               items=["Brötchen", "Roggenbrot", "Apfelschorle", "Käsebrezel", "Milch 1L",
                      "Butter"]),
    "fr": dict(shops=[("Boulangerie Lefèvre", "Lefèvre et Fils SARL"), ("Épicerie du Marché", None),
                      ("Café de la Gare", "Brasserie Étoile SAS")],
               street="12 rue de la République", city="69002 Lyon", phone="Tél. 04 78 3{n} 12 40",
               tax="SIRET 532 1{n}7 964 00018", till="Caisse {t}  Ticket {s}",
               cashier="Caissière", total="TOTAL TTC", cash="Espèces", change="Rendu",
               vat="dont TVA 5,5%", title=None, thanks="Merci de votre visite, à bientôt !",
               date="{d:02d}/{m:02d}/{y}", cur="€", comma=True,
               items=["Baguette", "Croissant", "Pain au chocolat", "Éclair café", "Lait 1L",
                      "Pommes"]),
    "es": dict(shops=[("Panadería Núñez", "Núñez Hermanos S.L."), ("Frutería El Olivo", None),
                      ("Cafetería La Estación", "Hostelería Iberia S.L.")],
               street="Calle Mayor 2{n}", city="28013 Madrid", phone="Tel. 91 522 4{n} 18",
               tax="CIF B8{n}123456", till="Caja {t}  Ticket {s}", cashier="Le atendió",
               total="TOTAL", cash="Efectivo", change="Cambio", vat="IVA 10% incluido",
               title="FACTURA SIMPLIFICADA", thanks="¡Gracias por su visita!",
               date="{d:02d}/{m:02d}/{y}", cur="€", comma=True,
               items=["Barra de pan", "Magdalenas", "Café con leche", "Naranjas", "Aceite 1L",
                      "Queso manchego"]),
    "it": dict(shops=[("Pasticceria Nicolò", "Nicolò Dolciaria S.r.l."), ("Bar Sant'Elia", None),
                      ("Forno Città Vecchia", "Panifici Uniti S.r.l.")],
               street="Via Garibaldi 1{n}", city="20121 Milano", phone="Tel. 02 8{n}4 1220",
               tax="P.IVA 0123{n}560789", till="Cassa {t}  Scontrino {s}", cashier="Operatore",
               total="TOTALE EURO", cash="Contanti", change="Resto", vat="di cui IVA 10%",
               title="DOCUMENTO COMMERCIALE", thanks="Grazie e arrivederci",
               date="{d:02d}/{m:02d}/{y}", cur="€", comma=True,
               items=["Cornetto", "Caffè", "Cappuccino", "Focaccia", "Acqua 0,5L", "Tiramisù"]),
    "pt": dict(shops=[("Padaria São João", "Panificação Lusa, Lda."),
                      ("Pastelaria Conceição", None), ("Café Avenida", "Avenida Cafés, Lda.")],
               street="Rua Augusta 4{n}", city="1100-053 Lisboa", phone="Tel. 21 34{n} 2210",
               tax="NIF 50{n}123456", till="Caixa {t}  Talão {s}", cashier="Operador",
               total="TOTAL", cash="Numerário", change="Troco", vat="IVA 23% incluído",
               title="FATURA SIMPLIFICADA", thanks="Obrigado pela sua visita",
               date="{d:02d}-{m:02d}-{y}", cur="€", comma=True,
               items=["Pão de Deus", "Pastel de nata", "Galão", "Bica", "Água 0,5L",
                      "Sumo de laranja"]),
    "nl": dict(shops=[("Bakkerij De Korenaar", "Korenaar Brood B.V."), ("Café 't Hoekje", None),
                      ("Groenteboer Jansen", "Jansen AGF B.V.")],
               street="Kerkstraat 1{n}", city="1017 GL Amsterdam", phone="Tel. 020 62{n} 4410",
               tax="BTW NL8{n}12345B01", till="Kassa {t}  Bon {s}", cashier="Kassière",
               total="TOTAAL", cash="Contant", change="Wisselgeld", vat="BTW 9% inbegrepen",
               title=None, thanks="Bedankt voor uw aankoop!", date="{d:02d}-{m:02d}-{y}",
               cur="€", comma=True,
               items=["Volkorenbrood", "Krentenbollen", "Appeltaart", "Melk 1L", "Kaas jong",
                      "Koffie"]),
    "pl": dict(shops=[("Piekarnia Żytnia", "Żytnia Sp. z o.o."), ("Kawiarnia Różana", None),
                      ("Sklep Spożywczy Łan", "Łan Handel Sp. z o.o.")],
               street="ul. Marszałkowska 1{n}", city="00-624 Warszawa", phone="tel. 22 62{n} 11 40",
               tax="NIP 52{n}-123-45-67", till="Kasa {t}  Nr wydruku {s}", cashier="Kasjer",
               total="SUMA PLN", cash="Gotówka", change="Reszta", vat="PTU B 8%",
               title="PARAGON FISKALNY", thanks="Dziękujemy za zakupy!",
               date="{y}-{m:02d}-{d:02d}", cur="", comma=True,
               items=["Chleb żytni", "Bułka kajzerka", "Pączek", "Mleko 1L", "Masło",
                      "Kawa czarna"]),
    "sv": dict(shops=[("Bageri Ängsgården", "Ängsgårdens Bröd AB"), ("Café Söder", None),
                      ("Livs på Hörnet", "Hörnet Handel AB")],
               street="Götgatan 1{n}", city="118 46 Stockholm", phone="Tel. 08-64{n} 22 10",
               tax="Org.nr 55{n}612-3456", till="Kassa {t}  Kvitto {s}", cashier="Kassör",
               total="TOTALT", cash="Kontant", change="Växel", vat="Moms 12%", title="KVITTO",
               thanks="Tack för ditt köp!", date="{y}-{m:02d}-{d:02d}", cur="kr", comma=True,
               items=["Kanelbulle", "Kaffe", "Surdegsbröd", "Mjölk 1L", "Räksmörgås",
                      "Äpplen"]),
    "da": dict(shops=[("Bageriet Åkanden", "Åkanden Bageri ApS"), ("Købmand Ørsted", None),
                      ("Café Æblehaven", "Æblehaven Café ApS")],
               street="Nørrebrogade 1{n}", city="2200 København N", phone="Tlf. 35 3{n} 22 10",
               tax="CVR 3{n}123456", till="Kasse {t}  Bon {s}", cashier="Ekspedient",
               total="I ALT", cash="Kontant", change="Byttepenge", vat="Heraf moms 25%",
               title="KVITTERING", thanks="Tak for dit køb!", date="{d:02d}.{m:02d}.{y}",
               cur="kr", comma=True,
               items=["Rugbrød", "Wienerbrød", "Kaffe", "Mælk 1L", "Smørrebrød", "Æbler"]),
    "no": dict(shops=[("Bakeri Fjøsvik", "Fjøsvik Bakeri AS"), ("Kafé Søstrene", None),
                      ("Nærbutikken Løvås", "Løvås Handel AS")],
               street="Storgata 1{n}", city="0155 Oslo", phone="Tlf. 22 4{n} 11 20",
               tax="Org.nr. 9{n}8 123 456 MVA", till="Kasse {t}  Kvittering {s}",
               cashier="Kasserer", total="TOTALT", cash="Kontant", change="Vekslepenger",
               vat="MVA 15%", title="KVITTERING", thanks="Takk for handelen!",
               date="{d:02d}.{m:02d}.{y}", cur="kr", comma=True,
               items=["Skolebolle", "Kaffe", "Grovbrød", "Melk 1L", "Brunost", "Epler"]),
    "fi": dict(shops=[("Leipomo Mäkelä", "Mäkelän Leipomo Oy"), ("Kahvila Äimä", None),
                      ("Lähikauppa Särkkä", "Särkkä Kauppa Oy")],
               street="Mannerheimintie 1{n}", city="00100 Helsinki", phone="Puh. 09 61{n} 2210",
               tax="Y-tunnus 2{n}12345-6", till="Kassa {t}  Kuitti {s}", cashier="Myyjä",
               total="YHTEENSÄ", cash="Käteinen", change="Takaisin", vat="ALV 14%",
               title="KUITTI", thanks="Kiitos käynnistä!", date="{d}.{m}.{y}", cur="€",
               comma=True,
               items=["Ruisleipä", "Korvapuusti", "Kahvi", "Maito 1L", "Karjalanpiirakka",
                      "Omenat"]),
    "cs": dict(shops=[("Pekárna U Lípy", "Lípa Pekařství s.r.o."), ("Kavárna Růže", None),
                      ("Potraviny Žižkov", "Žižkov Obchod s.r.o.")],
               street="Vinohradská 1{n}", city="120 00 Praha 2", phone="Tel. 222 51{n} 240",
               tax="DIČ CZ2{n}123456", till="Pokladna {t}  Účtenka {s}", cashier="Obsluha",
               total="CELKEM", cash="Hotově", change="Vráceno", vat="DPH 12 %",
               title="ÚČTENKA", thanks="Děkujeme za nákup!", date="{d:02d}.{m:02d}.{y}",
               cur="Kč", comma=True,
               items=["Rohlík", "Chléb kmínový", "Koláč", "Mléko 1L", "Káva", "Jablka"]),
    "tr": dict(shops=[("Fırın Güneş", "Güneş Unlu Mamulleri Ltd. Şti."), ("Kafe Çınaraltı", None),
                      ("Şarküteri Öztürk", "Öztürk Gıda A.Ş.")],
               street="İstiklal Caddesi No: 1{n}", city="34433 Beyoğlu İstanbul",
               phone="Tel: 0212 24{n} 11 20", tax="V.D. Beyoğlu VKN 12{n}4567890",
               till="Kasa {t}  Fiş No {s}", cashier="Kasiyer", total="TOPLAM", cash="Nakit",
               change="Para üstü", vat="KDV %10", title="FİŞ",
               thanks="Bizi tercih ettiğiniz için teşekkürler", date="{d:02d}.{m:02d}.{y}",
               cur="TL", comma=True,
               items=["Simit", "Poğaça", "Çay", "Süt 1L", "Beyaz peynir", "Türk kahvesi"]),
}
LANGS = tuple(T)


@dataclass
class Receipt:
    name: str
    lines: list[tuple[str, bool]]  # (text, bold)
    truth: dict[str, Any]


def _money(cents: int, comma: bool) -> str:
    text = f"{cents / 100:.2f}"
    return text.replace(".", ",") if comma else text


def _row(left: str, right: str) -> str:
    return left + " " * max(1, WIDTH_CHARS - len(left) - len(right)) + right


def _receipt(name: str, idx: int, code: str, rnd: random.Random) -> Receipt:
    t = T[code]
    brand, company = t["shops"][idx % len(t["shops"])]
    n = rnd.randrange(1, 9)
    date = dt.date(2023, 1, 1) + dt.timedelta(days=rnd.randrange(0, 700))
    shown = t["date"].format(d=date.day, m=date.month, y=date.year)
    time = f"{rnd.randrange(7, 21):02d}:{rnd.randrange(60):02d}"
    top = brand.upper() if rnd.random() < 0.5 else brand
    lines: list[tuple[str, bool]] = [(top, True), (t["street"].format(n=n), False),
                                     (t["city"], False), (t["phone"].format(n=n), False),
                                     (t["tax"].format(n=n), False)]
    if company:
        lines.append((company, False))
    if t["title"]:
        lines.append((t["title"], True))
    lines.append((_row(shown, time), False))
    lines.append((t["till"].format(t=rnd.randrange(1, 6), s=rnd.randrange(1000, 9999)), False))
    lines.append((f"{t['cashier']}: {rnd.choice(['Anna', 'Marek', 'Lena', 'Tomas'])}", False))
    lines.append(("-" * WIDTH_CHARS, False))
    total = 0
    for item in rnd.sample(t["items"], rnd.randrange(3, 7)):
        cents = rnd.randrange(80, 1500)
        total += cents
        lines.append((_row(item, _money(cents, t["comma"])), False))
    lines.append(("-" * WIDTH_CHARS, False))
    given = (total // 500 + 1) * 500
    cur = f" {t['cur']}" if t["cur"] else ""
    lines += [(_row(t["total"], _money(total, t["comma"]) + cur), True),
              (_row(t["cash"], _money(given, t["comma"])), False),
              (_row(t["change"], _money(given - total, t["comma"])), False),
              (t["vat"], False), ("", False), (t["thanks"], False)]
    truth: dict[str, Any] = {"date": date.isoformat(), "issuer": brand,
                             "document_type": "receipt", "language": code}
    if company:
        truth["issuer_alternatives"] = [company]
    return Receipt(name, lines, truth)


def receipts(per_language: int = 3, seed: int = 20261129,
             languages: tuple[str, ...] = LANGS) -> list[Receipt]:
    """Deterministic receipts: `per_language` per language, shops taken in turn."""
    rnd = random.Random(seed)
    out: list[Receipt] = []
    for code in languages:
        for i in range(per_language):
            out.append(_receipt(f"{len(out):04d}_{code}_receipt.jpg", i, code, rnd))
    return out


def photograph(receipt: Receipt, *, dpi: int = 200, seed: int = 0) -> bytes:
    """The slip printed at `dpi` and photographed: turned by up to 5 degrees, blurred a little,
    specked, a shadow falling across it; JPEG bytes."""
    rnd = random.Random(seed)
    px = dpi / 25.4
    size = round(9 * dpi / 72)
    regular, bold = ImageFont.truetype(FONT_MONO, size), ImageFont.truetype(FONT_MONO_BOLD,
                                                                            size)
    width, step = round(80 * px), round(size * 1.45)
    img = Image.new("L", (width, step * (len(receipt.lines) + 4)), 255)
    draw = ImageDraw.Draw(img)
    left = round(4 * px)
    for i, (text, strong) in enumerate(receipt.lines):
        font = bold if strong else regular
        x = left
        if i < 6 and not text.startswith("-"):  # the shop's block is centred
            x = max(left, (width - round(draw.textlength(text, font=font))) // 2)
        draw.text((x, step * (i + 2)), text, fill=rnd.randrange(0, 50), font=font)
    for _ in range(img.width * img.height // 4000):
        draw.point((rnd.randrange(img.width), rnd.randrange(img.height)),
                   fill=rnd.choice((60, 120, 180)))
    img = img.filter(ImageFilter.GaussianBlur(radius=rnd.uniform(0.5, 1.0)))
    # light falling from one side: the far edge at about 70% of the near one's
    shadow = Image.linear_gradient("L").rotate(rnd.choice((0, 90, 180, 270))).resize(img.size)
    img = ImageChops.multiply(img, shadow.point(lambda v: 255 - v * 75 // 255))
    img = img.rotate(rnd.uniform(-5, 5), resample=Image.Resampling.BICUBIC, expand=True,
                     fillcolor=235)
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=80)
    return buf.getvalue()


def write(directory: Path, items: list[Receipt]) -> Path:
    """Write each receipt's photo and `truth.json` into `directory`; returns it."""
    directory.mkdir(parents=True, exist_ok=True)
    truth = {}
    for r in items:
        (directory / r.name).write_bytes(photograph(r, seed=zlib.crc32(r.name.encode())))
        truth[r.name] = r.truth
    (directory / "truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1),
                                          encoding="utf-8")
    return directory
