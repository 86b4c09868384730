"""customTemplate -> rules, in seven languages; what is not understood is said."""

from __future__ import annotations

import pytest

from renamerd.engine.instructions import Condition, compile_template, rules_from_dict


def test_conditional_folder_with_issuer() -> None:
    rules = compile_template("if it is an invoice from Telekom put it in Bills/Phone")
    assert rules.conditions == [Condition("Bills/Phone", "invoice", "Telekom")]
    assert rules.readable() == [
        "if document_type = invoice and issuer contains 'Telekom' -> folder 'Bills/Phone'"]
    assert rules.folder_for({"document_type": "invoice",
                             "issuer": "Telekom Deutschland GmbH"}) == "Bills/Phone"
    assert rules.folder_for({"document_type": "invoice", "issuer": "Vodafone"}) is None
    assert rules.folder_for({"document_type": "receipt", "issuer": "Telekom"}) is None


@pytest.mark.parametrize("text, condition", [
    ("Rechnungen nach Jahr ordnen", Condition("{year}", "invoice")),
    ("les contrats dans Juridique", Condition("Juridique", "contract")),
    ("las facturas de Iberdrola en Luz/Facturas", Condition("Luz/Facturas", "invoice",
                                                            "Iberdrola")),
    ("fatture per anno e azienda", Condition("{year}/{issuer}", "invoice")),
    ("facturen van KPN in Telefoon", Condition("Telefoon", "invoice", "KPN")),
    ("coloque os contratos em Jurídico", Condition("Jurídico", "contract")),
    ("Wenn es eine Rechnung von Vattenfall ist, in den Ordner Strom", Condition(
        "Strom", "invoice", "Vattenfall")),
    ("put receipts into the Expenses folder", Condition("Expenses", "receipt")),
    ("sort everything by year", Condition("{year}", None)),
    ("classer par mois", Condition("{year}/{month}", None)),
])
def test_folder_rules_in_several_languages(text: str, condition: Condition) -> None:
    rules = compile_template(text)
    assert rules.conditions == [condition], rules.readable()
    assert rules.not_understood == []


@pytest.mark.parametrize("text, fields, sep, case", [
    ("name it date then company then invoice number, separated by dashes, lowercase",
     ["date", "issuer", "invoice_number"], "-", "lower"),
    ("Dateiname: Datum, Firma, Rechnungsnummer, getrennt durch Unterstriche",
     ["date", "issuer", "invoice_number"], "_", None),
    ("nomme-le société puis date, séparés par des tirets, en majuscules",
     ["issuer", "date"], "-", "upper"),
    ("nómbralo fecha y empresa separados por guiones", ["date", "issuer"], "-", None),
    ("chiamalo data poi azienda, separati da trattini, minuscolo", ["date", "issuer"], "-",
     "lower"),
    ("noem het datum dan bedrijf gescheiden door spaties", ["date", "issuer"], " ", None),
    ("nomeie data e empresa separados por hífens", ["date", "issuer"], "-", None),
])
def test_naming_rules(text: str, fields: list[str], sep: str, case: str | None) -> None:
    rules = compile_template(text)
    assert rules.fields == fields, rules.readable()
    assert rules.separator == sep
    assert rules.case == case


@pytest.mark.parametrize("text, fmt", [("date as DD.MM.YYYY", "DD.MM.YYYY"),
                                       ("Datum als TT.MM.JJJJ", "DD.MM.YYYY"),
                                       ("date au format JJ-MM-AAAA", "DD-MM-YYYY"),
                                       ("fecha DD/MM/AAAA", "DD/MM/YYYY"),
                                       ("YYYYMMDD", "YYYYMMDD")])
def test_date_formats(text: str, fmt: str) -> None:
    assert compile_template(text).date_format == fmt


def test_several_sentences_and_what_was_not_understood() -> None:
    rules = compile_template(
        "Name it date then company, separated by underscores. Contracts go into Legal. "
        "Make it sparkle!")
    assert rules.fields == ["date", "issuer"]
    assert rules.conditions == [Condition("Legal", "contract")]
    assert rules.not_understood == ["Make it sparkle!"]
    assert any("Legal" in r for r in rules.readable())


def test_a_phrase_not_understood_after_a_comma_leaves_the_rest_of_the_sentence_applied(
        ) -> None:
    """The README's examples use commas: one unknown phrase must not cancel the sentence."""
    rules = compile_template("name it company then date, dates as DD.MM.YYYY, "
                             "blah blah unknown clause")
    assert rules.fields == ["issuer", "date"]
    assert rules.date_format == "DD.MM.YYYY"
    assert rules.not_understood == ["blah blah unknown clause"]
    # a pattern with a comma in it stays whole when the whole is understood
    whole = compile_template("name it date then company, separated by underscores")
    assert whole.fields == ["date", "issuer"] and not whole.not_understood


def test_empty_and_nonsense() -> None:
    assert compile_template(None).empty and compile_template("   ").empty
    rules = compile_template("blah blah")
    assert rules.empty and rules.not_understood == ["blah blah"]


def test_rules_from_model_answers_are_validated() -> None:
    ok = rules_from_dict({"fields": ["date", "issuer"], "separator": "-", "case": "lower",
                          "date_format": "YYYY-MM", "conditions": [
                              {"document_type": "invoice", "issuer": None, "folder": "A/B"}]})
    assert ok.fields == ["date", "issuer"] and ok.conditions[0].folder == "A/B"
    for bad in ({"fields": ["rm -rf"]}, {"separator": "/"}, {"case": "title"},
                {"date_format": "%Y"}, {"conditions": [{"folder": "../x"}]},
                {"conditions": [{"folder": "x", "document_type": "spaceship"}]}):
        with pytest.raises(ValueError):
            rules_from_dict(bad)


@pytest.mark.parametrize("text, readable", [
    ("Put all invoices from Amazon into Shopping/Amazon and name them date then company",
     ["name: date + issuer",
      "if document_type = invoice and issuer contains 'Amazon' -> folder 'Shopping/Amazon'"]),
    ("Organize by year and month", ["all documents -> folder '{year}/{month}'"]),
    ("Use the format YYYY-MM-DD_Company_InvoiceNumber",
     ["name: date + issuer + invoice_number", "separator: '_'"]),
    ("{date}-{company}-{number}", ["name: date + issuer + invoice_number", "separator: '-'"]),
    ("Alle Verträge in den Ordner Verträge, alle Rechnungen nach Jahr",
     ["if document_type = contract -> folder 'Verträge'",
      "if document_type = invoice -> folder '{year}'"]),
    ("Mets les factures d'EDF dans Maison/Electricité",
     ["if document_type = invoice and issuer contains 'EDF' -> folder 'Maison/Electricité'"]),
])
def test_combined_and_written_patterns(text: str, readable: list[str]) -> None:
    rules = compile_template(text)
    assert rules.readable() == readable
    assert rules.not_understood == []


@pytest.mark.parametrize(
    ("text", "fields", "folder"),
    [
        ("Rechnungen nach Jahr ordnen, Name: Datum dann Firma, getrennt durch Bindestriche",
         ["date", "issuer"], "{year}"),
        ("pon las facturas en Facturas/2024, nombra con fecha y emisor",
         ["date", "issuer"], "Facturas/2024"),
        ("les contrats dans Juridique, nomme-les date puis émetteur",
         ["date", "issuer"], "Juridique"),
        ("put invoices from Telekom in Bills/Phone, name them date then company",
         ["date", "issuer"], "Bills/Phone"),
    ],
)
def test_a_naming_clause_after_a_folder_rule_is_not_swallowed(
    text: str, fields: list[str], folder: str
) -> None:
    rules = compile_template(text)
    assert rules.fields == fields
    assert [c.folder for c in rules.conditions] == [folder]
    assert rules.not_understood == []


def test_with_before_fields_is_not_a_separator_cue() -> None:
    rules = compile_template("nombra con fecha y emisor")
    assert rules.fields == ["date", "issuer"] and rules.separator is None
