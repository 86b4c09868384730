"""The issuer scorer's named steps (fields/issuer.py), each on its own."""

from __future__ import annotations

import re

import pytest

from renamerd.engine.fields import extract
from renamerd.engine.fields.document import Doc
from renamerd.engine.fields.issuer import (
    _vocab,
    cut_registration,
    issuer_candidates,
    legal_suffix,
)
from renamerd.engine.fields.issuer_extent import after_lower_case_words
from renamerd.engine.fields.issuer_scores import vetoed, weak_suffix
from renamerd.engine.fields.names import without_branch, without_phone

REGISTRATION = re.compile(r"(?<!\w)(?:company reg\. no|reg\. no|co\.reg)(?!\w)")


def test_a_registration_label_and_what_follows_are_cut_off() -> None:
    assert cut_registration("ACME Ltd Company Reg. No 123", REGISTRATION) == "ACME Ltd"
    assert cut_registration("ACME Ltd (Co.Reg 860671-D)", REGISTRATION) == "ACME Ltd"
    assert cut_registration("Reg. No 123", REGISTRATION) is None
    assert cut_registration("ACME Ltd", REGISTRATION) == "ACME Ltd"


@pytest.mark.parametrize(("text", "name"), [
    ("Operated by Kingsley Software Inc.", "Kingsley Software Inc."),
    ("Geëxploiteerd door Meijer Energie B.V.", "Meijer Energie B.V."),
    ("Banco de Sabadell S.A.", "Banco de Sabadell S.A."),  # a particle stays in the name
    ("Smit & de Vries B.V.", "Smit & de Vries B.V."),
    ("Northwind Traders Ltd", "Northwind Traders Ltd"),
    # small words after a capitalised word and its particle are the name's
    ("I.B.E. Institut für betriebliches Entgeltmanagement GmbH",
     "I.B.E. Institut für betriebliches Entgeltmanagement GmbH"),
    ("charge considerations. Harbour Payments Europe, Limited",
     "Harbour Payments Europe, Limited"),
])
def test_a_name_before_its_legal_form_starts_after_a_lower_case_word(text: str,
                                                                     name: str) -> None:
    suffix = legal_suffix(text)
    assert suffix is not None
    start = after_lower_case_words(text, 0, suffix.start())
    assert text[start:suffix.end()] == name


@pytest.mark.parametrize("value", ["x", "Tel. +44 20 7946 0000", "info@acme.example",
                                   "www.acme.example", "1234 5678", "Invoice",
                                   "Seite 1 von 2", "Seite", "Page"])
def test_what_can_never_be_a_name_isvetoed(value: str) -> None:
    _rec, vocab, _reg = _vocab("en")
    assert vetoed(value, vocab)


def test_a_name_is_notvetoed() -> None:
    _rec, vocab, _reg = _vocab("en")
    assert not vetoed("Northwind Traders Ltd", vocab)


def test_a_two_letter_form_inside_an_address_is_weak() -> None:
    value = "12 rue de la Paix SA"
    suffix = legal_suffix(value)
    assert suffix is not None and weak_suffix(suffix, value)
    name = "Siemens AG"
    suffix = legal_suffix(name)
    assert suffix is not None and not weak_suffix(suffix, name)


def test_a_brand_on_top_is_preferred_to_its_operating_company_in_the_footer() -> None:
    lines = ["HOTEL AURORA", "Hauptstraße 3 · 10115 Berlin", "RECHNUNG",
             "Rechnungsnummer: RE-2024-00012", "Rechnungsdatum: 12.03.2024",
             *[f"Übernachtung {i} 120,00" for i in range(6)], "Gesamtbetrag: 720,00 €",
             "Betrieben von Aurora Hospitality GmbH · Hauptstraße 3 · 10115 Berlin",
             "USt-IdNr. DE123456789 · Deutsche Bank AG"]
    result = extract(["\n".join(lines)])
    assert result.values["issuer"] == "HOTEL AURORA"
    names = [c.value for c in issuer_candidates(Doc.from_pages(["\n".join(lines)]), "de")]
    assert "Aurora Hospitality GmbH" in names  # the legal entity is recognised too


def test_the_customer_in_a_bill_to_block_is_kept_apart_from_the_seller() -> None:
    text = ("Northwind Traders Ltd\n12 High Street\nLondon EC1A 1BB\nINVOICE\n"
            "Invoice number: INV-7\nInvoice date: 14 March 2024\nBill to:\nFabrikam Holdings PLC\n"
            "5 Market Road\nLeeds LS1 4AB\nTotal: £100.00")
    assert extract([text]).values["issuer"] == "Northwind Traders Ltd"


def test_a_name_wrapped_inside_brackets_is_joined_with_the_line_below() -> None:
    text = ("AIK HUAT HARDWARE ENTERPRISE (SETIA\nALAM) SDN BHD\n822737-X\nNO. 17-G, JALAN SETIA\n"
            "SEKSYEN U13, 40170 SHAH ALAM\nTOTAL 15.00\nCASH 15.00")
    assert extract([text]).values["issuer"] == (
        "AIK HUAT HARDWARE ENTERPRISE (SETIA ALAM) SDN BHD")


@pytest.mark.parametrize(("top", "name"), [
    ("Whangarei Academy of\nSwimming", "Whangarei Academy of Swimming"),
    ("Smith &\nDaughters", "Smith & Daughters"),
    ("Hermanos Pérez y\nCompañía", "Hermanos Pérez y Compañía"),
])
def test_a_name_broken_after_a_joining_word_goes_on_on_the_next_line(top: str,
                                                                     name: str) -> None:
    text = top + "\nPO Box 283\nWhangarei 0140\nInvoice INV-5859"
    assert issuer_candidates(Doc.from_pages([text]), "en")[0].value == name


def test_lines_of_the_address_block_under_the_name_are_no_letterhead() -> None:
    text = ("FUYIMINIMARKET\nBR No.:0195932-X\nNO 43-45-47G,\nTAMAN SEJATI\nIJOK, 45600 BESTARI JAYA,\n"
            "KUALA SELANGOR\n03-3279 1851.\nGST No.:001601310720\n25/01/2018 1:22:56PM\n"
            "TAX INVOICE\nTOTAL 9.00\nCASH 50.00\nCHANGE 41.00")
    assert extract([text]).values["issuer"] == "FUYIMINIMARKET"


@pytest.mark.parametrize(("lines", "issuer"), [
    (["PT Sinar Jaya", "Jl. Sudirman No. 5, Jakarta", "", "Faktur", "No. Faktur: INV-1",
      "Tanggal: 12/03/2024", "Total: Rp 1.250.000"], "PT Sinar Jaya"),
    (["CV Maju Bersama", "Jl. Merdeka 10, Bandung", "", "Faktur", "Tanggal: 12/03/2024"],
     "CV Maju Bersama"),
    (["주식회사 한빛전자", "서울특별시 강남구 테헤란로 1", "", "세금계산서", "날짜: 2024-03-12",
      "합계: 125,000원"], "주식회사한빛전자"),
])
def test_a_legal_form_written_before_the_name(lines: list[str], issuer: str) -> None:
    from engine.docmaker import make_pdf
    from renamerd.engine import rename
    from renamerd.engine.types import EngineConfig, RenameOptions

    result = rename(make_pdf(lines), "x.pdf", RenameOptions(), EngineConfig())
    assert result.extracted_info.get("issuer") == issuer


@pytest.mark.parametrize(("value", "name"), [
    ("ALBERT HEIJN FILIAAL 1427", "ALBERT HEIJN"),
    ("ALDI Store #57", "ALDI"),
    ("Jumbo Supermarkten, filiale 212", "Jumbo Supermarkten"),
    ("STORE 12", "STORE 12"),  # nothing but the branch: left as it is
    ("Unit 4 Hardware", "Unit 4 Hardware"),
])
def test_a_branch_and_its_number_after_a_shops_name_are_cut_off(value: str, name: str) -> None:
    assert without_branch(value) == name


def test_a_supermarkets_slip_is_named_after_the_chain_not_its_branch() -> None:
    slip = ("ALBERT HEIJN FILIAAL 1427\nParijsplein 19\nTelefoon 070-3935033\n"
            "1 HV MELK 1,99\n1 HONING 2,25\nTOTAAL 4,24\nPINNEN 4,24\n"
            "Datum 22/08/2025 12:55\nContactless Leesmethode CHIP\n")
    assert extract([slip]).values["issuer"] == "ALBERT HEIJN"


def test_the_seller_is_named_in_the_footer_with_its_bank_and_registration() -> None:
    # the customer's name and address open the page beside the invoice's labels; the
    # seller's name opens the footer that holds its VAT and chamber of commerce numbers and
    # its IBAN, as Dutch and German bills print them (a customer's never are)
    bill = ("Factuur\nHOUTKAMP B.V. Datum 17 augustus 2026\n"
            "Beemdstraat 23 Factuurnummer 9185432-00076\n5653 MA EINDHOVEN Debiteurnummer 33983\n"
            "Omschrijving Btw Exclusief btw Btw-bedrag Inclusief btw\n"
            "Boodschappen 9% 343,46 30,91 374,37\nTotaal 339,74 32,18 371,92\n"
            "Vragen over deze factuur? Ga naar onze website\n"
            "Groenewoud Levensmiddelen B.V.\n"
            "Provincialeweg 11 BTW NL002230884B01 IBAN NL46INGB0702493368\n"
            "1506 MA ZAANDAM KvK Zaandam 35012085 BIC INGBNL2A\n")
    assert extract([bill]).values["issuer"] == "Groenewoud Levensmiddelen B.V."


def test_a_name_under_the_title_after_a_whole_letterhead_is_the_customers() -> None:
    bill = ("Brandsma Schoonmaak\nLeo Driessenstraat 3\n6006 JV Weert\nFactuur F/2026/00164\n"
            "KLAVERTJE VIER B.V.\nFactuurdatum Vervaldatum Bron\n10-08-2026 24-08-2026 S00056\n"
            "Omschrijving Aantal Prijs Btw Bedrag\nschoonmaakpakket 1,00 894,98 21% 894,98 €\n"
            "Totaal 1.082,93 €\n")
    assert extract([bill]).values["issuer"] == "Brandsma Schoonmaak"


def test_a_country_domain_names_the_company_before_its_second_level() -> None:
    # "www.kauriprovidores.com.au": the name is "kauriprovidores", not "com"
    page = ("lic. 2024-13434\norder enquiries\nwww.kauriprovidores.com.au\nTAX INVOICE 2986250\n"
            "invoice date\n01-apr-26\nLEMON KG 1.00 KG 3.80 3.80\nINVOICE TOTAL 55.20\n"
            "please email remittance advice to accounts@kauriprovidores.com.au\n")
    assert extract([page]).values["issuer"] == "Kauriprovidores"


def test_the_account_a_bill_is_debited_from_is_the_customers() -> None:
    # "Account name" is a payee's label on a remittance slip, but under "Direct Debit" it
    # names the payer: the customer printed on top without a label is no seller either
    bill = ("Tax Invoice 5000000001\nTax Invoice Date 29 July 2026\nJANE SMITH\n"
            "14 KOWHAI STREET\nBIRKDALE\nAUCKLAND 0626\nElectricity $395.18\n"
            "Amount due $414.18\nDIRECT DEBIT\nThank you for choosing to pay by Direct Debit.\n"
            "Account name JANE SMITH\nAccount number 800000001\nHARBOUR POWER NZ LTD\n"
            "PRIVATE BAG 12023 TAURANGA 3143\n")
    assert extract([bill]).values["issuer"] == "HARBOUR POWER NZ LTD"


def test_a_logo_read_one_word_a_line_gives_way_to_the_whole_name_below() -> None:
    slip = ("HARVEST\nFOODS\nHARVEST FOODS MARKET - WESTPORT, CT 06880\n399 POST RD WEST\n"
            "BACON LS NP 4.99\nBROTH CHIC NP 4.18\nTAX .00 BAL 9.17\n")
    assert extract([slip]).values["issuer"] == "HARVEST FOODS MARKET"


@pytest.mark.parametrize(("sender", "name"), [
    ("Kranich Hosting Service * Königsberger Straße 4-6 * 32339 Espelkamp",
     "Kranich Hosting Service"),
    ("Lindner Software (Germany) GmbH - Im Bruch 3 - 63897 Miltenberg/Main",
     "Lindner Software (Germany) GmbH"),
])
def test_a_sender_line_parted_by_stars_or_dashes_names_the_sender(sender: str,
                                                                  name: str) -> None:
    # the customer's name, with its legal form, opens the address window under it and
    # stands again below (where the seller's does not)
    letter = (f"{sender}\nBaumann Bau AG\nMusterstr. 23\n12345 Musterstadt\n"
              "Rechnung Kunden Nr.: 296313\nRechnung Nr.: 6514767\n"
              "Rechnungsdatum: 27.01.2026\nGesamtbetrag 28,42 EUR\n"
              "Zugang für Baumann Bau AG: 5 Nutzer\n")
    assert extract([letter]).values["issuer"] == name


@pytest.mark.parametrize(("value", "name"), [
    ("Longos 905-209-7655", "Longos"),
    ("Bäckerei Kranz Tel. 030 1234567", "Bäckerei Kranz"),
    ("Café Lumière +33 1 42 68 53 00", "Café Lumière"),
    ("Beeswax XL 1.00 42.00", "Beeswax XL 1.00 42.00"),  # amounts are no phone number
    ("FSSAI No- 11217334001482", "FSSAI No- 11217334001482"),  # nor is a licence's number
])
def test_a_phone_number_ending_a_names_line_is_cut_off(value: str, name: str) -> None:
    assert without_phone(value) == name


LOCACAO = """FATURA DE LOCAÇÃO
Data de emissão:
05/06/2026
NÚMERO:
788
CONTRATO: 702
LOCADORA
Razão Social: ALUGA FÁCIL EQUIPAMENTOS
Endereço: AV SETE DE SETEMBRO Nº 931 CEP: 41635-150
CNPJ: 01.706.231/0002-69
LOCATÁRIO
Nome/Razão Social: JARDINS URBANOS LTDA
Endereço: R PELICANO Nº 150 CEP: 42701-340
1 - CORTADOR DE GRAMA 27/05/2026 a 28/05/2026 150,00
PROTOCOLO DE ENTREGA DA FATURA Nº: 788
Recebido por: JARDINS URBANOS LTDA
"""


def test_a_brazilian_rental_invoice_names_its_lessor_not_its_lessee() -> None:
    # "Locadora" labels the seller, "Locatário" the customer, whose name stands again at the
    # foot of the delivery receipt; "CONTRATO: 702" is a label, not the title
    values = extract([LOCACAO]).values
    assert values["issuer"] == "ALUGA FÁCIL EQUIPAMENTOS"
    assert values["document_type"] == "invoice"


def test_a_recipients_label_between_a_tables_bars_opens_its_block() -> None:
    bill = ("Fatura de Locação Número Fatura: | 90109539\nData Documento: | 10.07.2026\n"
            "Dados do Locador\nRazão Social: * Maquinas Tatu Locações\nCNPJ: 00.242.184/0001-04\n"
            "Endereço: | Estrada das Palmeira 430, Galpão 01\n| Dados do Tomador |\n"
            "Razão Social: | SINAL CONSTRUTORA LTDA\nCNPJ/CPF: 33811381000148\n"
            "Total: 102.850,00\n")
    assert extract([bill]).values["issuer"] == "Maquinas Tatu Locações"


def test_a_turkish_e_archive_invoices_seller_is_its_long_legal_name() -> None:
    # the customer after "SAYIN" first, the portal's "Özelleştirme No" and "Senaryo" fields,
    # then the seller's name broken before its form, eight words and the form
    page = ("SAYIN\nİLAYDA SARIDEDE\nKörfez mah. Yosun sok. No:6/12 İzmit/Kocaeli\n"
            "Vergi Dairesi: TEPECİK VERGİ DAİRESİ\nTCKN: 51106807222\nÖzelleştirme No: TR1.2\n"
            "Senaryo: EARSIVFATURA\nFatura Tipi: SATIS\nFatura No: GIB2023000000008\n"
            "Fatura Tarihi: 23-02-2023 13:47\n"
            "İBER ENDÜSTRİYEL İTHALAT İHRACAT VE TİCARET\nLİMİTED ŞİRKETİ\n"
            "Kapı No: 4\n/ Mersin / Türkiye\nVergi Dairesi: URAY VERGİ DAİRESİ MÜD.\n"
            "VKN: 4691226680 e-Arşiv Fatura\n")
    assert extract([page]).values["issuer"] == (
        "İBER ENDÜSTRİYEL İTHALAT İHRACAT VE TİCARET LİMİTED ŞİRKETİ")


def test_a_legal_form_broken_over_two_lines_is_read_whole() -> None:
    page = ("Fecha de Emisión:\nORIGINAL\nST SURFING RESERVATIONS SOCIEDAD\n"
            "DE RESPONSABILIDAD LIMITADA\n40 965 Piso:2 - La Plata, Buenos Aires\n"
            "Punto de Venta: Comp. Nro:00002 00000068\nFACTURA\n05/07/2026\n")
    assert extract([page]).values["issuer"] == (
        "ST SURFING RESERVATIONS SOCIEDAD DE RESPONSABILIDAD LIMITADA")


def test_a_two_letter_form_inside_a_capitalised_phrase_is_a_word_of_it() -> None:
    # Portuguese "DA" (of the) is also Norway's form "DA"; "SA au capital de" stays a form
    page = ("DOCUMENTO AUXILIAR DA NOTA FISCAL FATURA DE SERVIÇOS DE COMUNICAÇÃO ELETRÔNICA\n"
            "NOME: TELCABLES BRASIL LTDA FILIAL SAO PAULO\nENDEREÇO: Rua Irma Gabriela, Nº 51\n"
            "CEP: 04.571-130, Sao Paulo - SP\nCPF/CNPJ: 20.609.743/0004-13\n"
            "NOTA FISCAL FATURA: 114\nDATA DE EMISSÃO: 10/11/2025\n")
    assert extract([page]).values["issuer"] == "TELCABLES BRASIL LTDA"
    letter = ("Facture du 14/03/2024\nN° de facture : 10012345678\nMontant à payer 84,32 € TTC\n"
              "Électricité Nordique - SA au capital de 1 944 148 008 euros - RCS Paris 552 081 317")
    assert extract([letter]).values["issuer"] == "Électricité Nordique SA"


@pytest.mark.parametrize(("head", "name"), [
    ("Barnes & Noble Booksellers #2937", "Barnes & Noble Booksellers"),
    ("Pilot #048", "Pilot"),
])
def test_a_stores_number_after_a_sign_is_no_part_of_its_name(head: str, name: str) -> None:
    slip = (f"{head}\nI-65 Exit 86\nGlendale KY 42740\nInvoice #\n95472\nDate\n03/02/19\n"
            "Time\n14:59\nUnleaded\n$ 18.79\nTotal Sale\n$ 18.79\n")
    assert extract([slip]).values["issuer"] == name


def test_kg_after_per_is_a_unit_not_a_legal_form() -> None:
    slip = ("MENY\nSalgskvittering\nMENY GYSTADMARKA\nORG.NR. 977 571 340 MVA\n"
            "Henrik Bulls veg 100\n18.09.18 13:44\nKvitt: 23584\n15%\n22,41\n"
            "MANDLER LØSVEKT PR.KG.\n0,270kg x kr 83,00\nSum 2 varer\n34,41\n")
    assert extract([slip]).values["issuer"] in ("MENY", "MENY GYSTADMARKA")


def test_a_name_after_a_recipients_label_inside_a_line_is_the_customers() -> None:
    page = ("R. HLAVICA s.r.o. DIČ : CZ26296039\nPalackého třída 192/60 IČ : 26296039\n"
            "Daňový doklad F A K T U R A\nČíslo faktury : 2600178 Odběratel : MADREV s.r.o.\n"
            "HLÍNA 18\n664 91 IVANČICE\nDIČ : CZ46992782\nDatum vystavení : 06.08.2026\n"
            "K úhradě : 10 529,90 Kč\nEmail : kostihova@hlavica.cz, web : www.hlavica.cz\n")
    assert extract([page]).values["issuer"] == "R. HLAVICA s.r.o."


def test_a_trading_name_in_small_letters_after_t_a_is_no_sentence() -> None:
    page = ("David Campbell t/a little luxuries\n\nInvoice\n\nInvoice No:\n262\n\nDate:\n04/23/2026\n"
            "\nTotal\n€397.25\n\nBalance Due\n€0.00\n")
    assert extract([page]).values["issuer"] == "David Campbell t/a little luxuries"


def test_a_remittance_slips_to_under_its_number_and_amount_names_the_seller() -> None:
    # Xero: the customer's name first, the slip's "To:" under its number, amount and due date
    page = ("TAX INVOICE Invoice Date Scott FPS Limited\n9 Apr 2026\nBeanfreaks Ltd\n"
            "Invoice Number INV-10289\n"
            "124 Cowbridge Road East\nCardiff\nCF11 9DX\nSubtotal 43.80\nTOTAL GBP 52.56\n"
            "Customer Beanfreaks Ltd\nPAYMENT ADVICE\nInvoice Number INV-10289\n"
            "Amount Due 52.56\nDue Date 9 May 2026\nTo: Scott FPS Limited\nAmount Enclosed\n")
    assert extract([page]).values["issuer"] == "Scott FPS Limited"


@pytest.mark.parametrize(("line", "issuer"), [
    ("INVOICE Shenzhen Linkhub CO., LTD", "Shenzhen Linkhub CO., LTD"),
    ("FACTURA Panadería Sol S.L.", "Panadería Sol S.L."),
    ("RECEIPT BANK LTD", "RECEIPT BANK LTD"),  # a company's name in capitals stays whole
])
def test_a_title_in_capitals_before_a_name_on_its_line_is_no_part_of_it(
        line: str, issuer: str) -> None:
    text = (f"John Grattan Invoice JG20240711E\n{line}\n"
            "INVOICE No. JG20240711E INVOICE DATE 12-Jul-2024\nBILL TO\nJohn Grattan")
    assert extract([text]).values["issuer"] == issuer


def test_a_barcodes_text_between_stars_ends_a_name() -> None:
    """A pharmacy's bill prints its name, its number as Code 39 text, and its name again."""
    text = ("PRAKASH MEDICAL STORES *26000730013333* PRAKASH MEDICAL STORES\nCREDIT COPY\n"
            "Tax Inv.No. :26000730013333\nInvoice Date :11-06-26\nGSTIN :22AAJFP7759A1ZA")
    assert extract([text]).values["issuer"] == "PRAKASH MEDICAL STORES"


@pytest.mark.parametrize(("value", "never"), [
    ("October 22", True), ("22 Okt.", True), ("Sep 01", True),
    ("May Tower", False), ("Studio 54", False), ("March 40", False),
])
def test_a_months_name_and_a_day_is_never_a_name(value: str, never: bool) -> None:
    assert vetoed(value, re.compile(r"invoice")) is never


@pytest.mark.parametrize(("top", "issuer"), [
    ("THE HOME DEPOT More saving.", "THE HOME DEPOT"),
    ("WALMART Save money.", "WALMART"),
    ("BP Connect.", "BP Connect."),  # one word after it: the name's
    ("IKEA Hej", "IKEA Hej"),  # no sentence
    ("ACME Trading Ltd.", "ACME Trading Ltd."),  # Title Case and a form: a name
])
def test_a_slogan_beside_a_name_in_capitals_is_no_part_of_it(top: str, issuer: str) -> None:
    page = f"{top}\n2020 101st Street, Edmonton\nCASHIER FATUMA\nTOTAL $103.16\n"
    assert extract([page]).values.get("issuer") == issuer


def test_a_customer_heading_with_another_columns_label_beside_it_starts_the_customers_block(
        ) -> None:
    page = ("Invoice\nCustomer Name & Address Order Contact: Junus Pan\n"
            "Beanfreaks Limited Cowbridge <C30>\n124 Cowbridge Road East\nCanton\nCardiff\n"
            "Essential Trading Cooperative Ltd CF11 9DX\nUnit 3, Lodge Causeway, Bristol\n"
            "Invoice No: 41678\nTotal: 303.61\n")
    assert extract([page]).values["issuer"] == "Essential Trading Cooperative Ltd"
    # "Customer Service: ..." is no heading: one word and a colon
    _rec, _vocab_, _reg = _vocab("en")
    assert _rec.match("customer name & address order contact: junus pan")
    assert not _rec.match("customer service line open: 9-5")


def test_a_joining_word_never_opens_a_name() -> None:
    text = "All goods remain the property of Natures Aid Ltd until payment has been received."
    suffix = legal_suffix(text)
    assert suffix is not None
    start = after_lower_case_words(text, 0, suffix.start())
    assert text[start:suffix.end()] == "Natures Aid Ltd"
    named = "Academy of Music Ltd"  # inside a name it stays
    start = after_lower_case_words(named, 0, len(named) - 4)
    assert named[start:] == named


def test_a_seller_read_into_the_customers_block_is_known_by_its_web_address() -> None:
    """Three columns read row by row: the seller's name lands under "Invoice to:"."""
    page = ("Invoice to: Deliver to:\nNATURES AID LTD\nBeanfreaks Ltd Beanfreaks Ltd\n"
            "124 Cowbridge Road East St. George's Park\nCardiff Lancs, PR4 2DQ Cardiff\n"
            "www.naturesaid.co.uk\nSALES INVOICE\nInvoice No 1234\nTotal 52.00\n"
            "All goods remain the property of Natures Aid Ltd until payment has been received.")
    assert extract([page]).values["issuer"] == "Natures Aid Ltd"


@pytest.mark.parametrize(("top", "issuer"), [
    ("Albert Heijn 2308", "Albert Heijn"),  # the store's number over its street
    ("Triple Six Point Enterprise 666", "Triple Six Point Enterprise 666"),  # the name's
])
def test_a_store_number_after_a_shops_name_over_its_street_is_cut_off(top: str,
                                                                      issuer: str) -> None:
    page = f"{top}\nStationsplein 45\n3013AK, Rotterdam\nTOTAAL 2,27\nPINNEN 2,27\n"
    assert extract([page]).values["issuer"] == issuer


def test_a_polish_form_in_capitals_or_misread_with_zeros_is_a_form() -> None:
    assert legal_suffix("Rossmann SDP SP. z o.o.") is not None
    page = ("Rossmann SDP SP. Z 0.0. Sklep nr 689\nNIP 7270019183\nal. Pokoju 67\n"
            "31-580 Kraków\nPARAGON\nSUMA PLN 42,97\n")
    assert extract([page]).values["issuer"] == "Rossmann SDP SP. z o.o."


def test_an_id_before_a_name_and_its_form_is_no_part_of_it() -> None:
    page = ("Adres siedziby: Poznańska 48, Jankowice 62-080 Tarnowo\n"
            "Podgórne or rej: BD0 000002265 Lidl sp.z 0.0. sp.k.\"\n"
            "ul. Zygmunta Augusta 12A, 34-600 Limanowa\nNIP 7811897358\nPARAGON\n"
            "FISKALNY\nSUMA PLN 22,37\nNIEFISKALNY\n")
    assert extract([page]).values["issuer"] == "Lidl sp.z o.o. sp.k."
