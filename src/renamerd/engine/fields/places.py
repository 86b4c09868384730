"""What an address, a phone number or a bank's details look like on a page: the tests the
issuer (a name is none of these) and the invoice number (a house's "No. 1" is none) share.
Pure; each takes a line's text (folded or not: the patterns ignore case)."""

from __future__ import annotations

import re

#: words that name a street, a square or a building in the extraction languages
_STREET_WORDS = (
    r"str\.|strasse|straße|street|st\.|road|rd\.|avenue|ave\.|rue|via|viale|calle|"
    r"avenida|rua|laan|straat|weg|gatan|gade|vej|katu|tie|ulica|ul\.|cad\.|caddesi|sokak|"
    r"mah\.|jalan|jln|lot|p\.?o\.? box|postfach|plaza|piazza|platz|building|"
    # squares, boulevards and lanes ("Václavské náměstí 24", "plac Bankowy 2", "Corso Italia")
    r"náměstí|nám\.|plac|aleja|al\.|corso|praça|plaça|boulevard|blvd\.?|paseo|avda\.|"
    r"carrer|travessa|torget|sokağı|bulvarı|bulv\.|blv\.|mh\.|av\.|cadde|bulvar|mahallesi|"
    # Spain's and Portugal's tree-lined avenues ("Alameda de Hércules 32", "Rambla Nova 5"),
    # a name and a house number after them (a clinic may be named "ALAMEDA")
    r"(?:alameda|rambla)(?=(?:\s+[^\W\d_]+){1,4},?\s+\d)|"
    # Austria's and Switzerland's lanes written apart ("Linzer Gasse 21"), Italy's embankments
    # ("Lungadige Panvinio 18", "Lungomare Colombo 5")
    r"gasse|lungadige|lungarno|lungomare|lungotevere|lungolago|"
    # Norway's and Sweden's streets written apart, before their number ("Karl Johans gate 12",
    # "Bygdøy allé 2"): after a word and before a number only ("gate" is English too)
    r"(?<=[^\W\d_]\s)(?:gate|gata|vei|veg|allé)(?=\s\d)"
)
#: Spanish "C/ Mayor", "C/Ribera del Loira" (calle)
_CALLE = r"c/ ?(?=[^\W\d_])"
#: a street's word, or "No." as a house's number is written
_STREET = re.compile(rf"(?<!\w)(?:(?:{_STREET_WORDS})(?!\w)|no\.(?=\s?\d)|{_CALLE})", re.I)
#: a street's word, with the short forms of lanes written without their dot ("Jl Sudirman",
#: "Soi 5", "St Kilda Rd")
_STREET_NAMED = re.compile(
    rf"(?<!\w)(?:(?:{_STREET_WORDS}|jl\.?|lorong|lrg\.?|gang|gg\.?|lane|soi|st|rd|ave)(?!\w)"
    rf"|{_CALLE})", re.I)
#: a street written as one word with its house number ("Kerkstraat 9", "Hauptstr. 5"); (the
#: lookbehind, not "[^\W\d_]{2,}" before the ending: that one tried every ending at every split
#: of each word. The pattern is only ever a test, and both find a match alike)
_STREET_NUMBER = re.compile(
    r"(?<=[^\W\d_]{2})(?:straat|weg|laan|plein|gracht|kade|dijk|singel|straße|strasse|str\.|"
    r"allee|gasse|platz|damm|gatan|vägen|gade|gaden|vej|vejen|veien|stræde|gränd|gata|katu|"
    r"tie)\s?\d{1,4}[a-z]?(?!\w)",
    re.I,
)
_DIGIT = re.compile(r"\d")

POSTCODE = re.compile(
    r"(?<!\w)(?:\d{2}-\d{3}|\d{3} ?\d{2}|\d{4,5}|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})(?!\w)")
#: a phone label as a word of its own (not the end of "HOTEL"), or an international prefix
PHONE = re.compile(r"(?<!\w)(?:tel|phone|fax|tlf|puh|telefon|telefono|téléphone)\b|\+\d{2}",
                   re.I)
BANKISH = re.compile(r"(?<!\w)(?:iban|bic|swift|bank|banque|banco|banca|konto|bankgiro|"
                     r"plusgiro|account|rekening|rachunek|ucet|účet)(?!\w)", re.I)


def address(text: str) -> bool:
    """`text` names a street or a house's "No.", or a one-word street with its house number
    (only looked for where there is a digit)."""
    return bool(_STREET.search(text) or (_DIGIT.search(text) and _STREET_NUMBER.search(text)))


def street_named(text: str) -> bool:
    """`text` holds a street's word (not "No." alone): on such a line "No. 1" numbers a house."""
    return _STREET_NAMED.search(text) is not None
