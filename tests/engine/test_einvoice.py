"""E-invoices embedded in PDFs: ZUGFeRD, Factur-X, XRechnung (engine/readers/einvoice.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from engine.docmaker import attach, make_pdf, make_pdf_pages
from renamerd.engine import EngineConfig, rename
from renamerd.engine.readers.einvoice import MAX_XML_BYTES, parse_einvoice

#: an EN 16931 invoice in UN/CEFACT CII, as Factur-X and ZUGFeRD 2 embed it
CII = b"""<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice
    xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
    xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
    xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocumentContext>
    <ram:GuidelineSpecifiedDocumentContextParameter>
      <ram:ID>urn:cen.eu:en16931:2017</ram:ID>
    </ram:GuidelineSpecifiedDocumentContextParameter>
  </rsm:ExchangedDocumentContext>
  <rsm:ExchangedDocument>
    <ram:ID>RE-2025-0471</ram:ID>
    <ram:TypeCode>%(code)s</ram:TypeCode>
    <ram:IssueDateTime><udt:DateTimeString format="102">20250314</udt:DateTimeString>
    </ram:IssueDateTime>
  </rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>
    <ram:ApplicableHeaderTradeAgreement>
      <ram:SellerTradeParty><ram:Name>Lieferant Nordlicht GmbH</ram:Name></ram:SellerTradeParty>
      <ram:BuyerTradeParty><ram:Name>Kunde Sonnenschein AG</ram:Name></ram:BuyerTradeParty>
    </ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeSettlement>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:TaxBasisTotalAmount>1000.00</ram:TaxBasisTotalAmount>
        <ram:GrandTotalAmount>1190.00</ram:GrandTotalAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    </ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>"""

ZUGFERD_1 = b"""<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryDocument
    xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"
    xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12"
    xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15">
  <rsm:HeaderExchangedDocument>
    <ram:ID>471102</ram:ID>
    <ram:TypeCode>380</ram:TypeCode>
    <ram:IssueDateTime><udt:DateTimeString format="102">20130305</udt:DateTimeString>
    </ram:IssueDateTime>
  </rsm:HeaderExchangedDocument>
  <rsm:SpecifiedSupplyChainTradeTransaction>
    <ram:ApplicableSupplyChainTradeAgreement>
      <ram:SellerTradeParty><ram:Name>Lieferant GmbH</ram:Name></ram:SellerTradeParty>
    </ram:ApplicableSupplyChainTradeAgreement>
    <ram:ApplicableSupplyChainTradeSettlement>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementMonetarySummation>
        <ram:GrandTotalAmount currencyID="EUR">529.87</ram:GrandTotalAmount>
      </ram:SpecifiedTradeSettlementMonetarySummation>
    </ram:ApplicableSupplyChainTradeSettlement>
  </rsm:SpecifiedSupplyChainTradeTransaction>
</rsm:CrossIndustryDocument>"""

UBL_CREDIT_NOTE = b"""<?xml version="1.0" encoding="UTF-8"?>
<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
    xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
    xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:ID>CN-88</cbc:ID>
  <cbc:IssueDate>2024-11-02</cbc:IssueDate>
  <cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>
  <cbc:DocumentCurrencyCode>NOK</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party>
    <cac:PartyLegalEntity><cbc:RegistrationName>Fjordkraft Energi AS</cbc:RegistrationName>
    </cac:PartyLegalEntity>
  </cac:Party></cac:AccountingSupplierParty>
  <cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="NOK">-250.5</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
</CreditNote>"""

#: the page of the invoice, read on its own: no legal form on top, a logo's text as the sender
PAGE = ["NORDLICHT", "Rechnung", "Kunde Sonnenschein AG", "Sonnenweg 1", "80331 München",
        "Datum: 14.03.2025", "Gesamtbetrag 1.190,00 EUR"]


def test_a_cii_invoice_gives_seller_number_date_kind_and_total() -> None:
    found = parse_einvoice(CII % {b"code": b"380"})
    assert found is not None
    assert (found.syntax, found.number, found.issue_date, found.seller, found.document_type,
            found.currency, found.total) == (
        "CII", "RE-2025-0471", dt.date(2025, 3, 14), "Lieferant Nordlicht GmbH", "invoice",
        "EUR", "1190.00")
    credit = parse_einvoice(CII % {b"code": b"381"})
    assert credit is not None and credit.document_type == "credit_note"


def test_zugferd_1_and_ubl_are_read_too() -> None:
    old = parse_einvoice(ZUGFERD_1)
    assert old is not None and (old.syntax, old.number, old.issue_date, old.seller, old.total) == (
        "ZUGFeRD 1", "471102", dt.date(2013, 3, 5), "Lieferant GmbH", "529.87")
    ubl = parse_einvoice(UBL_CREDIT_NOTE)
    assert ubl is not None and (ubl.number, ubl.issue_date, ubl.seller, ubl.document_type,
                                ubl.currency, ubl.total) == (
        "CN-88", dt.date(2024, 11, 2), "Fjordkraft Energi AS", "credit_note", "NOK", "-250.50")


UBL_PREPAID = b"""<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
    xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
    xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:ID>F124212</cbc:ID><cbc:IssueDate>2016-04-04+01:00</cbc:IssueDate>
  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode><cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party>
    <cac:PartyName><cbc:Name>Olive Grove</cbc:Name></cac:PartyName>
    <cac:PartyLegalEntity><cbc:RegistrationName>Moulin du Sud SARL</cbc:RegistrationName>
    </cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>
  <cac:LegalMonetaryTotal><cbc:TaxInclusiveAmount currencyID="EUR">308.03</cbc:TaxInclusiveAmount>
    <cbc:PrepaidAmount currencyID="EUR">100.00</cbc:PrepaidAmount>
    <cbc:PayableAmount currencyID="EUR">208.03</cbc:PayableAmount></cac:LegalMonetaryTotal>
</Invoice>"""


def test_ubl_gives_the_total_with_tax_the_trading_name_and_a_zoned_date() -> None:
    found = parse_einvoice(UBL_PREPAID)
    assert found is not None and (found.issue_date, found.seller, found.total) == (
        dt.date(2016, 4, 4), "Olive Grove", "308.03")  # not what is due after the prepayment


def test_cii_prefers_the_trading_name_to_the_legal_name() -> None:
    xml = (CII % {b"code": b"83"}).replace(
        b"<ram:Name>Lieferant Nordlicht GmbH</ram:Name>",
        b"<ram:Name>Lieferant Nordlicht GmbH</ram:Name><ram:SpecifiedLegalOrganization>"
        b"<ram:TradingBusinessName>Nordlicht</ram:TradingBusinessName>"
        b"</ram:SpecifiedLegalOrganization>")
    found = parse_einvoice(xml)
    assert found is not None and (found.seller, found.document_type) == ("Nordlicht",
                                                                         "credit_note")


@pytest.mark.parametrize("xml", [
    b"<html><body>not an invoice</body></html>",
    # a document's context without its header: a fragment
    b"<rsm:CrossIndustryInvoice xmlns:rsm='urn:un:unece:uncefact:data:standard:"
    b"CrossIndustryInvoice:100'><rsm:ExchangedDocumentContext/></rsm:CrossIndustryInvoice>",
    b"<rsm:CrossIndustryInvoice",  # broken
    # an entity bomb: refused before any expansion
    b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
    b"<CrossIndustryInvoice>&b;</CrossIndustryInvoice>",
    # an external entity: never fetched
    b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
    b"<CrossIndustryInvoice>&e;</CrossIndustryInvoice>",
    b"<a>" + b" " * (MAX_XML_BYTES + 1) + b"</a>",
])
def test_what_is_no_invoice_or_hostile_is_none(xml: bytes) -> None:
    assert parse_einvoice(xml) is None


def test_rename_takes_the_embedded_invoice_over_the_page() -> None:
    plain = make_pdf(PAGE)
    before = rename(plain, "scan.pdf").extracted_info
    assert before.get("invoice_number") != "RE-2025-0471"  # the page alone does not say it
    pdf = attach(plain, "factur-x.xml", CII % {b"code": b"380"})
    result = rename(pdf, "scan.pdf")
    info = result.extracted_info
    assert (info["issuer"], info["invoice_number"], info["date"], info["document_type"],
            info["amount"], info["currency"]) == (
        "Lieferant Nordlicht GmbH", "RE-2025-0471", "2025-03-14", "invoice", "1190.00", "EUR")
    assert result.suggested_filename == (
        "2025-03-14_Lieferant-Nordlicht-GmbH_invoice_RE-2025-0471.pdf")
    rules = {e.field: e.rule for e in result.evidence}
    assert rules["issuer"] == rules["invoice_number"] == "embedded e-invoice (CII)"


def test_an_attachment_that_is_too_big_or_no_invoice_is_ignored() -> None:
    plain = make_pdf(PAGE)
    expected = rename(plain, "a.pdf").extracted_info
    for name, data in [("factur-x.xml", b"<x>" + b"a" * (MAX_XML_BYTES + 10) + b"</x>"),
                       ("notes.xml", b"<notes>call back</notes>"),
                       ("zugferd-invoice.xml", b"\x00\xff not xml")]:
        assert rename(attach(plain, name, data), "a.pdf").extracted_info == expected


def test_the_invoice_is_found_among_many_attachments_and_after_another_xml() -> None:
    pdf = make_pdf(PAGE)
    for i in range(49):  # (the name tree keeps them in alphabetical order: the XML comes last)
        pdf = attach(pdf, f"a{i:02d}.txt", b"notes")
    pdf = attach(attach(pdf, "a.xml", b"<a/>"), "b.xml", CII % {b"code": b"380"})
    assert rename(pdf, "a.pdf").extracted_info["invoice_number"] == "RE-2025-0471"


def test_the_known_name_is_preferred_over_another_xml() -> None:
    pdf = attach(attach(make_pdf(PAGE), "aaa-notes.xml", UBL_CREDIT_NOTE),
                 "factur-x.xml", CII % {b"code": b"380"})
    assert rename(pdf, "a.pdf", config=EngineConfig()).extracted_info["invoice_number"] == (
        "RE-2025-0471")


def test_an_e_invoice_spares_reading_further_pages() -> None:
    plain = make_pdf_pages([["Seite 1 von 3", "Positionen"], ["Seite 2 von 3", "Positionen"],
                            ["Seite 3 von 3", "Summe"]])
    assert rename(plain, "a.pdf").pages_read == 3  # looking for the fields page by page
    pdf = attach(plain, "factur-x.xml", CII % {b"code": b"380"})
    result = rename(pdf, "a.pdf")
    assert result.pages_read == 1 and result.extracted_info["invoice_number"] == "RE-2025-0471"


def test_a_negative_invoice_is_a_credit_note() -> None:
    xml = CII.replace(b"<ram:GrandTotalAmount>1190.00", b"<ram:GrandTotalAmount>-8.79")
    found = parse_einvoice(xml % {b"code": b"380"})
    assert found is not None and (found.document_type, found.total) == ("credit_note", "-8.79")


def test_the_xml_gives_the_type_and_date_a_page_reads_otherwise() -> None:
    # the page reads as a letter, sure of it ("Dear customer"), and its date is another one
    page = ["Blue Harbor", "Harbour Road 7, Anytown", "Dear customer,", "Anytown, 01.01.2025",
            "please find the details of your account attached.", "Kind regards", "The team"]
    assert rename(make_pdf(page), "a.pdf").extracted_info["document_type"] == "letter"
    info = rename(attach(make_pdf(page), "factur-x.xml", CII % {b"code": b"380"}),
                  "a.pdf").extracted_info
    assert (info["document_type"], info["date"]) == ("invoice", "2025-03-14")


def test_a_page_sure_of_its_issuer_keeps_it_when_the_xml_says_otherwise() -> None:
    # a clear letterhead with its legal form; the XML names another seller (a sample whose
    # page and XML disagree): the page is what a person reads
    page = ["Kostenlieferant GmbH", "Hauptstraße 1 · 10115 Berlin", "Rechnung",
            "Rechnungsnummer: RE-2025-0471", "Rechnungsdatum: 14.03.2025",
            "Kunde Sonnenschein AG", "Gesamtbetrag 1.190,00 EUR", "Kostenlieferant GmbH"]
    assert rename(make_pdf(page), "a.pdf").confidence >= 0.9
    info = rename(attach(make_pdf(page), "factur-x.xml", CII % {b"code": b"380"}),
                  "a.pdf").extracted_info
    assert (info["issuer"], info["invoice_number"]) == ("Kostenlieferant GmbH", "RE-2025-0471")
