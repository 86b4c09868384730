"""Rules about real born-digital invoices: seller labels, an operating company's label, bank
lines, one-word streets, dates after a connector word. Each rule is about invoices in general
(text of the kind real invoices carry, written here), never about one file."""

from __future__ import annotations

import pytest

from renamerd.engine.fields import extract
from renamerd.engine.fields.document import Doc
from renamerd.engine.fields.issuer import issuer_candidates
from renamerd.engine.fields.issuer_labels import contact_persons, signed_off

ITEMS = ("Pos. Description Qty Amount\n1 Informatique 47 14 9537,79\n2 Transports 38 2 931,86\n"
         "3 Imprimerie 58 1 4705,29\n4 Bâtiment 15 3 3830,03\n5 Conseil 8 18 7821,52\n")


def values(text: str) -> dict[str, object]:
    return extract([text]).values


# --- dates ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("Invoice Number: 42183017\nInvoice Date: August 3 , 2014", "2014-08-03"),
    ("Invoice Date: Aug 3,2014\nDue: September 2, 2014", "2014-08-03"),
    # an expiry is never the document's date, even against an order date
    ("Tax Invoice\nTo: Lantern Ltd Order date: 28 Jan 15\nInvoice No. 12429647\n"
     "Invoice Total: $101.00\nCredits from this purchase will expire on 28 Jan 2016.",
     "2015-01-28"),
])
def test_a_month_name_date_with_a_spaced_or_tight_comma(text: str, expected: str) -> None:
    assert str(values(text)["date"]) == expected


@pytest.mark.parametrize("text, expected", [
    # a due-date label before a connector word ("le", "vom") keeps its kind
    ("Facture n°562044387 du 02 Juillet 2015\n"
     "Date limite de paiement le 05 Juillet 2015", "2015-07-02"),
    # "<invoice number> of/du/vom <date>" is the issue date, not a period's start
    ("Rechnung Nr. 2024-117 vom 05.03.2024\nLeistungszeitraum 01.02.2024 bis 29.02.2024",
     "2024-03-05"),
])
def test_a_date_after_a_connector_word_takes_the_label_before_it(text: str,
                                                                 expected: str) -> None:
    assert str(values(text)["date"]) == expected


@pytest.mark.parametrize("text, expected", [
    ("Tax Invoice\nInvoice # KIT-5521\nIssued 2025-01-31\nDue 2025-02-14\nTotal $1,856.36\n"
     "Due Date: 14 Feb 2025. BSB 062-000", "2025-01-31"),
    ("Factura F-2025-118\nPedido 20/01/2025\nEmitida: 31/01/2025\nVencimiento: 14/02/2025\n"
     "Total 120,00 €", "2025-01-31"),
])
def test_issued_alone_labels_the_issue_date(text: str, expected: str) -> None:
    assert str(values(text)["date"]) == expected


# --- issuer -----------------------------------------------------------------------------------

def test_a_recipient_block_ends_before_a_seller_label() -> None:
    # the customer first, address and all on its label's line, then "From:" and the seller
    text = ("Tax Invoice\nInvoice # KIT-5521\nIssued 2025-01-31\n"
            "Invoice to: Brightwater Dental Pty Ltd, Level 2, 80 George Street, Parramatta NSW "
            "2150 ·\nABN 55 123 456 789\nFrom: Kestrel IT Services Pty Ltd, 17 Hunter Street, "
            "Newcastle NSW 2300 · ABN 22 987 654\n321 · accounts@kestrelit.com.au\n"
            "Item Qty Price GST Amount AUD\nManaged IT support – January 2025 1 1,450.00\n"
            "Amount Due AUD 1,856.36")
    assert values(text)["issuer"] == "Kestrel IT Services Pty Ltd"


def test_a_name_after_a_seller_label_on_the_line_below_is_the_issuer() -> None:
    text = ("Bill to Address:\nATTN: Lantern Labs Limited\n93B Harbour Road\nHong Kong\n"
            "Service Provider:\n(Not to be used for payment remittance)\n"
            "Northwind Cloud Services, Inc.\n410 Terry Ave North\nSeattle, WA 98109\n"
            "Invoice Number: 42183017\nInvoice Date: August 3, 2014\nTotal $4.11")
    assert values(text)["issuer"] == "Northwind Cloud Services, Inc."


def test_the_account_holder_of_the_bank_details_names_the_issuer() -> None:
    text = ("ALEXINUX\nde Lattre Alexis\n27 rue Henri Rolland\n69100 Villeurbanne\n"
            "Facture n° 2022089083\nDate : 28/11/2022\nTotal TTC : 56,02 €\n"
            "Virement BRED BANQUE POPULAIRE – Titulaire du compte : NETPRESSE\n"
            "IBAN : FR76 1010 7002 4500 6170 5231 739\n"
            "NETPRESSE\nSiège social : 16 rue Mollien - 92100 BOULOGNE\n"
            "Sarl au capital de 10 000€ - RCS Paris B 530 848 134")
    assert values(text)["issuer"] == "NETPRESSE"


def test_a_comma_before_the_legal_form_stays_in_the_name() -> None:
    text = "Acme Web Services, Inc.\n12 Main Street\nInvoice No. 5512\nDate: 2024-05-02"
    assert values(text)["issuer"] == "Acme Web Services, Inc."


@pytest.mark.parametrize("operated", [
    "Exploité par Lefèvre Énergie S.A. · 21 rue de la Paix · 75007 Paris",
    "Provozovatel Černý Tiskárna spol. s r.o. · Na Příkopě 12 · 110 00 Praha",
    "İşletmeci Kaya Enerji Ltd. Şti. · Atatürk Cad. 5 · 34000 İstanbul",
])
def test_the_brand_on_top_beats_its_operating_company_in_the_footer(operated: str) -> None:
    text = ("Casa Verde\n21 rue de la Paix · 75007 Paris\nFACTURE\n"
            "Numéro de facture: INV2025/73837\nDate de facture: 09/01/2025\n"
            + ITEMS + "Total TTC: 377,37 €\nMerci de votre confiance.\n" + operated + "\n"
            "TVA intracommunautaire 883674992 · BNP Paribas SA · IBAN DE85393917280646162632")
    assert values(text)["issuer"] == "Casa Verde"


def test_a_street_written_as_one_word_is_no_name() -> None:
    text = ("Ravintola Kaisla\nKerkstraat 9 · 1003 AB Amsterdam\nFACTUUR\n"
            "Factuurnummer: F-2025-88\nFactuurdatum: 09-01-2025\n" + ITEMS
            + "Totaal te betalen: 120,00 €\n"
            "Geëxploiteerd door Meijer Energie B.V. · Kerkstraat 9 · 1003 AB Amsterdam\n"
            "BTW-nummer 466167664 · ING Bank N.V. · IBAN NL81INGB0779203846")
    assert values(text)["issuer"] == "Ravintola Kaisla"


def test_a_legal_form_between_bank_details_is_the_bank() -> None:
    text = ("Casa Verde\nFACTURE\nNuméro de facture: 73837\nDate de facture: 09/01/2025\n"
            "IBAN FR76 3000 4000 · BNP Paribas SA · BIC BNPAFRPP")
    assert values(text)["issuer"] == "Casa Verde"


def test_the_name_before_its_legal_details_is_the_issuer_not_a_greeting() -> None:
    text = ("Bonjour, voici votre facture du 2 novembre 2019 :\n"
            "Vos services Téléphonie Ouest 10,83 12,99\nDate de facture : 02/11/2019\n"
            "N° de facture : 11608848301659\n" + ITEMS + "M DE LATTRE ALEXIS\nALEXINUX SARL\n"
            "35 B RUE MONTGOLFIER\n69100 VILLEURBANNE\n"
            "TELEPHONIE OUEST - Société Anonyme au capital de 712 588 399,56 € - "
            "Siège social : 37-39, rue Boissière - 75116 PARIS - 397 480 930 R.C.S. PARIS")
    assert values(text)["issuer"] == "TELEPHONIE OUEST"


def test_a_letter_spaced_title_names_the_type_and_references_do_not() -> None:
    text = ("Lieferant\nMUSTERLIEFERANT GMBH\nBAHNHOFSTRASSE 99\n99199 MUSTERHAUSEN\n"
            "Käufer\nMUSTER-KUNDE GMBH\nKUNDENWEG 88\n40235 DUESSELDORF\nKunden-Nr. : 009420\n"
            "W A R E N R E C H N U N G Seite 1\nBeleg-Nr : R87654321012345\n"
            "Beleg-Datum : 06.08.2013\nLeistungs-Datum : 05.08.2013\n"
            "Bestell-Datum : 01.08.2013\nLieferschein-Nr : L87654321012345\n"
            "Lieferschein-Datum : 05.08.2013\nGesamtbetrag 235,87 EUR")
    found = values(text)
    assert found["document_type"] == "invoice"
    assert str(found["date"]) == "2013-08-06"


@pytest.mark.parametrize("heading", ["Description", "Quantity", "United States", "Deutschland"])
def test_a_column_heading_or_a_country_alone_is_no_name(heading: str) -> None:
    text = (f"Invoice\nINV/2023/03/0008\n{heading}\nBeeswax XL 1.00 42.00\n"
            "Invoice Date: 03/20/2023\nTotal $ 279.84")
    assert values(text).get("issuer") != heading


def test_an_example_domain_names_nobody_but_the_web_address_does() -> None:
    text = ("Invoice\nINV/2023/03/0008\nInvoice Date: 03/20/2023\nTotal $ 279.84\n"
            "azure.Interior24@example.com\nhttp://www.azure-interior.com")
    assert values(text)["issuer"] == "Azure Interior"


def test_a_number_whose_label_the_text_layer_put_far_away_is_read_in_visual_order() -> None:
    """A text layer drawn column by column: the label's column first, the values' column last.
    pypdf's plain order parts "Rechnungsnr." from "30064443"; the page in visual order (the
    fallback for a missing number) has them side by side."""
    from engine.docmaker import TextAt, make_pdf
    from renamerd.engine import rename
    from renamerd.engine.types import EngineConfig, RenameOptions

    lines = [TextAt(20, 20, "QualityNet AG - Uferweg 40 - 63571 Gelnhausen"),
             TextAt(20, 40, "Rechnung"), TextAt(20, 50, "Rechnungsnr."),
             TextAt(20, 56, "Rechnungsdatum"),
             *[TextAt(20, 80 + 8 * i, f"Position {i + 1} Small Business Exchange 5,39")
               for i in range(6)],
             TextAt(20, 140, "Gesamtbetrag 32,34 EUR"),
             TextAt(60, 50, "30064443"), TextAt(60, 56, "7. Mai 2014")]
    result = rename(make_pdf(lines), "scan.pdf", RenameOptions(), EngineConfig())
    assert result.extracted_info["invoice_number"] == "30064443"
    assert result.extracted_info["date"] == "2014-05-07"


def test_an_issue_date_label_joined_to_another_by_a_slash_keeps_its_kind() -> None:
    text = ("Rechnung\nVerkauft von Nordwind Handel GmbH\nRechnungsdatum/Lieferdatum 12 Februar 2024\n"
            "Rechnungsnummer DE4ABCD1234\nBestelldatum 11 Februar 2024\nRechnungsbetrag € 23,99")
    assert str(values(text)["date"]) == "2024-02-12"


def test_a_number_printed_in_digit_groups_is_read_whole() -> None:
    text = ("Nordwind Telefon GmbH · Postfach 1000 · 53171 Bonn\nIhre Rechnung für Februar 2024\n"
            "Kundennummer 123 456 7890\nRechnungsnummer 987 654 3210\nDatum 05.02.2024\n"
            "Rechnungsbetrag 39,95 €")
    found = values(text)
    assert found["invoice_number"] == "987 654 3210"
    assert str(found["date"]) == "2024-02-05"


def test_a_legal_form_after_a_dash_joins_the_name() -> None:
    text = ("Facture du 14/03/2024\nN° de facture : 10012345678\nMontant à payer 84,32 € TTC\n"
            "Électricité Nordique - SA au capital de 1 944 148 008 euros - Siège social : "
            "22-30 avenue de Wagram 75008 Paris - RCS Paris 552 081 317")
    assert values(text)["issuer"] == "Électricité Nordique SA"


@pytest.mark.parametrize(("top", "name"), [
    ("KPN B.V.", "KPN B.V."), ("SAP SE", "SAP SE"), ("Uber", "Uber"), ("IKEA", "IKEA")])
def test_a_short_name_is_no_debris(top: str, name: str) -> None:
    text = (f"{top}\nPostbus 30000\n2500 GA Den Haag\nDhr. J. Jansen\nKerkstraat 9\n"
            "1017 GC Amsterdam\nFactuur\nFactuurnummer 0123456789\nFactuurdatum 5 maart 2024\n"
            "Totaal te betalen € 45,00")
    assert values(text)["issuer"] == name


def test_seller_and_buyer_side_by_side_under_a_two_column_header() -> None:
    text = ("FAKTURA VAT nr FV/15/03/2024\nData wystawienia: 15.03.2024\nSprzedawca: Nabywca:\n"
            "Kowalski Usługi IT Sp. z o.o. Nowak Handel S.A.\nul. Marszałkowska 10 ul. Długa 5\n"
            "00-590 Warszawa 31-147 Kraków\nNIP: 5260001234 NIP: 6760005678\n"
            "Razem do zapłaty: 1 845,00 PLN")
    assert values(text)["issuer"] == "Kowalski Usługi IT Sp. z o.o."


def test_a_us_address_makes_numeric_dates_month_first() -> None:
    text = ("ACME Ltd\nInvoice no. 12345\nInvoice date: 03/05/2024\nDue date: 04/04/2024\n"
            "Bill to: Lantern Inc., New York, NY 10001\nTotal 10.00")
    assert str(values(text)["date"]) == "2024-03-05"
    elsewhere = text.replace("New York, NY 10001", "London N1 7GU")
    assert str(values(elsewhere)["date"]) == "2024-05-03"


@pytest.mark.parametrize(("line", "number"), [
    ("Receipt #2931-4471", "2931-4471"), ("Re.-Nr. 2024117", "2024117"),
    ("Invoice ID: 7XK2-99", "7XK2-99"), ("Rg.-Nr.: 88123", "88123"),
])
def test_number_labels_as_billers_abbreviate_them(line: str, number: str) -> None:
    text = f"ACME Ltd\n{line}\nInvoice date: 2024-03-05\nTotal 10.00 EUR"
    assert values(text)["invoice_number"] == number


def test_a_direct_debits_account_holder_is_the_customer_not_the_seller() -> None:
    text = ("Anna Schmidt Grafikdesign\nLindenweg 3\n80331 München\nRechnung\n"
            "Rechnungsempfänger:\nMax Mustermann\nHauptstr. 5\n10115 Berlin\n"
            "Rechnungsnummer: 2024-117\nRechnungsdatum: 05.03.2024\n" + ITEMS
            + "Gesamtbetrag 120,00 €\nDer Betrag wird von Ihrem Konto abgebucht. "
            "- Kontoinhaber: Max Mustermann - IBAN DE12 3456 7890 1234 5678 90")
    assert values(text)["issuer"] == "Anna Schmidt Grafikdesign"


def test_a_table_row_the_text_layer_drew_first_is_no_name() -> None:
    # some producers draw the items table before the letterhead, its columns apart
    text = ("14\n4      Bâtiment 15\n3830,03\n5      Conseil 8\nFacturé à:\n"
            "Dubois Transports EURL\n51 rue de la Paix\n75000 Paris\nCasa Verde\n"
            "21 rue de la Paix · 75007 Paris\nFACTURE\nNuméro de facture: INV2025/73837\n"
            "Date de facture: 09/01/2025\nTotal TTC: 37790,37 €")
    assert values(text)["issuer"] == "Casa Verde"


@pytest.mark.parametrize("street", ["Václavské náměstí 24", "plac Bankowy 2",
                                    "Corso Buenos Aires 12", "Boulevard Haussmann 40",
                                    "Karl Johans gate 12", "Bygdøy allé 2"])
def test_a_square_or_boulevard_is_an_address_not_a_name(street: str) -> None:
    text = (f"Pos. Description Qty Amount\n1 Poradenství 82\n{street}\n"
            "FAKTURA\nČíslo faktury: RE202474887\nDatum vystavení: 22.09.2024\n"
            f"RAVINTOLA KAISLA\n{street} · 110 08 Praha 1\nCelkem k úhradě: 93069,57 Kč")
    assert values(text)["issuer"] == "RAVINTOLA KAISLA"


# --- text layers ------------------------------------------------------------------------------

@pytest.mark.parametrize("hidden", ["\u00ad", "\u200b", "\u2060", "\ufeff"])
def test_invisible_characters_inside_words_change_nothing(hidden: str) -> None:
    plain = ("Northwind Traders Ltd\n12 High Street, London\nINVOICE\n"
             "Invoice number: INV-2024-0042\nInvoice date: 14 March 2024\nTotal 1,728.00 GBP")
    text = "".join(ch + hidden if ch.isalnum() and i % 3 == 0 else ch
                   for i, ch in enumerate(plain))
    assert text != plain
    assert values(text) == values(plain)


def test_ligatures_and_decomposed_accents_read_as_the_letters_they_are() -> None:
    text = ("O\ufb03ce Supplies Ltd\nINVOICE\nInvoice number: 88\nInvoice date: 14 March 2024")
    assert values(text)["issuer"] == "Office Supplies Ltd"
    decomposed = "Socie\u0301te\u0301 Ge\u0301ne\u0301rale SA\nFACTURE\nDate de facture : 2 mai 2024"
    assert values(decomposed)["issuer"] == "Société Générale SA"


@pytest.mark.parametrize(("title", "kind"), [
    ("RECHNUNGS-KORREKTUR Seite 1", "credit_note"), ("CREDIT-NOTE", "credit_note"),
    ("Comprovante BB", "receipt"),
])
def test_a_hyphenated_or_portuguese_title_names_the_type(title: str, kind: str) -> None:
    text = (f"Muster GmbH\nBahnhofstrasse 99\n99199 Musterhausen\n{title}\n"
            "Beleg-Nr : RK21012345\nBeleg-Datum : 16.09.2013\nLieferschein-Nr : L8765\n"
            "Lieferschein-Datum : 05.08.2013")
    assert values(text)["document_type"] == kind


def test_a_hyphenated_number_label_is_no_title() -> None:
    text = "Muster GmbH\nLieferschein-Nr 5\nRechnung\nRechnungsdatum: 16.09.2013"
    assert values(text)["document_type"] == "invoice"


def test_a_payment_receipts_payee_is_named_and_its_payer_is_the_customer() -> None:
    text = ("Comprovante BB\nR$ 12,50\n14/07/2026 às 06:33:45\nPix - QR Code\nRecebedor\n"
            "Caixa Loterias S A\nCNPJ\n24.038.490/0001-83\nPagador\nJady Souza\nCPF\n***")
    assert values(text)["issuer"] == "Caixa Loterias S A"


def test_a_name_in_lower_case_words_before_its_legal_form_is_kept_whole() -> None:
    text = ("Au bon moulin SARL - 1242 chemin de l'olive - 84340 Malaucène - France\n"
            "TVA : FR11999999998 - SIRET : 99999999800010\nFacture FA-2017-0010\n"
            "Date de facture 13/11/2017")
    assert values(text)["issuer"] == "Au bon moulin SARL"


def test_rechnungsersteller_alone_on_its_line_labels_the_seller_below() -> None:
    text = ("Rechnungsersteller\nLieferant GmbH\nLieferantenstraße 20 RECHNUNG\n"
            "80333 München Rechnungsnummer 471102\nDeutschland Rechnungsdatum 05.03.2013\n"
            "Rechnungsempfänger Kundennummer GE2020211\nKunden AG Mitte Beträge in EUR")
    assert values(text)["issuer"] == "Lieferant GmbH"


@pytest.mark.parametrize("page", ["Seite 1 von 2", "Page 1 of 2", "Página 1 de 2", "Strona 1 z 2"])
def test_a_page_number_on_top_is_no_name(page: str) -> None:
    text = f"{page}\nSeaside Inn\n21 rue de la Paix · 75007 Paris\nFACTURE\nDate: 12/03/2024"
    assert values(text)["issuer"] == "Seaside Inn"


def test_a_label_with_its_date_on_top_is_no_name() -> None:
    """An online shop's order page opens with "Order Placed: August 3, 2024"."""
    text = ("Final Details for Order #112-1234567-1234567\nPrint this page for your records.\n"
            "Order Placed: August 3, 2024\nAmazon.com order number: 112-1234567-1234567\n"
            "Order Total: $36.16\nShipped on August 4, 2024\nItems Ordered Price\n"
            "1 of: USB-C Cable 6ft $12.99\nSold by: Anker Direct (seller profile)\nShipping Address:\n"
            "Jane Doe\n"
            "1 Main St\nSEATTLE, WA 98109\nPayment information\nGrand Total: $36.16")
    found = values(text)
    assert found["issuer"].startswith("Anker Direct") and found["date"] == "2024-08-03"


@pytest.mark.parametrize(("debit", "issued"), [
    ("montant total TTC 42,99 €\nprélevé le 22 mars 2024", "Votre facture\ndu 08 mars 2024"),
    ("Gesamtbetrag 39,99 €\nAbbuchung am 22.03.2024", "Rechnung\nvom 08.03.2024"),
    ("Total 42.99 EUR\nDebit date: 22/03/2024", "Your bill\n08/03/2024"),
])
def test_a_direct_debits_date_is_no_issue_date(debit: str, issued: str) -> None:
    text = f"Orange SA\n{issued}\nClient 123 456 789\n{debit}"
    assert values(text)["date"] == "2024-03-08"


@pytest.mark.parametrize("name", ["Alza a.s.", "Alza.cz a.s.", "Uber B.V."])
def test_one_capitalised_word_with_its_legal_form_is_a_name(name: str) -> None:
    text = (f"{name}\nJankovcova 1522/53, 170 00 Praha 7\nFaktura - daňový doklad č. 2412345678\n"
            "Datum vystavení: 14.08.2024\nOdběratel: Jan Novák")
    assert values(text)["issuer"] == name


def test_a_bill_number_and_an_energy_bill() -> None:
    text = ("British Gas\nPO Box 227, Rotherham, S98 1PD\nYour energy bill\nBill date 25 January 2024\n"
            "Bill number 800123456789\nAmount to pay £152.40\nBritish Gas Trading Limited, "
            "registered in England and Wales No. 03078711")
    found = values(text)
    assert found["invoice_number"] == "800123456789" and found["document_type"] == "invoice"


def test_a_bills_title_alone_on_its_line_under_the_address_window() -> None:
    # the customer's address and the account's lines come first; the title under them
    text = ("northbrook energy\nMr T. Ashworth\n14 Mill Lane\nHebden Bridge\nHX7 8AB\n"
            "Account number 8800 4123 7781\nBill number 00471299\nBill date 2 April 2025\n"
            "Billing period 1 Mar 2025 – 31 Mar 2025\nYour electricity bill\nAmount to pay\n"
            "£84.12\nElectricity used (312 kWh @ 24.50p) £76.44\nVAT at 5% £4.65\nTotal £84.12")
    assert values(text)["document_type"] == "invoice"
    # a heading's phrase inside a sentence further down is no title (and without the bill's
    # own number, whose label would name it: test_letterheads.py)
    text = text.replace("Your electricity bill", "Read more about your electricity bill")
    text = text.replace("Bill number 00471299\n", "")
    assert values(text)["document_type"] != "invoice"


@pytest.mark.parametrize("address", ["Alamat: Jl. Sudirman No. 1, Jakarta",
                                     "NO. 12, JALAN BESAR, 50000 KUALA LUMPUR",
                                     "İstiklal Caddesi No: 21"])
def test_a_house_number_is_no_document_number(address: str) -> None:
    text = f"INVOICE\nINV/20240320/MPL/3812345678\nPenjual : Toko Jaya\n{address}"
    assert values(text)["invoice_number"] == "INV/20240320/MPL/3812345678"


SWEDISH_BILL = """Faktura
Fakturanummer 40117
Fakturadatum 2024-05-06
Er referens: Anna Svensson
Vår referens: Erik Lund
Anna Svensson
Storgatan 4
411 38 Göteborg
Fönsterputs | 1 | 1 200,00 | 1 200,00
Att betala: 1 500,00 SEK
Putsgruppen i Väst AB | Org.nr 556123-4567 | Bankgiro 123-4567 | Innehar F-skattsedel
"""


def test_a_person_named_after_a_reference_label_is_no_issuer() -> None:
    # the customer's address block has no label; "Er referens" (your reference) names her
    assert extract([SWEDISH_BILL]).values["issuer"] == "Putsgruppen i Väst AB"


@pytest.mark.parametrize("label", ["Your reference:", "Ihr Zeichen:", "Votre référence :",
                                   "Contactpersoon:", "Ansprechpartner"])
def test_contact_labels_in_several_languages_name_a_person(label: str) -> None:
    doc = Doc.from_pages([f"ACME Ltd\n{label} Maria Lopez | Tel 123\nInvoice 5"])
    assert contact_persons(doc) == ["Maria Lopez"]


def test_a_company_opening_its_legal_line_beside_its_bank_is_no_bank() -> None:
    # "BNP Paribas SA · IBAN" is a bank; "Putsgruppen AB | Org.nr | Bankgiro" the company
    bank_line = SWEDISH_BILL.replace("Putsgruppen i Väst AB | Org.nr 556123-4567 | ",
                                     "Org.nr 556123-4567 | Swedbank AB | ")
    assert extract([bank_line]).values.get("issuer") != "Swedbank AB"


@pytest.mark.parametrize(("title", "number"), [("FATURA FT 2024/1532", "FT 2024/1532"),
                                               ("Fatura n.º FR A1/87", "FR A1/87")])
def test_a_portuguese_series_and_number_are_the_invoice_number(title: str, number: str) -> None:
    text = (f"{title}\nOriginal\nCarpintaria Silva & Filhos, Lda.\nRua do Comércio, 45\n"
            "4000-123 Porto\nNIF: 501234567\nData: 2024-02-28\nTotal (EUR) 1.476,00\n")
    assert values(text)["invoice_number"] == number


def test_a_polish_series_with_its_parts_is_the_invoice_number() -> None:
    # the branch's "Stacja Paliw Nr 4445" below is weaker than the invoice's own label
    text = ("Faktura nr: F 1234K20/1234/12          Data wystawienia: 2021-01-01\n"
            "Sprzedawca: Hurtownia Volt Sp. z o.o.\nNIP: 781-123-45-67\n"
            "Stacja Paliw Nr 4445\nNależność ogółem: 316,83 PLN\n")
    assert values(text)["invoice_number"] == "F 1234K20/1234/12"


def test_a_word_in_capitals_before_a_date_is_no_series() -> None:
    text = "ACME Ltd\nINVOICE DUE 12/03/2024\nInvoice no: A-17\nTotal 5.00"
    assert values(text)["invoice_number"] == "A-17"


HOTEL_BILL = """Hotel Alpenrose
Dorfstrasse 12, 6020 Innsbruck, Österreich
Tel. +43 512 123456 · info@alpenrose-innsbruck.at
RECHNUNG
Rechnung Nr. 2024/00871
Datum: 18.02.2024
Übernachtung mit Frühstück | 3 | 129,00 | 387,00
Gesamt EUR 396,00
Alpenrose Hotelbetriebs GmbH · FN 123456a · UID ATU12345678
"""


def test_a_letterhead_brand_is_preferred_to_its_own_legal_entity_in_the_footer() -> None:
    assert values(HOTEL_BILL)["issuer"] == "Hotel Alpenrose"


def test_only_a_legal_entity_sharing_the_brands_name_yields_to_it() -> None:
    def reasons(text: str) -> list[tuple[str, ...]]:
        return [c.reasons for c in issuer_candidates(Doc.from_pages([text]), "de")]

    assert any("brand of the legal entity below" in r for r in reasons(HOTEL_BILL))
    other = HOTEL_BILL.replace("Alpenrose Hotelbetriebs GmbH", "Tiroler Gastro GmbH")
    assert not any("brand of the legal entity below" in r for r in reasons(other))


def test_an_emailed_receipt_from_a_company_is_a_receipt_though_it_names_its_invoice() -> None:
    text = ("Receipt from Fernhill Analytics Inc.\n$49.00\nPaid March 5, 2024\n"
            "Receipt number 2381-4471\nInvoice number 7F3C2A1-0012\nPayment method Visa - 4242\n"
            "Total $49.00\nAmount paid $49.00\n")
    got = values(text)
    assert got["document_type"] == "receipt" and got["issuer"] == "Fernhill Analytics Inc."


def test_a_ride_receipt_without_a_title_is_a_receipt() -> None:
    text = ("Uber\nTotal €18.40\nMarch 9, 2024\nThanks for riding, Anna\nTrip fare €16.10\n"
            "Booking fee €2.30\nAmount charged\nVisa ••••4242 €18.40\n")
    assert values(text)["document_type"] == "receipt"


def test_a_spanish_simplified_invoice_number_and_a_dutch_nota() -> None:
    ticket = ("MERCADONA, S.A.\nA-46103834\nC/ ALCALA 120\n15/03/2024 19:42 OP: 123456\n"
              "FACTURA SIMPLIFICADA: 2345-017-654321\nTOTAL (€) 2,50\n")
    assert values(ticket)["invoice_number"] == "2345-017-654321"
    nota = ("Vattenfall\nPostbus 41920, 1009 DC Amsterdam\nJaarnota\nNotanummer: 40012345678\n"
            "Notadatum: 2 februari 2024\nTotaal te betalen € 245,60\n")
    got = values(nota)
    assert got["invoice_number"] == "40012345678" and got["document_type"] == "invoice"


def test_a_specific_number_label_beats_the_title_word_beside_a_code() -> None:
    # a text layer without line breaks: "Rechnung" opens it, a form's code beside it
    text = ("Rechnung LU-BIO-04 Nordlicht Handel GmbH - Marktweg 3, 80807 München "
            "Rechnungsdatum 27 Dezember 2023 Rechnungsnummer DE37ST38DAEUI Zahlbetrag 638,49 €")
    assert values(text)["invoice_number"] == "DE37ST38DAEUI"


def test_the_title_word_alone_still_gives_the_number() -> None:
    assert values("Nordlicht Handel GmbH\nRechnung 2024-0117\nDatum: 03.05.2024\n"
                  "Gesamtbetrag 12,00 €")["invoice_number"] == "2024-0117"


@pytest.mark.parametrize(("sender", "issuer"), [
    ("congstar Kundenservice • Postfach 1165 • 61466 Kronberg", "congstar"),
    ("Stadtwerke Lindau GmbH - Kundenservice", "Stadtwerke Lindau GmbH"),
    ("Northwind Energy Ltd Customer Service", "Northwind Energy Ltd"),
])
def test_a_department_after_the_sender_is_no_part_of_its_name(sender: str, issuer: str) -> None:
    text = (f"{sender}\nMax Muster\nMusterweg 1\n12345 Musterstadt\nRechnungsdatum 18.03.2025\n"
            "Rechnungsnummer 7580000000\nRechnung für Februar 2025\nZu zahlender Betrag: 20,00 €")
    assert values(text)["issuer"] == issuer


def test_a_browsers_print_stamp_is_not_the_documents_date() -> None:
    text = ("7/30/26, 11:02 AM Medium\nInvoice 930d0222020d\nPaid on 06/10/26 · Status: Paid\n"
            "From To\nA Medium Corporation Example d.o.o.\nTotal $5.00 USD\n"
            "https://medium.com/me/receipts/930d0222020d 1/1")
    assert values(text)["date"] == "2026-06-10"


def test_a_time_after_a_date_inside_the_page_is_no_print_stamp() -> None:
    text = ("ACME Ltd\n25/03/2024, 10:22 Till 3\nTotal 5.00\nOffer ends 30/04/2024\n"
            "Thank you")
    assert values(text)["date"] == "2024-03-25"


def test_an_order_summary_is_an_order_and_no_name() -> None:
    text = ("Order Summary\nOrder placed 1 December 2025 Order No. 304-3794232-9113914\n"
            "Payment method Order Summary\nItem(s) Subtotal: €35.28\nGrand Total: €41.98\n"
            "USB Microphone for Podcast Studio\nSold by: Nordlicht Handel GmbH")
    found = values(text)
    assert found["document_type"] == "order_confirmation"
    assert found["issuer"] == "Nordlicht Handel GmbH"


def test_a_vat_id_or_a_cards_number_is_no_receipt_number() -> None:
    text = ("REWE Markt GmbH\nDomstr. 20, 50668 Köln\nUID Nr.: DE812706034\nBACKMISCHUNG 1,99 B\n"
            "SUMME EUR 1,99\nGeg. BAR EUR 5,00\nPAYBACK Karten-Nr.: #########1234\n"
            "01.01.2022 12:34 Bon-Nr.:2345")
    assert values(text)["invoice_number"] == "2345"


@pytest.mark.parametrize(("text", "number"), [
    # the registered office's house number ("nº 60") above is an address, "Nº factura" a label
    ("Endesa Energía, S.A.\nC/Ribera del Loira, nº 60 28042 - Madrid.\nDATOS DE LA FACTURA\n"
     "Nº factura:\nP25CON049766428\nFecha emisión factura: 25/10/2025", "P25CON049766428"),
    # a Portuguese simplified invoice: "Nro:" and a series written with its document code
    ("Hipermercado Norte S.A.\nNIF: PT502011475\nFatura Simplificada Original\n"
     "Nro:FS FIQ203/048287 10/05/2026 15:53\nIVA Nao sujeito - Decreto-Lei n.o 152-D/2017",
     "FS FIQ203/048287"),
    # a series code, a spaced dash and the number
    ("LOCADORA SUL S/A\nCNPJ - 16.670.085/0381-28\nFATURA / DUPLICATA Nº: ACPIT - 311630\n"
     "Emissão 31/03/2026", "ACPIT - 311630"),
    # a series code and the number, a blank or a spaced slash apart
    ("Loop Electricidad y Gas, S.L. CIF B87095543\nDatos de la factura:\n"
     "Nº Factura: IGNIS 260266119 Tipo de factura:\nFecha factura: 17 de agosto de 2026\n"
     "Total Factura: 1.154,72 €", "IGNIS 260266119"),
    ("FACTURA FAC-2026 / 8740\nLACTEOS GUERRERO SL\nNIF: B09816158", "FAC-2026 / 8740"),
    # Stripe's number, whose hyphen a text layer reads as a blank
    ("Receipt\nInvoice number3466BF65 0030\nDate paid April 5, 2026\nLantern Labs LLC",
     "3466BF65 0030"),
    # OCR's comma before the colon ("No,:")
    ("Nota Fiscal Eletrônica de Repasse - NF-R\nSérie: RI Nota No,: 2279456 Emissão: 07/05/2026\n"
     "Processo Administrativo No. 11.037/2020", "2279456"),
])
def test_spanish_and_portuguese_number_labels(text: str, number: str) -> None:
    assert values(text)["invoice_number"] == number


def test_a_currency_and_an_amount_after_a_number_label_are_no_series() -> None:
    assert "invoice_number" not in values("ACME Ltd\nInvoice No: EUR 1000\nDate: 07/07/2026")


def test_a_known_label_written_with_a_hyphen_is_still_known() -> None:
    text = "Muster GmbH\nLieferschein-Nr 5\nRechnungsdatum: 16.09.2013\nSumme 10,00 €"
    assert values(text)["invoice_number"] == "5"


def test_a_footers_copyright_notice_is_no_part_of_the_name() -> None:
    text = ("Votre facture\nIDENTIFIANT APPLE jean@example.com\nDATE DE LA FACTURE\n26 oct. 2023\n"
            "N° DE DOCUMENT: 194677656541\nTOTAL 0,99 €\n"
            "Copyright © 2023 Nordlicht Distribution International Ltd. Tous droits réservés")
    found = values(text)
    assert found["issuer"] == "Nordlicht Distribution International Ltd."
    assert found["invoice_number"] == "194677656541"  # not the day under the date's label
    assert found["date"] == "2023-10-26"


def test_a_number_after_a_star_is_read() -> None:
    assert values("ACME Ltd\nInvoice\nDocument number: *1011-383\nDate: 09.08.2023\n"
                  "Total 141.00")["invoice_number"] == "1011-383"


@pytest.mark.parametrize(("text", "kind"), [
    ("Booking confirmation\nThank you for booking with Harbour Hostels Ltd\nArrival 10.08.2018",
     "order_confirmation"),
    ("ICS\nRekeningoverzicht\nVorig openstaand saldo 120,00\nNieuw openstaand saldo 80,00",
     "bank_statement"),
])
def test_more_kinds_of_documents_are_named(text: str, kind: str) -> None:
    assert values(text)["document_type"] == kind


def test_a_czech_seller_label_names_the_issuer() -> None:
    text = ("JÍZDENKA A MÍSTENKA\nProdejce: Železnice Morava, a.s.\nIČ: 70994226\n"
            "Cestující: Jan Novák\nDatum vystavení: 08.08.2023\nCena 141 Kč")
    assert values(text)["issuer"] == "Železnice Morava, a.s."


HOSTING_EMAIL = """Hello,
Your Skyforge invoice for July 2023 is now available. We will charge your card $50.17.
Thanks for choosing Skyforge,
The Skyforge Billing Team
Billed to:
Estelle Lafforgue
7 allée Albert Camus
Blagnac, 31700
FR
NoCoffee SARL
Billing period:
July 01, 2023 - August 01, 2023
Invoice #:
84913487
Total: $ 50.17"""


def test_a_team_signing_an_e_mailed_bill_is_its_sender() -> None:
    # the customer's company, at the end of the billing address, has the only legal form
    assert values(HOSTING_EMAIL)["issuer"] == "Skyforge"


@pytest.mark.parametrize(("line", "language", "name"), [
    ("Your A&O Team", "en", "A&O"), ("Dein congstar Team", "de", "congstar"),
    ("L'équipe Qonto", "fr", "Qonto"), ("El equipo de Holded", "es", "Holded"),
    ("The Support Team", "en", None), ("Thanks to the whole team", "en", None),
    ("Your A&O Team  AOI-1234", "en", None),  # a sign-off and nothing else
    # a shop's thanks or welcome names it too; a sentence after it is cut off
    ("Thank you for booking with Nordwind Travel", "en", "Nordwind Travel"),
    ("THANK YOU FOR SHOPPING AT KEDAI MAJU! PLEASE COME AGAIN", "en", "KEDAI MAJU"),
    ("Tack för att du bokat din resa hos Resebyrån Norr!", "sv", "Resebyrån Norr"),
    ("Vielen Dank für Ihren Einkauf bei Drogerie Sommer. Bis bald", "de", "Drogerie Sommer"),
    ("Merci d'avoir choisi Atelier Brun", "fr", "Atelier Brun"),
    ("Terima kasih telah berbelanja di Toko Sinar", "id", "Toko Sinar"),
    # a slip in English thanking in Malay: a thanks is read in any language
    ("TERIMA KASIH KERANA MEMBELI-BELAH DI KEDAI MAJU", "en", "KEDAI MAJU"),
    ("Thank you for your order from Hahn Technik GmbH.", "en", "Hahn Technik GmbH"),
    ("Thank you for using Brightwave.", "en", "Brightwave"),
    ("Thank you for shopping with us", "en", None), ("Welcome to your account", "en", None),
    ("Thank you for shopping at our store today, see you", "en", None),
])
def test_sign_offs(line: str, language: str, name: str | None) -> None:
    assert signed_off(line, language) == name


BOOKING_FORM = """Thank you for booking with Nordwind Travel

Your booking reference: QX7T2M

Reserved by:                  Travel Desk
Company:                      Lindqvist Audio AB
Address:                      Storgatan 30
                              11122 Stockholm
Date: Mon 17 Oct 2016
Flight SK 1421 Stockholm - Oslo"""

TILL_SLIP_THANKS = """KEDAI RUNCIT MAJU
NO 12, JALAN BESAR
43000 KAJANG
25/01/2018 1:22:56PM
TAX INVOICE
CASHIER: AMIN
SUMMER CUP 9.00
Total 9.00
Cash 50.00
Change 41.00
Thank you for shopping at KEDAI RUNCIT
MAJU ENTERPRISE"""


def test_the_agency_that_thanks_for_a_booking_is_its_sender() -> None:
    # the traveller's company, with the form's only legal suffix, is the customer
    assert values(BOOKING_FORM)["issuer"] == "Nordwind Travel"


def test_a_thanks_broken_over_two_lines_names_the_whole_shop() -> None:
    assert values(TILL_SLIP_THANKS)["issuer"] == "KEDAI RUNCIT MAJU ENTERPRISE"


ORDER_PAGE = """Item(s) Subtotal: $114.75
Grand Total:$124.50
Final Details for Order #114-3857276-9081813
Print this page for your records.
Order Placed: April 30, 2020
Order Total: $124.50
Shipped on May 1, 2020
Items Ordered Price
5 of: Canvas Fabric, Sapphire Blue
Sold by: fabricguru (seller profile)
$22.95
Shipping Address:
Jane Roe
539 MAIN ST
SAN FRANCISCO, CA 94117-2212
United States
Credit Card transactions Visa ending in 9574: May 1, 2020:$124.50
Conditions of Use | Privacy Notice © 1996-2023, Webshop.com, Inc. or its affiliates"""


def test_an_orders_page_is_named_by_its_order() -> None:
    found = values(ORDER_PAGE)
    assert found["date"] == "2020-04-30"  # placed, not shipped or charged
    assert found["invoice_number"] == "114-3857276-9081813"
    assert found["issuer"] in ("Webshop.com, Inc.", "fabricguru")  # never the customer


def test_an_order_date_beside_an_invoice_date_is_not_the_documents() -> None:
    text = ("Nordlicht Handel GmbH\nRechnung\nBestelldatum 26 Dezember 2025\n"
            "Rechnungsdatum 29 Dezember 2025\nRechnungsnummer LU571I5B0AEUI\nZahlbetrag 144,49 €")
    assert values(text)["date"] == "2025-12-29"


def test_an_order_number_is_the_number_of_an_order_not_of_an_invoice() -> None:
    text = "Webshop GmbH\nAuftragsbestätigung\nDatum: 14.01.2024\nBestellnummer: 302-1725"
    assert values(text)["invoice_number"] == "302-1725"
    assert "invoice_number" not in values("Webshop GmbH\nMahnung\nBestellnummer: 302-1725")


def test_a_copyright_notice_names_the_company_but_not_the_software_that_made_it() -> None:
    body = "Bill to: Fabrikam Ltd\n5 High Street\nLondon EC1A 1BB\nInvoice no: 17\nTotal 5.00\n"
    assert values("Invoice\n" + body + "© 2024 Lumen Notes Inc.")["issuer"] == "Lumen Notes Inc."
    made = values("Northwind Traders\nInvoice\n" + body + "Powered by InvoiceApp Inc. © 2024")
    assert made["issuer"] == "Northwind Traders"


@pytest.mark.parametrize(("notice", "name"), [
    ("Copyright © 1996–2026 Nordwind.com. All rights reserved.", "Nordwind.com"),
    ("© 2025 Reisewelt GmbH. Alle Rechte vorbehalten.", "Reisewelt GmbH"),
])
def test_a_copyright_notice_ends_where_the_rights_are_reserved(notice: str, name: str) -> None:
    text = ("Thanks, Anna! Your stay in Lisbon is confirmed.\nCheck-in Sunday, March 8, 2026\n"
            "Total price € 412\n" + notice)
    assert values(text)["issuer"] == name


@pytest.mark.parametrize(("line", "language"), [
    ("Vielen Dank, Ihre Buchung ist bestätigt.", "de"), ("Merci, à bientôt", "fr"),
    ("Tack så mycket!", "sv"), ("Terima kasih", "id"),
])
def test_thanks_opening_a_mail_are_no_name(line: str, language: str) -> None:
    text = f"{line}\n{line}\nBuchungsreferenz: QX7T2M\nSehr geehrter Herr Doe\nTotal 99,90"
    names = [c.value for c in issuer_candidates(Doc.from_pages([text]), language)]
    assert not any(name.split(",")[0].strip(" !") == line.split(",")[0].strip(" !")
                   for name in names), names


MAILED_INVOICE = """To: anna@example.com
Date: Tue, 30 Sep 2025 04:05:01 +0000
Subject: Your Brightwave invoice is attached
From: "Brightwave" <noreply@notify.brightwave.io>

Invoice details:
- Invoice ID: IN-48951432
- Invoice Amount: $25.20

Additional resources
- Support: https://help.example.net/brightwave"""


def test_a_mails_sender_is_the_name_of_its_from_line_not_its_subject() -> None:
    assert values(MAILED_INVOICE)["issuer"] == "Brightwave"
    subject = MAILED_INVOICE.replace("Subject: Your", "Betreff: Ihre").replace(
        'From: "Brightwave" <noreply@notify.brightwave.io>', "")
    names = [c.value for c in issuer_candidates(Doc.from_pages([subject]), "de")]
    assert not any("invoice is attached" in n for n in names), names


@pytest.mark.parametrize(("text", "kind", "number"), [
    ("Staywell.com\nConfirmation: 4417205588\nPIN: 1234\nThanks, Anna! Your booking is "
     "confirmed.\nCheck-in Sunday, March 8, 2026", "order_confirmation", "4417205588"),
    ("Olá Ana, a sua reserva foi confirmada.\nReserva nº 88123\nCheck-in 08/03/2026",
     "order_confirmation", "88123"),
    ("From: purchase-noreply@streamly.tv\nSubject: Invoice Receipt\nThis email confirms your "
     "recent payment.\nInvoice 696026438\nFeb 20, 2026\nTotal Due: $0.00", "receipt",
     "696026438"),
])
def test_a_confirmed_booking_and_an_invoice_receipt(text: str, kind: str, number: str) -> None:
    found = values(text)
    assert (found["document_type"], found["invoice_number"]) == (kind, number)


def test_a_number_inside_a_title_is_read_past() -> None:
    # a web shop's order e-mail: "Order #743234 Confirmed" above a "Thank you for your purchase!"
    text = ("From: Filters <store@shopmail.example>\nDate: Mon, Apr 27, 2026 at 2:30 PM\n"
            "Subject: Order #743234 Confirmed\nORDER #743234\n"
            "Hi Power Products. Thank you for your purchase!\nSubtotal $253.93\n"
            "Total due May 27, 2026 $265.93 USD")
    found = values(text)
    assert (found["document_type"], found["invoice_number"]) == ("order_confirmation", "743234")


@pytest.mark.parametrize(("seller", "buyer", "language"), [
    ("Sprzedawca", "Nabywca", "pl"), ("Verkäufer", "Käufer", "de"), ("Seller", "Buyer", "en"),
])
def test_a_sellers_label_stacked_over_a_buyers_names_the_first_column(
        seller: str, buyer: str, language: str) -> None:
    # a two-column header read one cell a line: the seller's column comes first
    text = (f"Miejsce wystawienia\nWarszawa\nData wystawienia 12.03.2024\n"
            f"Faktura Nr FV/GD/24/03/00558\n{seller}\n{buyer}\nSapori Piccoli Sp. z o.o.\n"
            f"ul. K. Gierdziejewskiego 7\n02-495 Warszawa\nPizzeria Lemke s.c.\nul. Żytnia 42\n"
            f"84-122 Żelistrzewo\nRazem 120,00")
    assert values(text)["issuer"] == "Sapori Piccoli Sp. z o.o."


def test_an_order_date_beside_a_plain_date_label_is_not_the_documents() -> None:
    text = ("Musterfirma | Lieferdatum | 19.02.2014\nHerrn Manfred Muster | Auftragsdatum | 19.02.2014\n"
            "12345 Musterstadt | Datum | 05.02.2014\nRechnung Nr. 4\nBitte überweisen Sie den Betrag "
            "bis zum 19.02.2014.")
    assert values(text)["date"] == "2014-02-05"


def test_a_bank_at_the_top_of_its_own_letter_is_the_sender() -> None:
    text = ("Nordwest Bank AG\nPostfach 2608, 26016 Oldenburg\nMax Mustermann\nMusterweg 1\n"
            "12345 Musterstadt\nOldenburg, 12.03.2024\nWertpapierabrechnung Kauf\n"
            "Stück 10 ACME AG Kurswert 1.000,00 EUR")
    assert values(text)["issuer"] == "Nordwest Bank AG"


def test_a_bank_named_for_payment_on_a_bill_is_not_the_sender() -> None:
    text = ("Pemberton Consulting LLC\n18 High Street, London EC1A 6BB\nINVOICE\n"
            "Invoice no: 17\nDate: 28/06/2024\nTotal £500.00\n"
            "Please pay to Barclays Bank PLC, IBAN GB29 NWBK 6016 1331 9268 19")
    assert values(text)["issuer"] == "Pemberton Consulting LLC"


def test_a_letters_date_line_is_its_date() -> None:
    text = ("Nordwest Landesbank AG\nMax Mustermann\nMusterweg 1\n12345 Musterstadt\n"
            "Rechnungsabschluss zum 31.03.2022\nFrankfurt am Main, 01.04.2022\n"
            "Kontostand am 31.03.2022 1.234,56 EUR")
    found = values(text)
    assert found["date"] == "2022-04-01"
    assert found["document_type"] == "bank_statement"


@pytest.mark.parametrize(("text", "date"), [
    # a letter's date alone under the address, a balance carried "vom" another date below
    ("Gern berät Sie:\nNordbank eG\nFondsservice\nHerrn\nMax Mustermann\nMusterstr. 12\n"
     "11111 Musterstadt\n28. Januar 2026\nAbrechnung Nr. 63\nVortrag vom 02.01.2026 2,819\n"
     "Bestand am 28.01.2026 2,800", "2026-01-28"),
    ("Nordkapital GmbH\nSeitzstrasse 8e\n80538 Munich\nPage 1/5\nMr. Munich\n2022-06-08\n"
     "Periodic Account Statement\n2022-05-03 Order fee 2022-05-03 0.99", "2022-06-08"),
    # a date alone under a label, even one not known, is that label's
    ("AAA School Apparel\nInvoice Date: 02/25/2025\nIIInnnvvv DDDuuueee DDDaaattteee:::\n"
     "08/10/2025\nTotal 120.00", "2025-02-25"),
    # the date of another document, its label qualified after it ("associée")
    ("Le Fournisseur SARL\nFacture N° : F20260023\nParis, le 31/01/2026\n"
     "DATE DE FACTURE ASSOCIÉE : 01/01/2026\nNET A PAYER 104,90 EUR", "2026-01-31"),
])
def test_a_letters_date_alone_under_the_address_is_its_date(text: str, date: str) -> None:
    assert values(text)["date"] == date


def test_a_type_word_heading_a_column_of_amounts_is_no_title() -> None:
    text = ("Deutsche Nordbank AG\nKontoauszug Nr. 3/2024\nDatum | Buchungstext | "
            "Belastung in EUR | Gutschrift in EUR\n02.03. | Miete | 800,00 |\n"
            "Neuer Kontostand 1.200,00 EUR")
    assert values(text)["document_type"] == "bank_statement"


def test_a_brand_in_small_letters_then_capitals_keeps_its_name() -> None:
    text = ("flatexDEGIRO Bank AG\nRotfeder-Ring 7, 60327 Frankfurt am Main\nMax Mustermann\n"
            "Frankfurt am Main, 01.04.2022\nRechnungsabschluss zum 31.03.2022")
    assert values(text)["issuer"] == "flatexDEGIRO Bank AG"


def test_the_next_invoices_date_is_not_this_ones() -> None:
    text = ("Lumen Notes Ltd\nInvoice 1002 February 22, 2019\nBill to: Jane Roe\n"
            "Pro plan | £8.00\nTotal £8.00\n"
            "Thank you for your business. Your next invoice date is March 22, 2019.")
    assert values(text)["date"] == "2019-02-22"


def test_a_gmbh_plus_co_kg_is_a_legal_form() -> None:
    text = ("dm-drogerie markt GmbH + Co. KG\nBilker Allee 43\n40219 Düsseldorf\n"
            "SUMME EUR 12,34\nBAR EUR 20,00\nRückgeld EUR 7,66\n12.03.2015 14:22")
    assert values(text)["issuer"] == "dm-drogerie markt GmbH + Co. KG"


def test_a_sender_line_written_with_commas_is_the_senders() -> None:
    text = ("Nordbank Direkt, Taubenstr. 7-9, 10117 Berlin\nMax Mustermann\nMusterweg 3\n"
            "01157 Musterstadt\nKontoauszug Nummer 004 / 2021 vom 05.03.2021 bis 01.04.2021\n"
            "05.03. Überweisung Max Mustermann 418,50")
    assert values(text)["issuer"] == "Nordbank Direkt"


def test_a_customers_address_on_one_line_is_no_sender_line() -> None:
    text = ("Nordlicht Handel\nMax Mustermann, Musterweg 1, 12345 Musterstadt\nRechnung\n"
            "Rechnungsnummer 2024-17\nRechnungsdatum 03.05.2024\nGesamtbetrag 12,00 €")
    assert values(text)["issuer"] == "Nordlicht Handel"


def test_a_bookings_reference_is_a_booking_confirmations_number() -> None:
    text = ("Travel Nord AB\nBooking confirmation\nBooking reference: QWK4RT\n"
            "Flight SK 1415 Stockholm - Oslo 17 Oct 2016\nThank you for booking with us")
    assert values(text)["invoice_number"] == "QWK4RT"
    hotel_invoice = ("Hotel Alpenrose\nRECHNUNG\nRechnungsnummer 2024/00871\nDatum: 18.02.2024\n"
                     "Buchungsnummer: 55123\nGesamt EUR 396,00")
    assert values(hotel_invoice)["invoice_number"] == "2024/00871"


def test_a_shop_name_printed_letter_spaced_is_read_as_one_word() -> None:
    text = ("R E W E\nSiebenmorgen 40\n51427 Bergisch Gladbach\nBACKMISCHUNG 1,99 B\n"
            "SUMME EUR 1,99\nGeg. EC-Cash EUR 1,99\n12.02.2025 18:22")
    found = values(text)
    assert found["issuer"] == "REWE"
    assert found["document_type"] == "receipt"  # given, card, time: a till's words


@pytest.mark.parametrize("thanks", ["Thank you for booking with Travel Nord",
                                    "Tack för att du bokat din resa hos Travel Nord!"])
def test_thanks_for_booking_opens_a_booking_confirmation(thanks: str) -> None:
    text = (f"{thanks}\nBooking reference: XXX007\nTraveller: John Doe\nCheck-in counter closes "
            "45 minutes before departure\nDeparture 17 Oct 2016 07:15")
    assert values(text)["document_type"] == "order_confirmation"


@pytest.mark.parametrize("top", ["PAYMENT ADVICE\nTo: Kauri Masonry Ltd\n",
                                 "REMITTANCE ADVICE\nTo:\nKauri Masonry Ltd\n"])
def test_a_remittance_slips_addressee_is_the_seller(top: str) -> None:
    # Xero prints a slip to send back with the payment above its invoices: "To:" the payee
    text = (top + "54 Mangakino Lane\nWhangarei 0185\nTAX INVOICE\nMatariki Property Group\n"
            "Invoice Date 30 Apr 2026\nInvoice Number INV-1517\nTOTAL NZD 11,735.75")
    got = values(text)
    assert (got["issuer"], got["invoice_number"]) == ("Kauri Masonry Ltd", "INV-1517")


def test_a_non_breaking_hyphen_inside_a_number_is_a_hyphen() -> None:
    text = "Lantern Labs Pte Ltd\nReceipt number RCPT\u20116280974\u20110001\nDate paid May 8, 2026"
    assert values(text)["invoice_number"] == "RCPT-6280974-0001"


def test_an_italian_e_invoices_courtesy_copy_names_its_seller_under_its_heading() -> None:
    # the Agenzia delle Entrate's layout: "Cedente/prestatore (fornitore)" over the seller's
    # "Denominazione:", "Cessionario/committente (cliente)" over the buyer's
    text = ("Cedente/prestatore (fornitore)\nDenominazione: SIMA HOME S.R.L.S.\n"
            "Cessionario/committente (cliente)\nDenominazione: Rossi Arredi S.r.l.\n"
            "Codice fiscale: BNCGLC73R11H355N\nFATTURA N. 113\nData documento 01-07-2026")
    assert values(text)["issuer"] == "SIMA HOME S.R.L.S."


@pytest.mark.parametrize("heading", ["Facture FAC0049472 du 07/07/2026",
                                     "Facture\nFAC0049472 du 07/07/2026"])
def test_a_titles_number_and_its_date_after_du_give_the_issue_date(heading: str) -> None:
    # the due date's abbreviated label ("Date éch facture:") over its row is no issue date
    text = ("FUTUROL\n" + heading + "\nCLIENT: C000364\nMENUISERIES DES PENNES\n"
            "Référence à rappeler avec votre règlement: Date éch facture:\n"
            "FAC0049472 - C000364 31/08/2026\nNet à payer 3 981,38 €")
    assert str(values(text)["date"]) == "2026-07-07"


def test_a_cash_invoice_with_a_midnight_timestamp_is_no_till_slip() -> None:
    # "0:00:00" is a date field's empty time, not a till's stamp; "Efectivo" alone no till
    text = ("Factura\nHIJOS DE GONZALEZ Y CORREA SL\nFecha de Factura: 15/08/2026\n"
            "Número de Factura: 9960/3776\nFecha de Pago: 20/08/2026 0:00:00\n"
            "Forma de Pago Contado/Efectivo\nTotal Bruto: 207,57")
    assert values(text)["document_type"] == "invoice"


def test_a_german_number_label_alone_makes_an_invoice() -> None:
    text = ("Kaufland Marketplace GmbH\nNeckarsulm, 01.07.2026\nRechnungs Nr.: R0001-00000001\n"
            "Ihre Kunden-Nr: 1234567890\nSumme 69,87")
    assert values(text)["document_type"] == "invoice"


def test_an_exchange_rate_and_a_bill_of_exchange_are_no_change_handed_back() -> None:
    text = ("Factura Electrónica de Venta\nPROFESIONALES INTEGRADOS EN SALUD S.A.S\n"
            "Número de Factura: PIS-12409\nHORA EMISIÓN: 15:16:04\nTipo de cambio: 1,00\n"
            "ESTA FACTURA SE ASIMILA A LA LETRA DE CAMBIO (ART 774)\nTotal: $5.093.100,00")
    assert values(text)["document_type"] == "invoice"


XERO_INVOICE = """TAX INVOICE
Misty Sea Trading 305 PTY Ltd
VAT Number: 4170249066
Invoice Date
8 May 2026
Invoice Number
INV-0847
Lukky Vonakki Design
(Pty) Ltd
Suite 116
Private Bag X9951
Sandton
2146
Description Quantity Unit Price VAT Amount ZAR
Fabric: Supaletha 8.00 190.00 15% 1,520.00
TOTAL ZAR 1,748.00"""


def test_a_customer_printed_right_under_the_title_is_no_issuer() -> None:
    # Xero's layout: the customer's name under the title, the labels, then the seller's name
    # with its address
    assert values(XERO_INVOICE)["issuer"] == "Lukky Vonakki Design (Pty) Ltd"
    # a seller under the title with its own address stays the issuer
    text = ("INVOICE\nNorthwind Traders Ltd\n12 High Street\nLondon N1 7GU\n"
            "Invoice Date: 8 May 2026\nInvoice Number: INV-0847\nBill to:\nContoso Plc\n"
            "1 Main Road\nLeeds LS1 4AP\nTotal GBP 100.00")
    assert values(text)["issuer"] == "Northwind Traders Ltd"
    # so does one whose only address below is the customer's, in its block
    text = ("INVOICE\nNorthwind Traders Ltd\nInvoice Date: 8 May 2026\nInvoice Number: INV-0847\n"
            "Bill to:\nContoso Plc\n1 Main Road\nLeeds LS1 4AP\nTotal GBP 100.00")
    assert values(text)["issuer"] == "Northwind Traders Ltd"


def test_a_din_sender_line_broken_in_two_names_the_seller_not_the_window() -> None:
    text = ("reichelt elektronik GmbH\nElektronikring 1 26452 Sande\nZEYTOON GMBH\n"
            "UNGARGASSE 6/1\n1030 WIEN\nRechnung:\nKunde:\n3081253\n57312126P\nDatum:\n"
            "13.08.2026\nEndbetrag (EUR)\n266,33")
    got = values(text)
    assert (got["issuer"], got["invoice_number"]) == ("reichelt elektronik GmbH", "3081253")


def test_the_buyers_name_at_the_end_of_a_line_of_two_columns_is_cut_off() -> None:
    text = ("Faktura VAT nr 12/2026\nData wystawienia: 2026-01-08\nSprzedawca Nabywca / Płatnik\n"
            "TIP-TOP Agnieszka Pawlicka Retriever Shop Alexandra Kaługa\n"
            "Elżbiety Zawackiej 43 Wrocławska 15/7\n66-400 Gorzów Wlkp. 59-220 Legnica\n"
            "Odbiorca\nRetriever Shop Alexandra Kaługa, Alexandra Kaługa\nWrocławska 15/7\n"
            "59-220 Legnica\nRazem do zapłaty: 120,00 PLN")
    assert values(text)["issuer"] == "TIP-TOP Agnieszka Pawlicka"


def test_premium_in_an_items_name_makes_no_insurance() -> None:
    text = ("Sklep Zoologiczny\nFaktura nr FS 2026/01/000328\nData wystawienia: 2026-01-08\n"
            "Pas samochodowy dla psa Truelove Premium 1 szt. 59,00\n"
            "Karma Premium Adult 2 szt. 120,00\nRazem do zapłaty: 179,00 PLN")
    assert values(text)["document_type"] == "invoice"


def test_a_reminder_is_dated_by_its_letter_not_by_the_invoice_it_is_about() -> None:
    # the title names the reminder first and the invoice it is about after it; the sender's
    # "unserer Rechnung ... vom" is an earlier document's date
    letter = ("Karlsruhe, den 10.07.2026\n1. Mahnung zu Ihrer Rechnung nc-5287300\n"
              "Guten Tag Frau Berger,\nleider konnten wir bislang keinen Zahlungseingang zu\n"
              "unserer Rechnung nc-5287300 vom 22.06.2026 über den Betrag von 35,37 EUR "
              "feststellen.\nZwischensumme 35,37 EUR\n")
    values = extract([letter]).values
    assert values["document_type"] == "reminder"
    assert str(values["date"]) == "2026-07-10"


def test_a_credit_notes_number_follows_its_title() -> None:
    note = ("Tax Credit Note RINV/2026/08838\nCredit Note Date: 03/07/2026\nHARBOUR CAFE\n"
            "PRODUCT CODE DESCRIPTION QUANTITY UNIT PRICE GST AMOUNT\n"
            "PBLTB11-U Pizza Boxes x 50 2.000 Unit 21.91000 10% $ 43.82\nTotal $ 48.20\n")
    values = extract([note]).values
    assert values["document_type"] == "credit_note"
    assert values["invoice_number"] == "RINV/2026/08838"


def test_a_brazilian_sat_slips_extract_number_is_its_number() -> None:
    slip = ("ASSAI ATACADISTA\nSENDAS DISTRIBUIDORA S/A\nCNPJ: 06.057.223/0413-66\n"
            "Extrato N°: 037894\nCUPOM FISCAL ELETRÔNICO - SAT\n1 ARROZ 5KG 24,90\n"
            "TOTAL R$ 24,90\n18/03/2025 10:41:22\n")
    assert extract([slip]).values["invoice_number"] == "037894"


def test_a_number_after_an_address_label_numbers_a_house() -> None:
    # "Endereço: AV ... Nº 931" is an address; of two numbers as sure, the one printed under
    # two labels is the document's
    page = ("FATURA DE LOCAÇÃO\nNÚMERO:\n788\nLOCADORA\nRazão Social: ALUGA FÁCIL EQUIPAMENTOS\n"
            "Endereço: AV DORIVAL CAYMMI Nº 931 ITAPUA CEP: 41635-150\n"
            "Dados referentes ao contrato de locação Nº 702 com data de abertura em 27/05/2026\n"
            "PROTOCOLO DE ENTREGA DA FATURA DE LOCAÇÃO Nº: 788\n")
    assert extract([page]).values["invoice_number"] == "788"


def test_a_portuguese_simplified_invoices_long_series_number_is_read() -> None:
    slip = ("Pingo Doce - Distribuição Alimentar, S.A.\nNIF 500829993\n1 LEITE 0,89\n"
            "TOTAL 0,89\nCartão nº: ***************035\n"
            "Fatura Simplificada FS 04890952308181404/040546\n28/08/2025 18:02\n")
    assert extract([slip]).values["invoice_number"] == "FS 04890952308181404/040546"


@pytest.mark.parametrize("line", [
    "Autorización facturación electrónica No. 18764112289708",
    "FSSAI Licence No. 11217334001482",
    # the tax authority's act a Brazilian bill cites under its title
    "Nota Fiscal / RE - Ato Declaratório nº 2019/01",
    "Emitida conforme Resolução nº 2019/2025",
])
def test_an_authorisations_or_licences_number_is_no_invoices(line: str) -> None:
    page = f"ANDES VIAJES S.A.S.\nNIT. 900413476-1\n{line}\nFecha de Factura: 2026-08-23\nTOTAL 92.166\n"
    assert "invoice_number" not in extract([page]).values


def test_an_italian_commercial_documents_number_is_read() -> None:
    slip = ("LIBRERIA PORTICO\nAscoli Piceno\nDOCUMENTO COMMERCIALE\ndi vendita o prestazione\n"
            "LIBRO 18,00\nTOTALE COMPLESSIVO 18,00\n11/02/20 15:05 DOC.N.0929-0021\n")
    assert extract([slip]).values["invoice_number"] == "0929-0021"


@pytest.mark.parametrize("label", ["Invoice# ", "INVOICE# : "])
def test_an_invoice_sign_touching_its_word_is_the_numbers_label(label: str) -> None:
    # Zoho Books prints "Invoice# SIPL/26-27/G29"; the shop's and the house's "No" are an
    # address's, PAN and TAN a tax office's
    page = ("SPEEDOBITS INTERNET PRIVATE LIMITED\n"
            "Shop No : 204, Jasal Complex, Opp. Sterling Hospital\nPan No: AAACZ4322M\n"
            "Tan No: CHEZ03229C\nTAX INVOICE\n"
            f"{label}SIPL/26-27/G29\nBalance Due\n6,254.00\nInvoice Date : 06/04/2026\n"
            "Bill To\nH No.4-49/2, Vattinagulapally, Sy.No. 237\n")
    assert extract([page]).values["invoice_number"] == "SIPL/26-27/G29"


@pytest.mark.parametrize("line", ["Shop No : 204, Jasal Complex", "H No.4-49/2, Vattinagulapally",
                                  "Pan No: AAACZ4322M"])
def test_a_shops_a_houses_or_a_tax_offices_number_is_no_invoices(line: str) -> None:
    page = f"RAJ TRADERS\n{line}\nTAX INVOICE\nInvoice Date : 06/04/2026\nTotal 600.00\n"
    assert "invoice_number" not in extract([page]).values


def test_a_number_sign_line_under_the_title_is_the_invoices_number() -> None:
    # Zoho Invoice prints "# INV-000119" under "TAX INVOICE" and the seller's name
    page = ("TAX INVOICE\nANALOG ECLIPSE\n\n# AETI2324/0119\n\nD-803, MALABAR COUNTY - 1,\n"
            "Ahmedabad Gujarat 382481,\nBalance Due\n₹19,87,120.00\nBill To\nSILVER TOUCH LIMITED\n"
            "Invoice Date : 29-03-2024\nTerms : Due on Receipt\n# Item & Description Qty Rate\n")
    assert extract([page]).values["invoice_number"] == "AETI2324/0119"


@pytest.mark.parametrize("title", ["FACTURAC", "FACTURAA", "FACTURA B"])
def test_an_argentine_invoices_class_letter_beside_its_title_is_an_invoice(title: str) -> None:
    # AFIP's layout: the class letter in a box beside "FACTURA", a text layer glues them
    page = ("Fecha de Emisión:\nORIGINAL\nLUBENFELD DAMIAN ALEJANDRO\n"
            "Período Facturado Desde: Hasta: Fecha de Vto. para el pago:\n"
            "01/07/2026 01/07/2026 01/07/2026\nPunto de Venta: Comp. Nro:00003 00000105\n"
            f"Razón Social:\nLUBENFELD DAMIAN ALEJANDRO\n{title}\nCOD. 011\n")
    assert extract([page]).values["document_type"] == "invoice"


def test_a_number_sign_line_right_under_a_later_title_is_the_number() -> None:
    # Zoho Books' text layer writes the totals and the seller's block before the title
    page = ("1\nTotal AED1,000.00\nPayment Made (-) 1,000.00\nBalance Due AED0.00\n"
            "Invoice Date : 11 Nov 2025\nTerms : Due on Receipt\nDue Date : 11 Nov 2025\n"
            "Sales person : Mohamed Yaseen\nTransit Hub Shipping L.L.C\n"
            "Majid Al Ghurair Building,\nDubai UAE\nTRN 104303905400003\nTAX INVOICE\n"
            "# INV-1229\nBalance Due\nAED0.00\nBill To\nFalcon Atlantic Shipping L.L.C\n")
    assert extract([page]).values["invoice_number"] == "INV-1229"


def test_a_types_word_and_a_numbers_word_is_a_specific_label_however_short() -> None:
    # Turkish "Fiş No" (receipt no) above a boulevard's "NO:7"
    slip = ("MIGROS TICARET A.S.\nLULEBURGAZ KIRKLARELI MIGROS\n"
            "MERKEZ ADRESI: ATATÜRK MAH. TURGUT ÖZAL\nBULV. NO:7 ATAŞEHİR/İSTANBUL\n"
            "TARIH:24/08/2026 SAAT:18:05\nFIŞ NO :0093\nTOPLAM *900,75\nREF NO : 623646436627\n")
    assert extract([slip]).values["invoice_number"] == "0093"


def test_an_invoice_number_written_as_a_uuid_is_read_whole() -> None:
    page = ("Justworks, Inc.\nINVOICE\nInvoice Date: 06/16/2025\n"
            "Invoice Number: 7F36AEB6-E016-4EC2-8A95-526C5CFE25FF\nTotal $1,250.00\n")
    assert extract([page]).values["invoice_number"] == "7F36AEB6-E016-4EC2-8A95-526C5CFE25FF"


@pytest.mark.parametrize(("line", "number"), [
    ("nr wydr.077614/0111", "077614/0111"),  # a Polish till's printout number
    ("Rechnungs-Nr.RE-2024117", "RE-2024117"),
])
def test_a_number_run_into_its_labels_abbreviation_dot_is_read_without_it(
        line: str, number: str) -> None:
    german = line.startswith("Rechnungs")
    page = ("Muster Handel GmbH\nHauptstraße 5, 10115 Berlin\nRechnung\n" if german else
            'Sklep "ŻABKA" 25728\nPHU PATMIC\n20-701 Lublin, ul. Nałęczowska 18\nNIP 5641794456\n'
            "2019-06-18\n") + line + ("\nDatum: 05.03.2024\nGesamtbetrag 119,00 EUR\n" if german
                                      else "\nPARAGON FISKALNY\nSUMA PLN 11,44\n")
    assert extract([page]).values["invoice_number"] == number


@pytest.mark.parametrize("line", ["TOTAL IMPORTE FACTURA 112,30 €", "Factura 112 €",
                                  "Rechnung 112,30 EUR"])
def test_an_amount_after_a_number_label_is_no_number(line: str) -> None:
    text = f"IBERDROLA CLIENTES, S.A.U.\nFACTURA DE ELECTRICIDAD\n8 de junio de 2026\n{line}"
    assert "invoice_number" not in values(text)


@pytest.mark.parametrize(("text", "date"), [
    ("Factura\nAmazon EU S.à r.l.\nFecha del pedido 10 abril 2026\n"
     "Fecha de la factura/Fecha de la entrega 11 abril 2026", "2026-04-11"),
])
def test_an_order_or_delivery_dates_label_with_its_article_is_no_invoice_date(
        text: str, date: str) -> None:
    assert str(values(text)["date"]) == date


@pytest.mark.parametrize("row", ["(Número) 22/0080 ) — [ Fecha |31/07/2022 )",
                                 "(Número] 22/0081 ) — (Fecha)31/07/2022) —"])
def test_a_label_in_a_box_ocr_read_as_brackets_labels_its_number(row: str) -> None:
    """A scanned Spanish invoice's boxed cells: OCR reads the box's edges as brackets."""
    text = ("SERVINFOTEC\nIGNACIO IBAÑEZ PACHECO \\ FACTURA\n33.360.360-X ( CLIENTE )\n"
            f"BDA. NUEVO SAN ANDRES S/N\n29003 - MALAGA\n{row}\nTOTAL 36,30 Euros")
    assert values(text)["invoice_number"] in ("22/0080", "22/0081")


def test_a_nul_a_font_maps_a_dash_to_is_a_dash() -> None:
    """Stripe's invoices, read by some text layers: the dash's glyph maps to U+0000."""
    text = ("Invoice\nInvoice number 88IB6AXP\x000003\nDate of issue May 8, 2026\n"
            "Anthropic, PBC\n548 Market Street\nBill to\nDomas J\nClaude Pro\nMay 8\x00Jun 8, 2026\n"
            "Total €21.78\n")
    got = values(text)
    assert got["invoice_number"] == "88IB6AXP-0003"
    assert got["issuer"] == "Anthropic, PBC"  # a public benefit corporation's form


@pytest.mark.parametrize(("line", "form"), [
    ("United Parcel Service Deutschland S.à r.l. & Co. OHG", "S.à r.l. & Co. OHG"),
    ("Amazon EU S.à r.l.", "S.à r.l."),
    ("Stuart Energy, UAB", "UAB"),
    ("Lovable Labs Incorporated", "Incorporated"),
    ("LOVABLE LABS INCORPORATED", "INCORPORATED"),
    ("Anthropic, PBC", "PBC"),
])
def test_more_legal_forms(line: str, form: str) -> None:
    from renamerd.engine.fields.names import legal_suffix
    found = legal_suffix(line)
    assert found is not None and found.group(0).strip() == form
    text = f"Invoice\nInvoice number 4711\nInvoice date 5 January 2026\n{line}\nTotal 57.25 EUR\n"
    assert values(text)["issuer"] == line


def test_a_latvian_form_opens_the_name_on_its_line() -> None:
    text = ("SAMPLE\nSIA PARAUGS\nJur. adrese: Parauga iela 1, Riga\nKase Nr. 03\n"
            "Elektroniska izdruka\nKopā apmaksai 12,40 EUR\n")
    assert values(text)["issuer"] == "SIA PARAUGS"


def test_a_sentence_ending_in_a_recipients_label_opens_no_customers_block() -> None:
    """"... wenden Sie sich bitte" / "an:" is a sentence's end, not "An:" (To:)."""
    text = ("Wenn Sie Fragen zur Deutschen Importzollabfertigung\n"
            "oder dem Steuerbescheid haben, wenden Sie sich bitte\nan:\nimportinfo@ups.com\n"
            "United Parcel Service Deutschland S.à r.l. & Co. OHG\nRechnungsdatum\n"
            "05.Januar 2026\nRechnungsnr.:\n837858124\nARTESTA STORE  S.L.\n"
            "Fälliger Gesamtbetrag EUR 57,25\n")
    assert values(text)["issuer"] == "United Parcel Service Deutschland S.à r.l. & Co. OHG"


def test_a_domain_spelling_a_names_initials_matches_it() -> None:
    from renamerd.engine.fields.issuer_scores import _initials_of
    assert _initials_of("United Parcel Service Deutschland S.à r.l. & Co. OHG", "ups")
    assert _initials_of("International Business Machines Corp.", "ibm")
    assert not _initials_of("Acme Trading Ltd", "ups")
    assert not _initials_of("United Parcel", "ups")  # fewer words than letters
    assert not _initials_of("United Parcel Service", "up")  # two letters match too much


def test_a_dates_year_before_a_name_on_its_line_is_no_part_of_it() -> None:
    text = ("Invoice number NQLFVPGN 0006 Date of issue January 29, 2026 Lovable Labs "
            "Incorporated 1111b South Governors Avenue\nTotal €15.00\n")
    assert values(text)["issuer"] == "Lovable Labs Incorporated"


def test_the_next_columns_recipient_heading_ends_a_name() -> None:
    text = ("Invoice\nInvoice number A74E1E93 0042\nDate of issue January 1, 2026\n"
            "Dagster Labs Bill to\n548 Market St sealed\nSan Francisco, California 94104\n"
            "billing@dagsterlabs.com\nTotal $124.56\n")
    assert values(text)["issuer"] == "Dagster Labs"


def test_a_number_written_before_its_label_ending_the_line() -> None:
    """A right-aligned column read first: the value, then its label."""
    text = ("Información de facturación\nIEE2026001813920Número de factura\n"
            "28-ENE-2026Fecha de la factura\nAdobe Systems Software Ireland Ltd\n"
            "TOTAL (EUR) 33.49\n")
    assert values(text)["invoice_number"] == "IEE2026001813920"


def test_a_bill_opening_with_the_customers_block_is_named_by_its_address() -> None:
    """The customer's name and address open the page, the reader's own numbers follow
    ("Ihre Kunden-Nr."), and the sender shows only in its logo and its e-mail and web
    addresses: the sender is the one its addresses name, not the customer."""
    bill = ("Artesta Store, S.L.\nAndrea Guerrero Sulaibi\nPassatge Sant Jaume, 20\n"
            "08035 Barcelona\nSpanien\nkontakt@lizenzero.de\nwww.lizenzero.de\n"
            "Ihre Kunden-Nr.: 90698\nIhre USt-IdNr.: ESB67503250\nDatum: 03.03.2026\n"
            "Verpackungslizenz fuer Verkaufsverpackungen beim dualen\n"
            "System Interzero Recycling Alliance\nRechnung Nr. 465344\n"
            "Gesamtkosten Netto: 100,88 €\nGesamtkosten: 100,88 €\n")
    values = extract([bill]).values
    assert values["issuer"] == "Lizenzero"
    own = bill.replace("Artesta Store, S.L.", "Lizenzero GmbH")  # the sender's letterhead
    assert extract([own]).values["issuer"] == "Lizenzero GmbH"


@pytest.mark.parametrize("text, issuer, customer", [
    ("Hotel Aurora\nVáclavské náměstí 15 - 110 05 Praha 1\nFAKTURA - DAŇOVÝ DOKLAD\n"
     "Číslo faktury: INV2024-1 Odběratel:\nČíslo zákazníka: 78065 Novák Stavby s.r.o.\n"
     "Datum vystavení: 14. 10. 2024 Dlouhá 37\nCelkem k úhradě: 460,08 Kč\n"
     "Provozovatel Černý Poradenství s.r.o. : Václavské náměstí 15",
     "Hotel Aurora", "Novák Stavby"),
    ("THE HARBOUR INN\n1 Quay Street, Bristol BS1 4DJ\nINVOICE\n"
     "Invoice no: 2024/118 Bill to:\nAccount: 50277 Westbridge Logistics Ltd\n"
     "Date: 3 May 2024 14 Mill Lane\nTotal due: £412.00\nOperated by Quayside Hotels Ltd",
     "THE HARBOUR INN", "Westbridge"),
])
def test_a_customer_block_beside_the_first_column_is_not_the_seller(
        text: str, issuer: str, customer: str) -> None:
    # OCR reads a two-column header row by row: the customer's label ends the first row
    # ("... Odběratel:"), its name ends the next one, after that row's own label and value
    assert values(text)["issuer"] == issuer
    language = "cs" if "Faktura" in text.title() else "en"
    names = [c.value for c in issuer_candidates(Doc.from_pages([text]), language)]
    assert not any(customer in name for name in names), names


def test_gate_before_no_number_is_no_street() -> None:
    from renamerd.engine.fields.places import address

    assert address("Karl Johans gate 12") and address("Sandvika vei 3")
    assert not address("Golden Gate Bridge Ltd") and not address("Gate 5 Media AS")


@pytest.mark.parametrize("text, issuer", [
    ("Costa Consultoria Unipessoal LdFATURA\nRua Augusta 15\n1100-005 Lisboa\n"
     "Cliente:\nOliveira Informática Lda\nRua Augusta 37\n1100-008 Lisboa\n"
     "Fatura n.º FT2024/118\nData: 14/03/2024\nTotal: 120,00 €", "Costa Consultoria Unipessoal Ld"),
    ("Northwind Trading LtdINVOICE\n12 High Street\nLondon EC1A 1BB\nBill to:\nFabrikam Ltd\n"
     "Invoice no: 2024-118\nDate: 14 March 2024\nTotal: £120.00", "Northwind Trading Ltd"),
])
def test_a_title_ocr_glued_to_the_name_is_cut_off(text: str, issuer: str) -> None:
    assert values(text)["issuer"] == issuer


@pytest.mark.parametrize("text, issuer", [
    # a logo and the page's heading side by side in a browser's flex row come out as one line
    ("ÅNGSTRÖM MÅLERI Faktura\nFakturadatum 2025-02-28\nFakturanr 10457\n"
     "Bostadsrättsföreningen Sjöutsikten\nStrandvägen 19\n114 56 Stockholm\n"
     "Att betala 29 275,00 kr\nÅngström Måleri AB\nOrg.nr 556677-8899", "ÅNGSTRÖM MÅLERI"),
    ("Epic Dental Lab INVOICE\n12 Main Street, Springfield\nInvoice date: 14 March 2024\n"
     "Bill to:\nSmile Clinic\nTotal: $120.00", "Epic Dental Lab"),
])
def test_a_title_beside_the_name_in_other_letters_is_cut_off(text: str, issuer: str) -> None:
    assert values(text)["issuer"] == issuer


@pytest.mark.parametrize("name", ["Quick Invoice", "SIMPLE INVOICE", "Invoice"])
def test_a_title_in_the_names_own_letters_stays(name: str) -> None:
    from renamerd.engine.fields.issuer_cuts import before_title

    assert before_title(name, "en") == name


@pytest.mark.parametrize("text, issuer", [
    ("PT Cahaya Logistik Jl. Gatot Subroto No. 8 - Bandung 40262\nCV Mitra Sejahtera\n"
     "Jl. Asia Afrika No. 3\nBandung 40111\nFAKTUR\nNomor Faktur: F2024-118\n"
     "Tanggal: 05/03/2024\nTotal: Rp 1.250.000\nPT Cahaya Logistik : NPWP 012345678901000",
     "PT Cahaya Logistik"),
    ("Müller Druck GmbH Hauptstraße 5 - 80331 München\nSchmidt Bau GmbH\nLindenweg 3\n"
     "10115 Berlin\nRechnung\nRechnungsnummer: 2024-17\nRechnungsdatum: 05.03.2024\n"
     "Gesamtbetrag 120,00 €\nMüller Druck GmbH - USt-IdNr. DE123456789", "Müller Druck GmbH"),
])
def test_a_sender_line_whose_first_dot_ocr_lost_is_a_sender_line(text: str,
                                                                  issuer: str) -> None:
    # "Name · Street 8 · Town" read by OCR as "Name Street 8 - Town": the window's address
    # under it is the customer's
    assert values(text)["issuer"] == issuer


def test_a_letterheads_own_street_and_town_is_no_sender_line() -> None:
    text = ("Pension Zlatý Lev\nKarl Johans gate 9 - 0104 Oslo\nFAKTURA\n"
            "Fakturanummer: F2023-1 Kunde:\nFakturadato: 01.06.2023 Larsen Transport ASA\n"
            "Å betale: 6351,29 kr\nDrives av Olsen Transport ASA : Karl Johans gate 9")
    assert values(text)["issuer"] == "Pension Zlatý Lev"


@pytest.mark.parametrize("number_line", ["Customer ID: 159315", "Kunden-Nr.: 159315",
                                         "Číslo zákazníka: 159315", "N° client : 159315"])
def test_a_customer_block_over_its_customer_number_is_not_the_seller(number_line: str) -> None:
    # the customer's name and address open the page, its number under them; the seller is
    # named lower down, where its e-mail address spells it
    text = ("Northgate Analytics AG\nAndré Keller\nTechnoparkstrasse 1\nCH-8005 Zürich\n"
            f"Invoice Number: 2025-03-181757\n{number_line}\nDate of Invoice 21.03.2025\n"
            "Product Quantity\nLeave Management 3\nTotal Amount Due\nrosterly GmbH\n"
            "Landshuter Allee 49\n80637 München\nEmail: invoicing@rosterly.io\nEUR 12.00\n"
            "Best regards,\nYour rosterly team")
    assert str(values(text)["issuer"]).startswith("rosterly")


@pytest.mark.parametrize("text, number", [
    ("Kvitto\nVasa Café & Bageri AB\nKvittonr: 20250314-0087\nDatum 2025-03-14\n"
     "Summa 245,00 kr\nVarav moms 12% 26,25", "20250314-0087"),
    ("Quittung\nBäckerei Huber GmbH\nQuittungsnr.: Q-2025-17\nDatum: 14.03.2025\n"
     "Summe 12,40 €", "Q-2025-17"),
    ("Kassabon\nBakkerij de Vries B.V.\nBonnr: 2025-118\nDatum: 14-03-2025\nTotaal € 12,40",
     "2025-118"),
])
def test_a_nummer_label_shortened_to_nr_labels_the_number(text: str, number: str) -> None:
    assert values(text)["invoice_number"] == number


BELGIAN = ("Client / Klant :\nBrasserie Les Trois Mousquetaires SRL\nGrand-Place 14\n1000 Bruxelles\n"
           "TVA BE 0456.789.123\nVandenbroucke & Dewaele\nBV\nBrugsesteenweg 201\n8500 Kortrijk\n"
           "BTW BE 0812.345.678\nFACTURE / FACTUUR\nN° / Nr : VD-2025-00311\n"
           "Date / Datum : 27/02/2025\nÉchéance / Vervaldag : 29/03/2025\n"
           "Total TVAC / incl. BTW € 1.076,90")


def test_labels_glossed_in_a_second_language_after_a_slash() -> None:
    # a Belgian bill in French and Dutch: the customer's label and the number's, each glossed
    found = values(BELGIAN)
    assert found["issuer"] == "Vandenbroucke & Dewaele BV"
    assert found["invoice_number"] == "VD-2025-00311"


@pytest.mark.parametrize("text, issuer", [
    ("PT. TELKOM INDONESIA (PERSERO) Tbk\nJL JAPATI NO 1 BANDUNG\nFaktur Pajak\n"
     "Tanggal 01/08/2021\nTotal Rp 1.250.000", "PT. TELKOM INDONESIA (PERSERO) Tbk"),
    ("PT Sinar Jaya Tbk\nJl. Sudirman No. 1, Jakarta\nFaktur\nTanggal 01/08/2021\n"
     "Total Rp 1.250.000", "PT Sinar Jaya Tbk"),
])
def test_a_form_written_before_the_name_with_another_after_is_one_name(text: str,
                                                                     issuer: str) -> None:
    assert values(text)["issuer"] == issuer


def test_a_salutation_near_the_top_is_no_title() -> None:
    # a DIN invoice as LibreOffice writes it: logo, sender line, title, then "Sehr geehrte ..."
    text = ("Müller & Söhne\nGebäudetechnik seit 1962\nMüller & Söhne Gebäudetechnik GmbH · "
            "Hauptstraße 12 · 70173 Stuttgart\nRechnung Nr. RE-10234\nSehr geehrte Frau Schäfer,\n"
            "für die Wartung der Heizungsanlage erlauben wir uns, wie folgt zu berechnen:\n"
            "Nettobetrag 383,50 €\nRechnungsbetrag 456,37 €\nMit freundlichen Grüßen\n"
            "Rechnungsnummer: RE-10234\nDatum: 3. März 2025")
    assert values(text)["document_type"] == "invoice"
    # a letter without a bill's words stays a letter
    letter = ("Müller & Söhne GmbH\nHauptstraße 12 · 70173 Stuttgart\nSehr geehrte Frau Schäfer,\n"
              "wir ziehen am 1. April in neue Räume.\nMit freundlichen Grüßen\nDatum: 3. März 2025")
    assert values(letter)["document_type"] == "letter"


def test_austrias_sole_trader_form_names_the_footers_seller() -> None:
    text = ("Gutschrift GS-2025-014\nDatum: 12.03.2025\nKürbiskernöl 500 ml 16,90 €\n"
            "Gesamt: 20,11 €\nZahlungsart: PayPal\n"
            "Größing Naturprodukte e.U. - Dorfstraße 3, 8462 Gamlitz, Österreich")
    assert values(text)["issuer"] == "Größing Naturprodukte e.U."


@pytest.mark.parametrize("text, number", [
    ("Cerámicas Peñalver S.L.\nCalle Alfarería 9\nFactura rectificativa RINV/2025/00007\n"
     "Fecha de factura: 17/02/2025\nTotal -1.210,00 €", "RINV/2025/00007"),
    # a Turkish seller's street ("4. Cadde No:12") numbers a house, the title the bill
    ("Özdemir Tekstil A.Ş.\nOrganize Sanayi Bölgesi 4. Cadde No:12\n16140 Nilüfer / Bursa\n"
     "Fatura INV/2024/00877\nFatura Tarihi: 19.12.2024\nToplam 52.260,00 ₺", "INV/2024/00877"),
])
def test_a_credit_notes_title_and_a_turkish_street(text: str, number: str) -> None:
    assert values(text)["invoice_number"] == number


@pytest.mark.parametrize("title, kind", [
    ("Honorarnote Nr. 2026/031", "invoice"), ("NOTE D'HONORAIRES N° 2026-0311", "invoice"),
    ("FEE NOTE 2026-118", "invoice"), ("Nota de honorários n.º 17/2026", "invoice"),
    ("PROFORMAFAKTURA 2026-77", "quote"), ("Proforma Invoice PI-2026-4", "quote"),
    ("Facture proforma PF-118", "quote"),
])
def test_a_professionals_fee_note_is_an_invoice_and_a_proforma_a_quote(title: str,
                                                                      kind: str) -> None:
    text = (f"Kanzlei Dr. Brunner\nBahnhofstrasse 12, 8001 Zürich\n{title}\n"
            "Datum: 11.03.2026\nLeistungen März 2026\nTotal CHF 1'240.00")
    assert values(text)["document_type"] == kind


@pytest.mark.parametrize("text, date", [
    ("Zahnarztpraxis Dr. Pötzelsberger\nLinzer Gasse 21 · 5020 Salzburg\nHerrn\n"
     "DI Florian Größwang\nKaigasse 8/4\n5020 Salzburg\nSalzburg, am 11.03.2026\n"
     "Honorarnote Nr. 2026-0219\nDatum Leistung Betrag\n24.02.2026 Mundhygiene € 120,00\n"
     "24.02.2026 Panoramaröntgen € 65,00\n03.03.2026 Keramikfüllung € 380,00\nSumme € 565,00",
     "2026-03-11"),
    ("Cabinet Dr. Rousseau\n12, cours Lafayette – 69003 Lyon\nPraha, dne 18.03.2026\n"
     "Faktura 2026-0311\nDatum Položka Cena\n04.03.2026 Korunka 540,00 Kč\n"
     "11.03.2026 Výplň 230,00 Kč\nCelkem 770,00 Kč", "2026-03-18"),
])
def test_a_letters_date_line_with_its_joining_word(text: str, date: str) -> None:
    assert str(values(text)["date"]) == date


@pytest.mark.parametrize("text, issuer", [
    ("Zahnarztpraxis Dr. Pötzelsberger\nLinzer Gasse 21 · 5020 Salzburg · Tel. 0662 87 44 19\n"
     "Herrn\nDI Florian Größwang\nKaigasse 8/4\n5020 Salzburg\nHonorarnote Nr. 2026-0219\n"
     "Datum: 11.03.2026\nGesamt € 185,00", "Zahnarztpraxis Dr. Pötzelsberger"),
    ("LUNGADIGE PANVINIO 18 · 37121 VERONA\nTEL. +39 045 800 7711\nOSPITE: SIG. NICCOLÒ FABBRI\n"
     "FATTURA N. 154/2026 DEL 22/01/2026\nINTESTATARIO: FABBRI CONSULENZE S.R.L.S., VIA "
     "SARAGOZZA 9, 40123 BOLOGNA\n19/01/2026 PERNOTTAMENTO 135,00\nTOTALE EUR 473,00\n"
     "HOTEL BELVEDERE SULL'ADIGE · ALBERGO SCALIGERO S.R.L. · P.IVA 02874110230",
     "HOTEL BELVEDERE SULL'ADIGE | ALBERGO SCALIGERO S.R.L."),  # (the brand or its company)
])
def test_lanes_and_embankments_written_apart_are_streets(text: str, issuer: str) -> None:
    assert values(text)["issuer"] in issuer.split(" | ")


@pytest.mark.parametrize("text, number", [
    ("Reformas Muñoz S.L.\nFACTURA RECTIFICATIVA (ABONO)\nNº factura rectificativa R-2026-007\n"
     "Factura rectificada F-2025-1893 de 30/12/2025\nFecha: 15/01/2026\nTotal -242,00 €",
     "R-2026-007"),
    # a French doctor's own numbers (RPPS, ADELI) under the letterhead number no bill
    ("Docteur Hélène Rousseau-Bérard\nChirurgien-dentiste\n12, cours Lafayette – 69003 Lyon\n"
     "N° RPPS 10003618842 · N° ADELI 69 1 23456 7\nNOTE D'HONORAIRES N° 2026-0311\n"
     "04/03/2026 Couronne 540,00 €\nTotal 798,92 €", "2026-0311"),
])
def test_a_credit_notes_number_and_a_doctors_own_numbers(text: str, number: str) -> None:
    assert values(text)["invoice_number"] == number


def test_an_addressees_form_of_address_opens_an_address_block() -> None:
    # a French practitioner's fee note: date line, the patient's address, then the letterhead
    text = ("Lyon, le 18/03/2026\nM. Grégoire Lefèvre\n7, rue Mercière\n69002 Lyon\n"
            "Docteur Hélène Rousseau-Bérard\nChirurgien-dentiste\n"
            "Diplômée de la Faculté de Chirurgie Dentaire de Lyon\n12, cours Lafayette – 69003 Lyon\n"
            "Tél. 04 78 62 19 40\nNOTE D'HONORAIRES N° 2026-0311\n04/03/2026 Couronne 540,00 €\n"
            "Total 798,92 €")
    assert values(text)["issuer"] == "Docteur Hélène Rousseau-Bérard"


def test_an_irish_county_is_no_company_and_a_name_before_its_labels_is_the_name() -> None:
    # the seller's name and a column of labels on one line; "Co. Cork" in the customer's address
    text = ("Brightwater Energy Account number: 9100 2284 71 Bill number: 600183742\n"
            "Bill date: 08 Jan 2026\nBilling period: 05 Nov 2025 – 04 Jan 2026\n"
            "Siobhán Ó Súilleabháin\n22 Páirc na Coille\nBallincollig\nCo. Cork P31 X2F7\n"
            "Your electricity bill\nStanding charge 61 days @ €0.6849 €41.78\nTotal due €427.07")
    assert values(text)["issuer"] == "Brightwater Energy"


@pytest.mark.parametrize("text, form", [("Co. Cork P31 X2F7", None), ("Smith & Co. Ltd", "Ltd"),
                                        ("ACME TRADING CO.", "CO."), ("Müller & Co. KG", "KG")])
def test_co_before_a_county(text: str, form: str | None) -> None:
    from renamerd.engine.fields.names import legal_suffix

    found = legal_suffix(text)
    assert (found.group(0) if found else None) == form


def test_a_founding_year_beside_the_name_is_no_name() -> None:
    text = ("Librairie Étienne & Fils\nDepuis 1924 · 8, place du Marché-aux-Herbes · 37000 Tours\n"
            "Collège Anatole-France\n15, avenue de Grammont\n37000 Tours\nTours, le 6 mars 2026\n"
            "Facture n° F-2026-03-0061\nLes Misérables 2 11,90 € 23,80 €\nTotal TTC 33,00 €")
    assert values(text)["issuer"] == "Librairie Étienne & Fils"


def test_a_name_after_a_seller_label_keeps_its_small_words() -> None:
    text = ("Opravný daňový doklad č. 2026100015\nDodavatel:\nKuchyňské potřeby Čížek s.r.o.\n"
            "Štěpánská 621/34\n110 00 Praha 1\nIČO: 27184522 DIČ: CZ27184522\nOdběratel:\n"
            "Jiřina Řeháková\nHusova 1187\n537 01 Chrudim\nDatum vystavení: 14. 1. 2026\n"
            "Celkem -1 210,00 Kč")
    assert values(text)["issuer"] == "Kuchyňské potřeby Čížek s.r.o."


def test_a_name_wrapped_after_its_particle_and_a_list_of_services() -> None:
    text = ("Dhr. S. de Groot\nKerkstraat 71\n3311 HB Dordrecht\nAutobedrijf Van der\nMeulen\n"
            "APK · Onderhoud · Schadeherstel\nIndustrieweg 4, 3316 AL Dordrecht\n"
            "KvK 24339812 · btw NL8193.44.210.B01\nFactuur 2026-0412\nFactuurdatum: 12-03-2026\n"
            "Totaal € 486,20")
    assert values(text)["issuer"] == "Autobedrijf Van der Meulen"


def test_a_number_label_glossed_in_another_script() -> None:
    text = ("Tarang Industries Pvt. Ltd.\nGSTIN: 29AAACT1234F1Z5\nTAX INVOICE\n"
            "Invoice No. / बीजक  सं .: TIPL/25-26/0893\nInvoice Date: 14-03-2026\n"
            "Total ₹ 1,18,000.00")
    assert values(text)["invoice_number"] == "TIPL/25-26/0893"


@pytest.mark.parametrize("text, number", [
    # a GST registration number is the seller's, never the slip's; nor is a misread label
    ("IKANO HANDEL SDN BHD\nGST No.: 000115154944\nTAX INVOICE\nS1ip: 000000011000136498\n"
     "Date:27/07/17\nTotal RM 538.00", None),
    ("Wellington Parking Ltd\nGST No. 112-334-556\nReceipt: 0048-221907\nDate: 14/10/2025\n"
     "Total NZ$ 12.00", "0048-221907"),
    # a Mexican invoice's series and folio; Portugal's certified software's number is no bill's
    ("Banquetes Álvarez S.A. de C.V.\nFactura Serie A Folio 1189\nFecha: 14/10/2025\n"
     "Total $ 12,400.00", "1189"),
    ("Rent-a-Car Lisboa, Lda.\nFATURA-RECIBO\nData: 14/10/2025\nTotal 240,00 €\n"
     "Processado por programa certificado n.º 1234/AT", None),
])
def test_registration_and_certificate_numbers_are_no_bills(text: str, number: str | None) -> None:
    assert values(text).get("invoice_number") == number


def test_a_form_run_into_a_code_is_no_form() -> None:
    from renamerd.engine.fields.names import legal_suffix

    assert legal_suffix("Bestelling BV-5521") is None
    assert legal_suffix("Brouwerij Vandenbussche BV").group(0) == "BV"  # type: ignore[union-attr]


def test_a_credit_notes_own_number_and_date_not_the_invoices_it_refers_to() -> None:
    text = ("Küchenglück Versand GmbH · Postfach 10 22 44 · 20015 Hamburg\nFrau\n"
            "Dörte Schäfer-Große\nHauptstraße 12a\n04109 Leipzig\nGutschrift\n"
            "Gutschrift-Nr. GS-100482\nDatum 19.09.2025\nzu Rechnung RE-2025-338190 vom 02.09.2025\n"
            "Gutschriftsbetrag −154,85 €")
    found = values(text)
    assert found["invoice_number"] == "GS-100482"
    assert str(found["date"]) == "2025-09-19"


@pytest.mark.parametrize("text, issuer", [
    # the customer's id and the seller's name side by side on one line
    ("FACTURAR A\nLaboratorios Quirós Peña, S.A.\nAvda. de la Constitución 54\n41001 Sevilla\n"
     "CIF A41223344 Traducciones Núñez y Asociados, S.L.\nC/ Alcalá 233, 3º izq.\n"
     "28028 Madrid\nCIF B87654321\nFACTURA\nNº de factura: TNA-2025/0342\n"
     "Fecha de emisión: 12/02/2025\nTotal 1.512,50 €\n"
     "Inscrita en el Registro Mercantil de Madrid, Tomo 31.245", "Traducciones Núñez y Asociados, S.L."),
    # a Danish street in its definite form ("Strandvejen 212") is the customer's address
    ("Karen og Søren Bøgelund\nStrandvejen 212\n2920 Charlottenlund\nMøller & Søn Arkitekter\n"
     "Nørregade 19, 1. sal\n1165 København K\nCVR 34 56 78 90\nFaktura\nFakturanr. 20250311\n"
     "Fakturadato 12.08.2025\nI alt DKK 26.593,75\nArkitektfirmaet Møller & Søn ApS · "
     "Nørregade 19 · 1165 København K", "Møller & Søn Arkitekter | Arkitektfirmaet Møller & Søn ApS"),
])
def test_a_name_after_a_customers_id_and_a_street_in_its_definite_form(text: str,
                                                                       issuer: str) -> None:
    assert values(text)["issuer"] in issuer.split(" | ")  # (the brand or its company)


def test_the_company_above_an_attention_line_is_the_customers() -> None:
    text = ("Invoice\nMaplewood Bakery LLC\nAttn: Dana Kowalczyk\n418 Elm Street\n"
            "Burlington, VT 05401\nInvoice number: INV-884120\nInvoice date: April 9, 2025\n"
            "Amount due: $412.68\nLumen Web Services, Inc. · 88 Harbor Way · Portland, OR 97209")
    assert values(text)["issuer"] == "Lumen Web Services, Inc."


def test_a_row_of_labelled_dates_is_no_sender_line() -> None:
    # the dates' row parts with dots like a DIN sender line, and its years look like postcodes
    text = ("FAKTURA VAT nr FV/2026/10/0381\n"
            "Data wystawienia: 12.10.2026 · Data sprzedaży: 12.10.2026 · Miejsce: Kraków\n"
            "Sprzedawca\nCentrum Medyczne Zdrowa Rodzina Sp. z o.o.\nul. Długa 44, 31-147 Kraków\n"
            "NIP 676-245-18-90\nNabywca\nMałgorzata Wiśniewska\nul. Świętokrzyska 9/12\n"
            "30-015 Kraków\nRazem do zapłaty 250,00 zł")
    assert values(text)["issuer"] == "Centrum Medyczne Zdrowa Rodzina Sp. z o.o."



def test_a_header_row_with_a_hyphened_label_and_an_offers_date_in_its_cell() -> None:
    text = ("Tischlerei Wallner\nMeisterbetrieb · Dorfstraße 14 · 6170 Zirl\nFamilie\n"
            "Dr. Elisabeth und Martin Gruber\nSchneeburggasse 71\n6020 Innsbruck\nRechnung\n"
            "Rechnung Nr. | Rechnungsdatum | Lieferdatum | Angebot | Kunden-Nr.\n"
            "2026-047 | 11.08.2026 | 06.08.2026 | Nr. 2026-031 vom 02.07.2026 | 318\n"
            "Gesamtbetrag | € 7.548,00\nabzgl. Anzahlung vom 10.07.2026 | € -2.000,00")
    got = extract([text]).values
    assert (got["date"], got["invoice_number"]) == ("2026-08-11", "2026-047")


def test_a_uk_tax_point_gives_way_to_the_invoice_date() -> None:
    text = ("Harbourside Analytics\nHarbourside Analytics Ltd · 14 Canal Street · Manchester "
            "M1 3HE\naccounts@harbourside-analytics.co.uk · 0161 496 0732\n"
            "Harbourside Analytics Ltd, 14 Canal Street, Manchester M1 3HE\nPennine Tools Ltd\n"
            "FAO Accounts Payable\nUnit 7 Riverside Park\nLeeds\nLS10 1AB\n"
            "Invoice no. HA-2026-0412\nInvoice date 14 April 2026\nTax point 31 March 2026\n"
            "Account no. C-1047\nYour PO PT-PO-88213\nPayment due 14 May 2026\nInvoice\n"
            "Professional services for the period 1 March 2026 to 31 March 2026, as agreed in "
            "the statement of work\ndated 9 February 2026.\nTotal £13,392.00")
    assert extract([text]).values["date"] == "2026-04-14"


def test_an_italian_e_invoices_copy_with_a_series_in_its_number() -> None:
    text = ("FATTURA ELETTRONICA — Versione FPR12\n"
            "Documento di cortesia / copia analogica della fattura elettronica trasmessa al "
            "Sistema di Interscambio.\nData ricezione SdI: 12/03/2026 09:41\n"
            "Cedente/prestatore (fornitore)\nIdentificativo fiscale ai fini IVA IT03418820165\n"
            "Denominazione OFFICINE MECCANICHE BREMBANA S.R.L.\n"
            "Indirizzo Via Europa 27, 24019 Zogno (BG) IT\nCessionario/committente (cliente)\n"
            "Identificativo fiscale ai fini IVA IT02271440984\n"
            "Denominazione Valcamonica Impianti S.p.A.\n"
            "Tipologia documento Art. 73 Numero documento Data documento Codice destinatario\n"
            "TD01 fattura FPR 112/26 11/03/2026 M5UXCR1\n"
            "Dati ordine d'acquisto Id documento OA-2026-0217 del 16/02/2026\n"
            "Dati DDT DDT n. 338 del 09/03/2026\nTotale documento 4.624,40")
    got = extract([text]).values
    assert (got["date"], got["invoice_number"]) == ("2026-03-11", "FPR 112/26")
    assert got["issuer"] == "OFFICINE MECCANICHE BREMBANA S.R.L."


def test_a_brazilian_service_notes_issue_label_wrapped_over_two_lines() -> None:
    text = ("PREFEITURA DE\nCAMPINAS\nSecretaria Municipal de Finanças\n"
            "NOTA FISCAL DE SERVIÇOS ELETRÔNICA – NFS-e\nNúmero da Nota 00004827\n"
            "Data e Hora de\nEmissão\n16/07/2026 14:37:12\nCódigo de\nVerificação\nKX7Q-2M9A\n"
            "RPS nº 1388 Série A, emitido em\n15/07/2026\nCompetência 07/2026\n"
            "PRESTADOR DE SERVIÇOS\nTecnovia Soluções em Automação Ltda.\n"
            "Valor Total da Nota R$ 18.400,00")
    assert extract([text]).values["date"] == "2026-07-16"


def test_a_two_column_header_with_a_speck_after_the_customers_label() -> None:
    # a scan: "Dodavatel: Odběratel:" over the two parties, OCR read a speck as "="
    text = ("Faktura - daňový doklad č. 2019000347\nDodavatel: Odběratel: =\n"
            "Šťastný a syn s.r.o. Společenství vlastníků Žabovřeská 17\n"
            "tesařství - pokrývačství - klempířství Žabovřeská 1047/17\n"
            "Křenová 412/58 616 00 Brno\n602 00 Brno\nIČO: 29184512\n"
            "IČO: 25412345 | DIČ: CZ25412345\nDatum vystavení: 11.6.2019\n"
            "Celkem k úhradě 18 392,00 Kč")
    assert extract([text]).values["issuer"] == "Šťastný a syn s.r.o."
