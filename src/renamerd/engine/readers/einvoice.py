"""The structured invoice inside a PDF: ZUGFeRD, Factur-X and XRechnung embed the invoice's data
as XML (UN/CEFACT Cross Industry Invoice, or ZUGFeRD 1's Cross Industry Document; some embed
a UBL Invoice or CreditNote). That XML is the legally binding invoice, so its seller, number,
issue date, kind and total are read from it instead of guessed from the page.

`parse_einvoice(xml)` is pure: bytes in, `EInvoice` or None out (None for XML that is no
invoice, or is broken). Parsed with defusedxml: no DTDs, no entities, no network.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import dataclass
from decimal import Decimal
from xml.etree.ElementTree import Element

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring

log = logging.getLogger(__name__)

#: the file names the standards give the embedded XML (Factur-X, ZUGFeRD 1 and 2, XRechnung)
KNOWN_NAMES = ("factur-x.xml", "zugferd-invoice.xml", "zugferd_invoice.xml", "xrechnung.xml")
#: the largest embedded XML read (a real invoice's is a few to a few hundred kB)
MAX_XML_BYTES = 5 * 1024 * 1024

#: UNTDID 1001 document codes that are credit notes; every other invoice code is an invoice
#: (380 commercial, 384 corrected, 386 prepayment, 389 self-billed, 326 partial, 751...)
_CREDIT_CODES = {"81", "83", "381", "261", "262", "296", "308", "396", "420", "458", "532"}


@dataclass(frozen=True)
class EInvoice:
    """What an embedded e-invoice says. Every field may be missing (None)."""

    syntax: str  # "CII" (Factur-X, ZUGFeRD 2, XRechnung), "ZUGFeRD 1" or "UBL"
    number: str | None
    issue_date: dt.date | None
    seller: str | None
    document_type: str  # "invoice" or "credit_note"
    currency: str | None
    total: str | None  # "1234.56"


def parse_einvoice(xml: bytes) -> EInvoice | None:
    """The e-invoice in `xml`, or None when it is none (another XML, broken, over
    MAX_XML_BYTES, or declaring a DTD). Pure; never raises for bad input."""
    if len(xml) > MAX_XML_BYTES:
        return None
    try:
        root = fromstring(xml, forbid_dtd=True)
    except (ParseError, DefusedXmlException, ValueError) as exc:
        log.info("embedded XML not read: %s", type(exc).__name__)
        return None
    kind = _local(root.tag)
    if kind == "CrossIndustryInvoice":
        return _cii(root)
    if kind == "CrossIndustryDocument":
        return _zugferd1(root)
    if kind in ("Invoice", "CreditNote"):
        return _ubl(root, kind)
    return None


def _cii(root: Element) -> EInvoice | None:
    doc = _child(root, "ExchangedDocument")
    if doc is None:
        return None  # no document header: a fragment, no invoice
    trade = _child(root, "SupplyChainTradeTransaction")
    settlement = _child(trade, "ApplicableHeaderTradeSettlement")
    seller = _child(_child(trade, "ApplicableHeaderTradeAgreement"), "SellerTradeParty")
    # (the trading name the customer knows, else the legal name: as the page's brand is
    # preferred to the operating company in its footer)
    trading = _text(_child(seller, "SpecifiedLegalOrganization"), "TradingBusinessName")
    total = _amount(_child(settlement, "SpecifiedTradeSettlementHeaderMonetarySummation"),
                    "GrandTotalAmount")
    return EInvoice(
        "CII", _text(doc, "ID"), _date_102(_child(doc, "IssueDateTime")),
        trading or _text(seller, "Name"), _kind(_text(doc, "TypeCode"), total),
        _text(settlement, "InvoiceCurrencyCode"), total)


def _zugferd1(root: Element) -> EInvoice | None:
    doc = _child(root, "HeaderExchangedDocument")
    if doc is None:
        return None
    trade = _child(root, "SpecifiedSupplyChainTradeTransaction")
    settlement = _child(trade, "ApplicableSupplyChainTradeSettlement")
    total = _amount(_child(settlement, "SpecifiedTradeSettlementMonetarySummation"),
                    "GrandTotalAmount")
    return EInvoice(
        "ZUGFeRD 1", _text(doc, "ID"), _date_102(_child(doc, "IssueDateTime")),
        _text(_child(_child(trade, "ApplicableSupplyChainTradeAgreement"), "SellerTradeParty"),
              "Name"),
        _kind(_text(doc, "TypeCode"), total), _text(settlement, "InvoiceCurrencyCode"), total)


def _ubl(root: Element, kind: str) -> EInvoice:
    party = _child(_child(root, "AccountingSupplierParty"), "Party")
    seller = (_text(_child(party, "PartyName"), "Name")
              or _text(_child(party, "PartyLegalEntity"), "RegistrationName"))
    code = _text(root, "InvoiceTypeCode") or _text(root, "CreditNoteTypeCode")
    issued = _text(root, "IssueDate") or ""
    try:  # (an XML date may carry its time zone: "2016-04-04+01:00")
        date = dt.date.fromisoformat(issued[:10]) if issued else None
    except ValueError:
        date = None
    totals = _child(root, "LegalMonetaryTotal")
    # (the invoice's total with its tax, BT-112, as CII's GrandTotalAmount; not what is
    # still due after a prepayment)
    total = _amount(totals, "TaxInclusiveAmount") or _amount(totals, "PayableAmount")
    return EInvoice(
        "UBL", _text(root, "ID"), date, seller,
        "credit_note" if kind == "CreditNote" else _kind(code, total),
        _text(root, "DocumentCurrencyCode"), total)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(parent: Element | None, name: str) -> Element | None:
    """The first direct child of `parent` with local name `name` (any namespace)."""
    if parent is None:
        return None
    return next((el for el in parent if _local(el.tag) == name), None)


def _text(parent: Element | None, name: str) -> str | None:
    el = _child(parent, name)
    value = " ".join((el.text or "").split()) if el is not None else ""
    return value[:200] or None


def _date_102(parent: Element | None) -> dt.date | None:
    """A CII date (`DateTimeString format="102"`: YYYYMMDD)."""
    raw = _text(parent, "DateTimeString") or ""
    if not re.fullmatch(r"\d{8}", raw):
        return None
    try:
        return dt.date(int(raw[:4]), int(raw[4:6]), int(raw[6:]))
    except ValueError:
        return None


def _kind(code: str | None, total: str | None = None) -> str:
    """A credit note's code, or an invoice's with a negative total (a correction that gives
    money back: "Rechnungskorrektur" over -8.79), is a credit note; else an invoice."""
    negative = total is not None and total.startswith("-")
    return "credit_note" if code in _CREDIT_CODES or negative else "invoice"


def _amount(parent: Element | None, name: str) -> str | None:
    raw = _text(parent, name)
    if raw is None or not re.fullmatch(r"-?\d{1,15}(?:\.\d{1,6})?", raw):
        return None
    return str(Decimal(raw).quantize(Decimal("0.01")))
