"""The instruction grammar: every kind of clause in each of the seven instruction languages,
and every kind of misread reported in `not_understood` with its reason (never applied in
part, never dropped in silence)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from renamerd.engine.instructions import (
    INSTRUCTION_LANGUAGES,
    AmountTest,
    Condition,
    DateTest,
    compile_template,
)
from renamerd.engine.naming import Part

INVOICE = {"document_type": "invoice", "date": "2024-03-05", "issuer": "Telekom Deutschland",
           "amount": "512.40", "currency": "GBP"}

ISSUE_EXAMPLE = ("Use format YYYY-MM-DD - Company - Amount. Put invoices over 400 GBP in Big/ "
                 "and everything else in Small/")


def test_the_example_of_the_issue_compiles_whole() -> None:
    rules = compile_template(ISSUE_EXAMPLE)
    assert rules.not_understood == []
    assert rules.fields == ["date", "issuer", "amount"] and rules.separator == " - "
    assert rules.describe() == [
        "name: date + issuer + amount", "separator: ' - '",
        "if document_type = invoice and amount > 400 GBP -> folder 'Big'",
        "everything else -> folder 'Small'"]
    assert rules.folder_for(INVOICE) == "Big"
    assert rules.folder_for({**INVOICE, "amount": "399.99"}) == "Small"
    assert rules.folder_for({**INVOICE, "currency": "EUR"}) == "Small"  # no conversion
    assert rules.folder_for({"document_type": "receipt", "amount": "900.00"}) == "Small"


#: per language: name format, type, issuer, amount over, amount under, date before, date
#: after, year, month, keyword, everything else -> the lines describe() gives
CLAUSES: dict[str, list[tuple[str, list[str]]]] = {
    "en": [
        ("Use format YYYY-MM-DD - Company - Amount", ["name: date + issuer + amount",
                                                     "separator: ' - '"]),
        ("put receipts into the Expenses folder",
         ["if document_type = receipt -> folder 'Expenses'"]),
        ("invoices from Telekom go to Phone",
         ["if document_type = invoice and issuer contains 'Telekom' -> folder 'Phone'"]),
        ("put invoices over 400 GBP in Big",
         ["if document_type = invoice and amount > 400 GBP -> folder 'Big'"]),
        ("put invoices under £50 in Small",
         ["if document_type = invoice and amount < 50 GBP -> folder 'Small'"]),
        ("put receipts before 2024 in Archive",
         ["if document_type = receipt and date < 2024-01-01 -> folder 'Archive'"]),
        ("put invoices after 31 March 2024 in New",
         ["if document_type = invoice and date > 2024-03-31 -> folder 'New'"]),
        ("put invoices from 2023 in Archive/2023",
         ["if document_type = invoice and year = 2023 -> folder 'Archive/2023'"]),
        ("put invoices of March 2024 in Spring",
         ["if document_type = invoice and year = 2024 and month = 3 -> folder 'Spring'"]),
        ('put invoices containing "electricity" in Energy',
         ["if document_type = invoice and text contains 'electricity' -> folder 'Energy'"]),
        ("everything else in Other", ["everything else -> folder 'Other'"]),
    ],
    "de": [
        ("Dateiname im Format JJJJ-MM-TT - Firma - Betrag",
         ["name: date + issuer + amount", "separator: ' - '"]),
        ("Alle Verträge in den Ordner Verträge",
         ["if document_type = contract -> folder 'Verträge'"]),
        ("Rechnungen von Telekom in Telefon",
         ["if document_type = invoice and issuer contains 'Telekom' -> folder 'Telefon'"]),
        ("Rechnungen über 400 € nach Groß",
         ["if document_type = invoice and amount > 400 EUR -> folder 'Groß'"]),
        ("Rechnungen unter 50 € nach Klein",
         ["if document_type = invoice and amount < 50 EUR -> folder 'Klein'"]),
        ("Rechnungen vor 2024 nach Archiv",
         ["if document_type = invoice and date < 2024-01-01 -> folder 'Archiv'"]),
        ("Rechnungen nach dem 31.03.2024 nach Neu",
         ["if document_type = invoice and date > 2024-03-31 -> folder 'Neu'"]),
        ("Rechnungen aus 2023 nach Archiv/2023",
         ["if document_type = invoice and year = 2023 -> folder 'Archiv/2023'"]),
        ("Rechnungen im März nach Frühling",
         ["if document_type = invoice and month = 3 -> folder 'Frühling'"]),
        ('Rechnungen, die "Strom" enthalten, nach Energie',
         ["if document_type = invoice and text contains 'Strom' -> folder 'Energie'"]),
        ("alles andere nach Sonstiges", ["everything else -> folder 'Sonstiges'"]),
    ],
    "fr": [
        ("Format AAAA-MM-JJ - Société - Montant",
         ["name: date + issuer + amount", "separator: ' - '"]),
        ("les contrats dans Juridique", ["if document_type = contract -> folder 'Juridique'"]),
        ("factures d'Orange dans Téléphone",
         ["if document_type = invoice and issuer contains 'Orange' -> folder 'Téléphone'"]),
        ("factures de plus de 400 € dans Gros",
         ["if document_type = invoice and amount > 400 EUR -> folder 'Gros'"]),
        ("factures de moins de 50 € dans Petit",
         ["if document_type = invoice and amount < 50 EUR -> folder 'Petit'"]),
        ("factures avant 2024 dans Archives",
         ["if document_type = invoice and date < 2024-01-01 -> folder 'Archives'"]),
        ("factures après le 31/03/2024 dans Nouveau",
         ["if document_type = invoice and date > 2024-03-31 -> folder 'Nouveau'"]),
        ("factures de 2023 dans Archives/2023",
         ["if document_type = invoice and year = 2023 -> folder 'Archives/2023'"]),
        ("factures de mars 2024 dans Printemps",
         ["if document_type = invoice and year = 2024 and month = 3 -> folder 'Printemps'"]),
        ('factures contenant "EDF" dans Énergie',
         ["if document_type = invoice and text contains 'EDF' -> folder 'Énergie'"]),
        ("tout le reste dans Divers", ["everything else -> folder 'Divers'"]),
    ],
    "es": [
        ("Formato AAAA-MM-DD - Empresa - Importe",
         ["name: date + issuer + amount", "separator: ' - '"]),
        ("los contratos en Legal", ["if document_type = contract -> folder 'Legal'"]),
        ("facturas de Movistar en Teléfono",
         ["if document_type = invoice and issuer contains 'Movistar' -> folder 'Teléfono'"]),
        ("facturas de más de 400 € en Grandes",
         ["if document_type = invoice and amount > 400 EUR -> folder 'Grandes'"]),
        ("facturas de menos de 50 € en Pequeñas",
         ["if document_type = invoice and amount < 50 EUR -> folder 'Pequeñas'"]),
        ("facturas antes de 2024 en Archivo",
         ["if document_type = invoice and date < 2024-01-01 -> folder 'Archivo'"]),
        ("facturas después del 31/03/2024 en Nuevo",
         ["if document_type = invoice and date > 2024-03-31 -> folder 'Nuevo'"]),
        ("facturas de 2023 en Archivo/2023",
         ["if document_type = invoice and year = 2023 -> folder 'Archivo/2023'"]),
        ("facturas de marzo de 2024 en Primavera",
         ["if document_type = invoice and year = 2024 and month = 3 -> folder 'Primavera'"]),
        ('facturas que contengan "Iberdrola" en Energía',
         ["if document_type = invoice and text contains 'Iberdrola' -> folder 'Energía'"]),
        ("todo lo demás en Otros", ["everything else -> folder 'Otros'"]),
    ],
    "it": [
        ("Formato AAAA-MM-GG - Azienda - Importo",
         ["name: date + issuer + amount", "separator: ' - '"]),
        ("i contratti in Legale", ["if document_type = contract -> folder 'Legale'"]),
        ("fatture di TIM in Telefono",
         ["if document_type = invoice and issuer contains 'TIM' -> folder 'Telefono'"]),
        ("fatture oltre 400 € in Grandi",
         ["if document_type = invoice and amount > 400 EUR -> folder 'Grandi'"]),
        ("fatture sotto 50 € in Piccole",
         ["if document_type = invoice and amount < 50 EUR -> folder 'Piccole'"]),
        ("fatture prima del 2024 in Archivio",
         ["if document_type = invoice and date < 2024-01-01 -> folder 'Archivio'"]),
        ("fatture dopo il 31/03/2024 in Nuovo",
         ["if document_type = invoice and date > 2024-03-31 -> folder 'Nuovo'"]),
        ("fatture del 2023 in Archivio/2023",
         ["if document_type = invoice and year = 2023 -> folder 'Archivio/2023'"]),
        ("fatture di marzo 2024 in Primavera",
         ["if document_type = invoice and year = 2024 and month = 3 -> folder 'Primavera'"]),
        ('fatture contenenti "Enel" in Energia',
         ["if document_type = invoice and text contains 'Enel' -> folder 'Energia'"]),
        ("tutto il resto in Altro", ["everything else -> folder 'Altro'"]),
    ],
    "nl": [
        ("Formaat JJJJ-MM-DD - Bedrijf - Bedrag",
         ["name: date + issuer + amount", "separator: ' - '"]),
        ("contracten in Juridisch", ["if document_type = contract -> folder 'Juridisch'"]),
        ("facturen van KPN in Telefoon",
         ["if document_type = invoice and issuer contains 'KPN' -> folder 'Telefoon'"]),
        ("facturen boven 400 euro in Groot",
         ["if document_type = invoice and amount > 400 EUR -> folder 'Groot'"]),
        ("facturen onder 50 euro in Klein",
         ["if document_type = invoice and amount < 50 EUR -> folder 'Klein'"]),
        ("facturen voor 2024 in Archief",
         ["if document_type = invoice and date < 2024-01-01 -> folder 'Archief'"]),
        ("facturen na 31-03-2024 in Nieuw",
         ["if document_type = invoice and date > 2024-03-31 -> folder 'Nieuw'"]),
        ("facturen uit 2023 in Archief/2023",
         ["if document_type = invoice and year = 2023 -> folder 'Archief/2023'"]),
        ("facturen van maart 2024 in Lente",
         ["if document_type = invoice and year = 2024 and month = 3 -> folder 'Lente'"]),
        ('facturen met het woord "Eneco" in Energie',
         ["if document_type = invoice and text contains 'Eneco' -> folder 'Energie'"]),
        ("al het andere in Overig", ["everything else -> folder 'Overig'"]),
    ],
    "pt": [
        ("Formato AAAA-MM-DD - Empresa - Valor",
         ["name: date + issuer + amount", "separator: ' - '"]),
        ("coloque os contratos em Jurídico", ["if document_type = contract -> folder 'Jurídico'"]),
        ("faturas da Vivo em Telefone",
         ["if document_type = invoice and issuer contains 'Vivo' -> folder 'Telefone'"]),
        ("faturas acima de 400 € em Grandes",
         ["if document_type = invoice and amount > 400 EUR -> folder 'Grandes'"]),
        ("faturas abaixo de 50 € em Pequenas",
         ["if document_type = invoice and amount < 50 EUR -> folder 'Pequenas'"]),
        ("faturas antes de 2024 em Arquivo",
         ["if document_type = invoice and date < 2024-01-01 -> folder 'Arquivo'"]),
        ("faturas depois de 31/03/2024 em Novo",
         ["if document_type = invoice and date > 2024-03-31 -> folder 'Novo'"]),
        ("faturas de 2023 em Arquivo/2023",
         ["if document_type = invoice and year = 2023 -> folder 'Arquivo/2023'"]),
        ("faturas de março de 2024 em Primavera",
         ["if document_type = invoice and year = 2024 and month = 3 -> folder 'Primavera'"]),
        ('faturas contendo "EDP" em Energia',
         ["if document_type = invoice and text contains 'EDP' -> folder 'Energia'"]),
        ("todo o resto em Outros", ["everything else -> folder 'Outros'"]),
    ],
}
KINDS = ("format", "type", "issuer", "over", "under", "before", "after", "year", "month",
         "keyword", "else")


def test_every_clause_kind_is_covered_in_every_language() -> None:
    assert set(CLAUSES) == set(INSTRUCTION_LANGUAGES)
    assert all(len(clauses) == len(KINDS) for clauses in CLAUSES.values())


@pytest.mark.parametrize(
    "language, kind, text, expected",
    [(lang, KINDS[i], text, expected) for lang, clauses in CLAUSES.items()
     for i, (text, expected) in enumerate(clauses)],
    ids=lambda v: v if isinstance(v, str) and len(v) < 12 else None)
def test_each_clause_kind_in_each_language(language: str, kind: str, text: str,
                                           expected: list[str]) -> None:
    rules = compile_template(text)
    assert rules.not_understood == [], [m.reason for m in rules.not_understood]
    assert rules.describe() == expected


def test_several_rules_in_one_text_are_tried_in_order() -> None:
    rules = compile_template(
        "Name it date then company, separated by dashes. Put invoices from Telekom in Phone; "
        "invoices over 1.000,00 EUR in Big. Receipts before March 2024 go to Old, everything "
        "else by year")
    assert rules.not_understood == []
    assert rules.fields == ["date", "issuer"] and rules.separator == "-"
    assert rules.conditions == [
        Condition("Phone", "invoice", "Telekom"),
        Condition("Big", "invoice", amounts=(AmountTest(">", Decimal("1000.00"), "EUR"),)),
        Condition("Old", "receipt", dates=(DateTest("<", dt.date(2024, 3, 1)),)),
        Condition("{year}", otherwise=True),
    ]
    assert rules.folder_for({"document_type": "invoice", "issuer": "Telekom AG"}) == "Phone"
    assert rules.folder_for({"document_type": "invoice", "amount": "1500.00",
                             "currency": "EUR"}) == "Big"
    assert rules.folder_for({"document_type": "receipt", "date": "2024-02-29"}) == "Old"
    assert rules.folder_for({"document_type": "receipt", "date": "2024-03-01"}) == "{year}"


def test_one_clause_may_name_several_folders_and_types() -> None:
    rules = compile_template("Put invoices in A and receipts in B")
    assert rules.conditions == [Condition("A", "invoice"), Condition("B", "receipt")]
    both = compile_template("put invoices and receipts in Finance")
    assert both.conditions == [Condition("Finance", "invoice"), Condition("Finance", "receipt")]
    between = compile_template("put invoices under 100 and over 50 EUR in Medium")
    (route,) = between.conditions
    assert route.matches({"document_type": "invoice", "amount": "75.00", "currency": "EUR"})
    assert not route.matches({"document_type": "invoice", "amount": "175.00",
                              "currency": "EUR"})


def test_written_patterns_with_literal_text_and_placeholders() -> None:
    rules = compile_template("Use format Rechnung_{date}_{company}")
    assert rules.pattern == [Part("text", "Rechnung"), Part("text", "_"), Part("field", "date"),
                             Part("text", "_"), Part("field", "issuer")]
    month = compile_template("Format: MMMM YYYY - Company")
    assert month.name_parts() == [Part("field", "date", "MMMM YYYY"), Part("text", " - "),
                                  Part("field", "issuer")]
    assert compile_template("sort by quarter").describe() == [
        "all documents -> folder '{year}/{quarter}'"]
    assert compile_template("put invoices in Bills/{company}/{year}").conditions == [
        Condition("Bills/{issuer}/{year}", "invoice")]


def test_keywords_match_the_document_text() -> None:
    rules = compile_template('put invoices containing "Stadtwerke" or "EnBW" in Energy')
    (route,) = rules.conditions
    assert route.keywords == ("Stadtwerke", "EnBW")
    assert route.matches({"document_type": "invoice"}, "rechnung der stadtwerke bonn")
    assert not route.matches({"document_type": "invoice"}, "rechnung der telekom")


#: (template, words its reason must contain)
MISREADS = [
    ("Make it sparkle!", "not understood: 'sparkle'"),
    ("blah blah", "not understood"),
    ("put invoices over budget in Big", "amount condition without an amount"),
    ("Rechnungen über Budget nach Groß", "amount condition without an amount"),
    ("factures de plus de budget dans Gros", "amount condition without an amount"),
    ("facturas de más de presupuesto en Grandes", "amount condition without an amount"),
    ("fatture oltre il budget in Grandi", "amount condition without an amount"),
    ("facturen boven budget in Groot", "amount condition without an amount"),
    ("faturas acima do orçamento em Grandes", "amount condition without an amount"),
    ("put invoices over 400 doubloons in Big", "unknown currency 'doubloons'"),
    ("put invoices before Easter in Old", "date condition without a date"),
    ("Rechnungen vor Ostern nach Alt", "date condition without a date"),
    ("factures avant Pâques dans Vieux", "date condition without a date"),
    ("put invoices containing in Energy", "keyword condition without a keyword"),
    ("put invoices in ../../etc", "'..' would leave the target folder"),
    ("Rechnungen nach a/b/c/d/e/f/g/h/i/j/k", "11 levels; at most 10"),
    ("Rechnungen nach {farbe}", "unknown placeholder {farbe}"),
    ("Use format {date}_{colour}", "unknown placeholder {colour}"),
    ("invoices over 400 GBP", "no folder named"),
    ("Rechnungen in", "no folder named"),
    ("put invoices from last year in Old", "relative dates"),
    ("Rechnungen vom letzten Jahr nach Alt", "relative dates"),
    ("factures de l'année dernière dans Vieux", "relative dates"),
    ("Mach es hübsch", "not understood"),
    ("Rends-le joli", "not understood"),
    ("Hazlo bonito", "not understood"),
    ("Rendilo carino", "not understood"),
    ("Maak het mooi", "not understood"),
    ("Deixe bonito", "not understood"),
]


@pytest.mark.parametrize("text, reason", MISREADS)
def test_each_misread_is_reported_with_its_reason_and_not_applied(text: str,
                                                                  reason: str) -> None:
    rules = compile_template(text)
    assert rules.not_understood == [text]
    assert reason in rules.not_understood[0].reason
    assert rules.conditions == [] and rules.fields is None and rules.pattern is None


def test_a_misread_clause_beside_understood_ones() -> None:
    rules = compile_template(
        "Use format YYYY-MM-DD - Company - Amount. Put invoices over budget in Big/ and "
        "everything else in Small/")
    assert rules.fields == ["date", "issuer", "amount"]
    assert rules.conditions == [Condition("Small", otherwise=True)]
    assert rules.not_understood == ["Put invoices over budget in Big/"]
    assert "amount" in rules.not_understood[0].reason


def test_too_long_instructions_are_cut_and_said_so() -> None:
    rules = compile_template("put invoices in Bills. " * 300)
    assert rules.conditions and rules.conditions[0] == Condition("Bills", "invoice")
    assert "longer than 4000 characters" in rules.not_understood[-1].reason


def test_the_example_of_the_issue_through_the_engine() -> None:
    from engine.docmaker import make_pdf
    from renamerd.engine import RenameOptions, rename

    def invoice(total: str, day: str) -> bytes:
        return make_pdf(["ACME Ltd", "5 High Street, London EC1A 1BB", "", "INVOICE",
                         "Invoice number: INV-0042", f"Invoice date: {day}/05/2024",
                         f"Total: £{total}"])

    options = RenameOptions(strategy="follow_custom_prompt", template_mode="custom",
                            custom_template=ISSUE_EXAMPLE)
    big = rename(invoice("512.40", "03"), "scan.pdf", options)
    assert (big.folder_path, big.suggested_filename) == ("Big", "2024-05-03 - ACME Ltd - 512.40.pdf")
    body = big.to_api()
    assert body["instructions"]["notUnderstood"] == []
    assert body["instructions"]["rules"][-1] == "everything else -> folder 'Small'"
    small = rename(invoice("12.40", "04"), "scan.pdf", options)
    assert (small.folder_path, small.suggested_filename) == \
        ("Small", "2024-05-04 - ACME Ltd - 12.40.pdf")


@pytest.mark.parametrize("text", [
    "name it company then date, dates as DD.MM.YYYY",
    "name it company then date as DD.MM.YYYY",
    "Dateiname: Firma, Datum als TT.MM.JJJJ",
])
def test_a_date_format_does_not_eat_the_date_of_the_name(text: str) -> None:
    rules = compile_template(text)
    assert rules.not_understood == []
    assert rules.fields == ["issuer", "date"] and rules.date_format == "DD.MM.YYYY"


def test_a_lone_date_format_changes_only_the_format() -> None:
    rules = compile_template("dates as DD.MM.YYYY")
    assert rules.not_understood == [] and rules.date_format == "DD.MM.YYYY"
    assert rules.describe() == ["date format: DD.MM.YYYY"]
