"""Papers whose sender's name is drawn into a logo (no text at the top) and platforms' papers:
the sender is then named only lower down (a footer's legal line, the payment details, a
seller's box), sometimes only on the last page, and the words around those names must not
be taken for them."""

from __future__ import annotations

from engine.docmaker import make_pdf_pages
from renamerd.engine import rename
from renamerd.engine.fields import extract
from renamerd.engine.types import RenameOptions


def values(text: str) -> dict[str, object]:
    return extract([text]).values


def test_a_multi_page_invoice_names_its_sender_only_on_the_last_page() -> None:
    # the letterhead is an image: page 1 shows the sender's address and the customer, the
    # name is in the last page's payment box and footer
    first = ["Unit 7, Avonmouth Trade Park", "Kings Weston Lane", "Bristol BS11 9FG",
             "0117 982 4410", "INVOICE", "INVOICE TO", "Harbourside Events Ltd",
             "4th Floor, Canon's House", "Canons Way", "Bristol BS1 5LL",
             "Invoice no. 10917", "Invoice date 07/11/2023", "Due date 07/12/2023",
             "Code Description Qty Unit price Net", "SB-A1 Foamex board A1 12 ea 24.00 288.00",
             "Page 1 of 2"]
    last = ["Invoice 10917 - 07/11/2023 - Page 2 of 2",
            "RU-850 Roller banner 850 x 2000mm 10 ea 79.00 790.00",
            "Total due GBP 1,293.60",
            "How to pay: bank transfer to Thornbury Signs & Print Ltd,",
            "sort code 30-96-26, account 11874403, quoting invoice 10917.",
            "Thornbury Signs & Print Ltd · Registered in England and Wales No. 06718234 ·"
            " VAT GB 944 2177 18"]
    result = rename(make_pdf_pages([first, last]), "scan.pdf", RenameOptions())
    assert result.extracted_info["issuer"] == "Thornbury Signs & Print Ltd"
    assert result.extracted_info["invoice_number"] == "10917"
    assert result.extracted_info["date"] == "2023-11-07"


def test_the_account_holder_after_the_account_number_is_the_sender() -> None:
    text = ("Retouradres: Postbus 214, 3990 GA Houten\nKinderopvang De Boomhut B.V.\n"
            "t.a.v. mevr. S. Verhoeven\nOude Dijk 7\n3991 CE Houten\nFactuur\n"
            "Factuurnummer | Factuurdatum | Vervaldatum | Klantnummer\n"
            "2020-0087 | 12-05-2020 | 26-05-2020 | K-0412\n"
            "Totaal | € 11.458,88\n"
            "Wij verzoeken u het totaalbedrag vóór 26-05-2020 over te maken op rekeningnummer NL24\n"
            "RABO 0318 7742 15 t.n.v. Van Dijk Tuinontwerp B.V., onder vermelding van "
            "factuurnummer 2020-0087.\n"
            "Zuidereinde 22 | T 030 - 634 27 18 | KvK 71234567 | IBAN NL24 RABO 0318 7742 15")
    assert values(text)["issuer"] == "Van Dijk Tuinontwerp B.V."


def test_a_payees_name_wrapped_out_of_its_box_is_joined() -> None:
    # "Saaja: Vakuutusyhtiö" / "Pohjantähti": the insurer's name broken by a narrow box
    page1 = ["Matti ja Päivi Äijälä", "Kärkitie 9 A 3", "90570 Oulu", "Päiväys 3.4.2025",
             "VAKUUTUSMAKSU", "Vakuutusnumero: KO-4471-2209-3", "Vakuutus: Kotivakuutus Laaja"]
    page2 = ["Maksettava yhteensä 315,01",
             "Eräpäivä 30.4.2025 · Viitenumero 47712 20930 · Saaja: Vakuutusyhtiö",
             "Pohjantähti · IBAN FI21 1234 5600 0007 85"]
    got = extract(["\n".join(page1), "\n".join(page2)]).values
    assert got["issuer"] == "Vakuutusyhtiö Pohjantähti"


def test_a_sentence_ending_before_the_name_in_a_footer_is_not_the_name() -> None:
    # (the sentence began on the line above: "... Vendoro ist nicht" / "Verkäufer der Ware.")
    text = ("vendoro.de\nMarktplatz\nRechnung\nZahlung erhalten · Bestellung über vendoro.de · "
            "Verkauf und Versand durch einen Drittanbieter\nVERKAUF DURCH\n"
            "Verkäufer der Ware. Kaufmann Haushaltswaren e.K. · Amtsgericht Gütersloh HRA 6120 · "
            "Bankverbindung: Sparkasse Gütersloh-Rietberg, IBAN DE41 4785 0065")
    assert values(text)["issuer"] == "Kaufmann Haushaltswaren e.K."


def test_a_legal_form_with_a_dot_is_no_sentence_end() -> None:
    text = ("Procházka Tiskárna spol. s r.o.\nNa Příkopě 12, 110 00 Praha 1\n"
            "Faktura č. A2023-04636\nDatum vystavení: 10.02.2023\n"
            "Odběratel: Novák a syn\nCelkem 7 601,32 Kč\n"
            "Procházka Tiskárna spol. s r.o. · DIČ 840164943 · Česká spořitelna, a.s.")
    assert values(text)["issuer"] == "Procházka Tiskárna spol. s r.o."


def test_a_footers_name_begun_after_a_sentence_on_the_line_above() -> None:
    text = ("sielmobile\nLe mobile sans engagement\nM. Bastien Lefèvre-Nadaud\n"
            "7 allée des Peupliers\n44300 Nantes\nFacture n°\n2019-11-0048817\n"
            "Date de facture\n5 novembre 2019\nMontant TTC à payer 17,98 €\n"
            "Votre prochaine facture sera émise le 5 décembre 2019. Vous pouvez consulter vos "
            "appels.\n"
            "Siel Mobile est une marque de Siel Telecom SAS, opérateur de réseau mobile "
            "virtuel utilisant le réseau d'un opérateur partenaire. Siel\n"
            "Telecom SAS au capital de 2 400 000 € – 14 boulevard Vincent Gâche, 44200 Nantes"
            " – RCS Nantes 803 551 208")
    got = values(text)
    assert got["issuer"] == "Siel Telecom SAS"  # (not "Telecom SAS", nor "de Siel ...")
    assert got["date"] == "2019-11-05"  # (the next invoice's date is to come)


def test_a_registry_courts_name_wrapped_from_the_line_above_names_no_one() -> None:
    text = ("KURIERIX | Data wystawienia:   15.03.2022\n"
            "przesyłki kurierskie · paczkomaty · nadania online | Data sprzedaży:    14.03.2022\n"
            "Razem: | 39,39       23 | 9,06 | 48,45\n"
            "Termin płatności: 14.03.2022 | Zapłacono: 48,45 PLN\n"
            "Zamówienie nr: ZN-22-0314-55821 z dnia 14.03.2022\n"
            "Faktura wystawiona bez podpisu odbiorcy | Wystawił: system e-nadania Kurierix\n"
            "Rejonowy dla Krakowa-Śródmieścia w Krakowie, XI Wydział Gospodarczy KRS; kapitał "
            "zakładowy 2 500 000 zł; REGON 361884027. Infolinia 12 352 00 40. Strona")
    assert values(text)["issuer"] in ("KURIERIX", "Kurierix Sp. z o.o.")


def test_a_web_address_with_a_path_is_no_name() -> None:
    text = ("Pomoc: boltra.eu/pl/support\nRachunek za przejazd\n"
            "Dziękujemy za przejazd z Boltra, Marta!\nOpłata za przejazd | 46,80 zł\n"
            "Płatność została pobrana 21.08.2025 o godz. 08:32.\n"
            "Boltra Operations OÜ · Vana-Lõuna 15, 10134 Tallinn, Estonia · Nr rejestrowy "
            "14532901 · NIP (PL) 5263218874 · VAT EE102090374")
    assert values(text)["issuer"] == "Boltra Operations OÜ"


def test_a_rides_thanks_are_no_credit_note() -> None:
    # "d'avoir" is the verb; a credit note is "Avoir n° 12"
    text = ("Rydo 8 octobre 2022\nMerci d'avoir choisi Rydo, Camille\n"
            "Nous espérons que vous avez apprécié votre course.\nTotal 27,40 €\n"
            "Prix de la course 22,15 €\nPaiements\nCarte Visa •••• 8810\n09/10/2022 00:07\n"
            "Rydo B.V. · Mr. Treublaan 7 · 1097 DP Amsterdam · KvK 56317441")
    assert values(text)["document_type"] == "receipt"


def test_a_date_label_among_address_headings_pairs_with_its_cell() -> None:
    text = ("vendoro.co.uk\nVAT Invoice\nSold by Brightwell Gadgets Ltd · VAT Reg. No. GB 318 4471 06"
            "\nInvoice date / Tax point | Billing address | Delivery address\n"
            "09 March 2021 | Mr Owen Prichard | Mr Owen Prichard\n"
            "Invoice number | Cardiff | Cardiff\nBWG-21-03117 | CF14 6HF | CF14 6HF\n"
            "Order number | Order date | Dispatch date\n"
            "204-5519837-7720318 | 07 March 2021 | 08 March 2021\nTotal payable £41.97")
    got = values(text)
    assert got["date"] == "2021-03-09"
    assert got["invoice_number"] == "BWG-21-03117"
