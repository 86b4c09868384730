"""Letterheads as billing software, office templates and logos print them: a wordmark wrapped
over two lines or spaced apart, a name going on from the line above, a title beside the
name, a French company's form before its name; and the type a bill's own number names."""

from __future__ import annotations

import pytest

from renamerd.engine.fields import extract


def values(text: str) -> dict[str, object]:
    return extract([text]).values


@pytest.mark.parametrize("text, issuer", [
    # a shop's wordmark over two lines, its address below
    ("Pinecrest\nOutfitters\n412 Alder St, Bend, OR 97701\n(541) 555-0148\nINVOICE #\n"
     "100238471\nINVOICE DATE\nMarch 14, 2026\nBILL TO\nJordan Reyes\n88 Elm Ave\n"
     "Madison, WI 53711\nTotal $231.36", "Pinecrest Outfitters"),
    # a hotel's spaced-out kind of business over its name, its company in the footer
    ("H O T E L L\nSTRANDVIK\nSALTSJÖBADEN\nGäst:\nOskar Lindqvist\nBrännkyrkagatan 63\n"
     "118 22 Stockholm\nFakturanummer F-104882\nFakturadatum 2026-06-14\nTotalt 7 616,00\n"
     "Strandvik Hotelldrift AB · Strandvägen 2, 133 35 Saltsjöbaden · Org.nr 556812-4470",
     "HOTELL STRANDVIK"),
    # a spaced logo in any script's capitals, the company's name beside a seller's label
    ("K Ō W H A I\nJOINERY\nTAX INVOICE\nTamaki Property Trust\nAttention: Hemi Walker\n"
     "PO Box 55 218\nAuckland 1071\nInvoice Date\n12 Mar 2026\nInvoice Number\nINV-0392\n"
     "Total NZD 4,312.50\nPay to: Kōwhai Joinery Limited\nAccount 12-3140-0456789-00",
     "KŌWHAI JOINERY"),
])
def test_a_wordmark_wrapped_over_the_letterheads_first_two_lines_is_one_name(
        text: str, issuer: str) -> None:
    assert values(text)["issuer"] == issuer


def test_a_logo_read_again_is_not_a_second_word() -> None:
    text = ("REWE\n\nR E U E\n**** Bilker Allee 57 ****\n**** 40219 Düsseldorf ****\n"
            "EUR\nBANANE 1,29 B\nSUMME EUR 1,29\nBar EUR 5,00\nRückgeld EUR 3,71\n"
            "04.12.2014 10:21 Bon-Nr.:1433")
    assert values(text)["issuer"] == "REWE"


def test_a_kerned_logo_above_the_whole_name_gives_way_to_it() -> None:
    text = ("KAV YA\nKavya Print Solutions\nNo. 14, 2nd Cross, Wilson Garden\n"
            "Bengaluru Karnataka 560027\nGSTIN 29AAKFK4821M1Z3\nTAX INVOICE\n# INV-000214\n"
            "Bill To\nSahyadri Organics Pvt. Ltd.\nPlot 7, KIADB Industrial Area\n"
            "Doddaballapur 561203 Karnataka\nInvoice Date : 17/01/2026\nTotal ₹52,580.80\n"
            "For Kavya Print Solutions")
    assert values(text)["issuer"] == "Kavya Print Solutions"


def test_a_brand_above_its_own_legal_entity_keeps_the_brand() -> None:
    text = ("Banh Mi CafE\nDimiliki: banh mi cafe sdn bhd 1110644-W\nNo. 1 Jalan Puteri 7/10\n"
            "Bandar Puteri, 47100 Puchong\n(GST Reg. No : 000306700288)\nGUEST CHECK\n"
            "29/10/2017 12:41\nTotal 22.00\nCash 50.00\nChange 28.00")
    assert values(text)["issuer"] == "Banh Mi CafE"


@pytest.mark.parametrize("text, issuer", [
    # an ampersand opening the line: the name began on the spaced-out line above
    ("R E N T\n& KLART ApS\nVesterbrogade 148, 1.\n1620 København V\nCVR-nr. 38472196\n"
     "Advokatfirmaet Lund & Skov\nAtt.: Mette Skov\nGammel Kongevej 39\n1610 København V\n"
     "Fakturanr. 4127\nFakturadato 28.02.2026\nI alt 12.500,00", "RENT & KLART ApS"),
    # Italy's "di" (the owner) opening the sender's line under the shop's name
    ("Pasticceria Dolce Vita\ndi Rossi Giulia – Corso San Maurizio 47/B – 10124 Torino\n"
     "P.IVA 11478230017 – tel. 011 812 4470\nFATTURA N. 58 DEL 02/04/2026\nCLIENTE\n"
     "Circolo Culturale Vanchiglia APS\nVia Guastalla 8/C – 10124 Torino\n"
     "Totale € 614,00", "Pasticceria Dolce Vita di Rossi Giulia"),
])
def test_a_line_opening_with_a_joining_word_goes_on_from_the_name_above(text: str,
                                                                       issuer: str) -> None:
    assert values(text)["issuer"] == issuer


@pytest.mark.parametrize("text, issuer", [
    # a spreadsheet's name cell and title cell read as one line, in the same capitals
    ("PLOMBERIE MARTIN FACTURE\nPlomberie – Chauffage – Dépannage\n"
     "8 rue de la Ville-en-Bois, 44100 Nantes\nN° FACTURE DATE\nF2026-0087 18/03/2026\n"
     "FACTURÉ À\nSCI Les Tilleuls\n22 boulevard Guist'hau\n44000 Nantes\nTotal TTC 1 204,94 €\n"
     "SARL Plomberie Martin au capital de 8 000 € – RCS Nantes 523 418 907",
     "PLOMBERIE MARTIN | SARL Plomberie Martin"),
    ("Tassar & Trim Kvitto\nKvittonummer K 20416\nDatum 2026-03-02\nLinnea Holmqvist\n"
     "Östra Ringvägen 22\n753 22 Uppsala\nAtt betala SEK 1 303,00", "Tassar & Trim"),
])
def test_a_title_after_a_name_in_the_same_letters_is_cut(text: str, issuer: str) -> None:
    assert values(text)["issuer"] in issuer.split(" | ")


def test_a_french_companys_form_before_its_name_and_its_capital_after_it() -> None:
    text = ("FACTURE\nFacture n° F-2026-114\nDate : 12/05/2026\nClient :\nMme Odile Perrin\n"
            "14 rue de Brest\n35000 Rennes\nDésignation Montant\nPose de placards 450,00 €\n"
            "TVA 20 % 90,00 €\nTotal TTC 540,00 €\n"
            "SARL Menuiserie Lebrun au capital de 10 000 € – RCS Rennes 812 334 551")
    assert values(text)["issuer"] == "SARL Menuiserie Lebrun"


def test_a_portuguese_form_of_address_opens_the_customers_block() -> None:
    text = ("Fatura Joana Ferreira Design Gráfico\nRua de Cedofeita, 312\n4050-174 Porto\n"
            "NIF 234 567 899\nExmos. Senhores\nCafé Majestoso, Lda.\nAv. dos Aliados, 58\n"
            "4000-065 Porto\nPorto, 15 de janeiro de 2026\nFatura n.º FT 2026/12\n"
            "Total 1.845,00 €\nJoana Ferreira\njoana@joanaferreira.pt")
    assert values(text)["issuer"] != "Café Majestoso, Lda."


@pytest.mark.parametrize("text", [
    # a water bill without a title: its contract's number first, the invoice's below
    "Aguas del\nValdeluz\nAtención al cliente 900 414 220\nAverías 24 h 900 414 221\n"
    "www.aguasvaldeluz.es\nTitular Marina Echeverría Soto\nNº de contrato 100-2318-0045\n"
    "Nº de cliente 3300912\nNº de factura FA26/0041187\nFecha de emisión 08/04/2026\n"
    "Periodo facturado 05/01/2026 – 06/03/2026\nImporte total 48,20 €",
    # a phone bill whose only type words are its labels, a credit agreement in small print
    "kite mobile\nMs Priya Ramanathan\n42 Marlborough Road\nLeicester\nLE2 1GP\n"
    "Account number 9920 1884 02\nBill number B0044817265\nBill date 21 Jan 2026\n"
    "Your bill at a glance\nTotal £38.40\nDevice plan payments are provided under a "
    "separate credit agreement (agreement no. DCA-552019-7).",
])
def test_a_bill_named_only_by_its_own_numbers_label_is_an_invoice(text: str) -> None:
    assert values(text)["document_type"] == "invoice"


def test_a_till_slips_invoice_number_leaves_it_a_receipt() -> None:
    text = ("KEDAI MAKAN SRI MELAKA\nNo 12 Jalan Bunga\n75000 Melaka\nInvoice No: 104455\n"
            "25/03/2018 13:02\nNASI LEMAK 2 7.00\nTEH TARIK 2 3.00\nTOTAL 10.00\n"
            "CASH 20.00\nCHANGE 10.00\nTHANK YOU")
    assert values(text)["document_type"] == "receipt"


def test_a_credit_notes_reference_to_our_invoice_over_two_lines_dates_another_document() -> None:
    text = ("Ostwald Bürobedarf GmbH · Hafenstraße 21 · 28217 Bremen\n"
            "Steuerberatung Kielmann & Partner mbB\nSchwachhauser Heerstraße 66\n28211 Bremen\n"
            "Rechnungskorrektur (Gutschrift) GS-2026-0042\nGutschriftsbetrag -316,30 €\n"
            "Gutschrift-Nr. GS-2026-0042\nDatum 26.02.2026\nzu Rechnung RE-2026-0187\n"
            "vom 09.02.2026")
    assert str(values(text)["date"]) == "2026-02-26"


def test_a_date_after_due_in_a_payment_term_is_the_due_date() -> None:
    text = ("Harper & Cole Consulting\n14 Castle Street\nShrewsbury\nSY1 2BQ\n"
            "Mr James Whitfield\nMarcher Valley Foods Ltd\nShrewsbury\nSY1 3AF\n14th April 2026\n"
            "INVOICE\nInvoice number: INV-0193\nTotal due £5,964.48\n"
            "Payment terms: 30 days from date of invoice (due 14 May 2026).")
    assert str(values(text)["date"]) == "2026-04-14"


def test_a_number_shaped_like_a_date_after_its_own_numbers_word() -> None:
    text = ("Poznań, dnia 30.04.2026 r.\nBiuro Tłumaczeń Anna Nowak\nul. Półwiejska 17/5\n"
            "61-885 Poznań\nNabywca:\nWielkopolska Fundacja Rozwoju Kultury\n"
            "ul. Święty Marcin 80/82\n61-809 Poznań\nFAKTURA nr 7/04/2026\n"
            "Data sprzedaży: 24.04.2026\nRazem do zapłaty: 3 172,00 zł")
    found = values(text)
    assert found["invoice_number"] == "7/04/2026"
    assert str(found["date"]) == "2026-04-30"
    # a date on the line under a number's label is the next column's, not the number
    text = "FAKTURA nr\n24.04.2026\nRazem do zapłaty: 3 172,00 zł"
    assert values(text).get("invoice_number") != "24.04.2026"


def test_the_company_above_an_attention_line_in_any_words_is_the_customers() -> None:
    text = ("Groenhof Tuinmeubelen B.V.\nt.a.v. Sanne de Vries\nIndustrieweg 17\n3861 RB Nijkerk\n"
            "Lichtval Fotografie\nOudegracht 221\n3511 NH Utrecht\nstudio@lichtval.nl\n"
            "KvK 84719263\nFactuur\nFactuurnummer 2026-0019\nFactuurdatum 19-02-2026\n"
            "Totaal € 1.835,30")
    assert values(text)["issuer"] == "Lichtval Fotografie"


def test_an_address_under_the_title_without_contacts_is_the_customers_when_a_company_signs_the_footer(
        ) -> None:
    text = ("LASKU\nTietotoimisto Mäkelä & Härkönen Oy\nHämeenkatu 25 B\n33200 Tampere\n"
            "Laskun päivämäärä 4.3.2026\nLaskun numero 2026-1187\nEräpäivä 18.3.2026\n"
            "Kuvaus Määrä À-hinta Yhteensä\nPilvikäärme Pro -tilaus 8 19,00 € 152,00 €\n"
            "Veroton 192,00 €\nALV 25,5 % 48,96 €\nYhteensä 240,96 €\n"
            "Pilvikäärme Oy · Y-tunnus 3291847-6 · Itämerenkatu 11–13, 00180 Helsinki")
    assert values(text)["issuer"] == "Pilvikäärme Oy"
    # with the customer's block labelled elsewhere, the block under the title is the seller's
    text = text.replace("Kuvaus", "Asiakas:\nMatti Virtanen\nKatu 1\n00100 Helsinki\nKuvaus")
    assert values(text)["issuer"] == "Tietotoimisto Mäkelä & Härkönen Oy"


def test_a_series_code_and_a_number_in_groups_is_one_number() -> None:
    text = ("Lumora Vertrieb GmbH · Postfach 10 22 31 · 44022 Dortmund\nFrau\nHenrike Wall\n"
            "Am Krähenberg 17a\n58300 Wetter (Ruhr)\nKundennummer 4 711 082 936\n"
            "Rechnungsnummer RE 2026 118 40573\nDatum 12.02.2026\nIhre Jahresabrechnung Strom")
    assert values(text)["invoice_number"] == "RE 2026 118 40573"


def test_a_quote_named_with_its_number_beside_an_invoices_title_is_a_reference() -> None:
    text = ("REFORMAS HERMANOS GIL, S.L. FACTURA\nAvda. de la Cruz del Campo, 51 – 41005 Sevilla\n"
            "Cliente: Comunidad de Propietarios Edif. Giralda IV Nº Factura: A-2026-112\n"
            "CIF: H41538215 Fecha: 27/01/2026\n"
            "Dirección: C/ Luis Montoto, 118 Presupuesto: P-2025-398\n41018 Sevilla\n"
            "Base imponible 2.585,00 €\nTotal 3.127,85 €")
    assert values(text)["document_type"] == "invoice"


def test_nothing_paid_yet_is_no_receipt() -> None:
    text = ("Maple & Finch Design\n(604) 555-0127\n311 Water Street, Unit 5\n"
            "Vancouver, BC V6B 1B8\nBilled To\nOakline Provisions Inc.\n88 East 1st Avenue\n"
            "Vancouver, BC V5T 1A1\nDate of Issue\n01/28/2026\nInvoice Number\n0000183\n"
            "Subtotal $5,120.00\nTotal $5,785.60\nAmount Paid 0.00\nAmount Due (CAD) $5,785.60")
    assert values(text)["document_type"] == "invoice"
    assert values(text.replace("Amount Paid 0.00", "Amount Paid $5,785.60"))[
        "document_type"] == "receipt"


REMINDER = ("grünwerk\nGarten- und Landschaftsbau\n"
            "Grünwerk GmbH · Wiesentalstraße 41 · 79115 Freiburg im Breisgau\nHerrn\n"
            "Dr. Tobias Anselm\nSchauinslandweg 7\n79100 Freiburg im Breisgau\n"
            "Unser Zeichen kh/fb\nKundennummer 10-4471\nMahnung Nr. MA-26-0187\n"
            "Datum 17.03.2026\nAnsprechpartnerin Katrin Hausmann\nTelefon 0761 4580-23\n"
            "1. Mahnung\n"
            "Rechnung Nr. RE-2026-0412 vom 05.02.2026 – Heckenschnitt und Grünschnittentsorgung\n"
            "Sehr geehrter Herr Dr. Anselm,\nsicher ist es Ihrer Aufmerksamkeit entgangen, dass "
            "die unten aufgeführte Rechnung noch nicht beglichen wurde.\n"
            "Rechnung RE-2026-0412 05.02.2026 19.02.2026 642,60 € 0,00 € 642,60 €\n"
            "Offener Rechnungsbetrag 642,60 €")


def test_a_reminder_titled_under_its_address_window_has_its_own_number_and_date() -> None:
    found = values(REMINDER)
    assert found["document_type"] == "reminder"  # "1. Mahnung", a title alone on its line
    assert found["invoice_number"] == "MA-26-0187"  # not the invoice it chases
    assert str(found["date"]) == "2026-03-17"


def test_a_credit_note_keeps_its_own_date_and_number_beside_the_invoice_it_corrects() -> None:
    text = ("Buchhandlung Seitenwind\nInh. Jana Petersen e.K. | Seitenwind\n"
            "Holtenauer Straße 131\n24105 Kiel\nTel. 0431 88 19 27\n"
            "RECHNUNGSANSCHRIFT | Gutschrift-Nr.       GS-2026-0031\n"
            "Gemeinschaftsschule Kiel-Wik | Datum | 08.07.2026\n"
            "Sekretariat | zur Rechnung Nr.     2026-1193\nElendsredder 2 | vom | 24.06.2026\n"
            "24106 Kiel\nKunden-Nr. | 5520\nGUTSCHRIFT / RECHNUNGSKORREKTUR\n"
            "Wir schreiben Ihnen für die Artikel aus unserer Rechnung Nr. 2026-1193 vom "
            "24.06.2026 folgende Beträge gut:\nGutschriftsbetrag | 142,29 €")
    found = values(text)
    assert found["document_type"] == "credit_note"
    assert found["invoice_number"] == "GS-2026-0031"
    assert str(found["date"]) == "2026-07-08"


def test_a_reminder_letters_own_date_is_its_dateline_not_the_chased_invoices() -> None:
    text = ("Plomberie Gaudin & Fils\nMonsieur et Madame Lebrun\n8 allée des Tilleuls\n"
            "44300 Nantes\nClient n° 4410-226\nNantes, le 9 septembre 2025\n"
            "Objet : Relance – facture n° 2025-0716 du 18 juillet 2025\nMadame, Monsieur,\n"
            "Sauf erreur de notre part, la facture référencée ci-dessous reste impayée.\n"
            "Facture Date Échéance Montant TTC Reste dû\n"
            "2025-0716 18/07/2025 17/08/2025 1 386,00 € 1 386,00 €")
    found = values(text)
    assert found["document_type"] == "reminder"
    assert str(found["date"]) == "2025-09-09"


def test_an_italian_reminders_title_alone_under_the_letterhead() -> None:
    text = ("Tipografia\nFerraresi\ndal 1962\nTipografia Ferraresi S.r.l.\nVia del Pratello, 88\n"
            "40122 Bologna (BO)\nP.IVA IT03817264959\namministrazione@tipografiaferraresi.it\n"
            "SOLLECITO DI PAGAMENTO\nSPETT.LE\nEnoteca Il Tralcio\nVia Emilia Levante, 212\n"
            "40139 Bologna (BO)\nRif. SOL/2026/118\nData 3 giugno 2026\n"
            "Documento Data Scadenza Importo Residuo\n"
            "Fattura n. 377/2026 15/04/2026 15/05/2026 € 488,00 € 188,00\n"
            "Totale da saldare € 188,00")
    assert values(text)["document_type"] == "reminder"


@pytest.mark.parametrize("text, issuer", [
    # Portugal's "do", "da" inside a name before its form
    ("Marcenaria do Douro, Lda.\nRua de Santa Catarina 812\n4000-446 Porto\nNIF 509 381 225\n"
     "ORÇAMENTO\nOrçamento n.º ORC 2026/057\nData: 12/05/2026\nTotal 3.450,00 €",
     "Marcenaria do Douro, Lda."),
    # a Spanish "alameda" is a street, the clinic's name above it
    ("Clínica Veterinaria ALAMEDA\nAlameda de Hércules 32\n41002 Sevilla\nCIF B90412871\n"
     "FACTURA\nNº factura: 2026-A-0158\nFecha: 03/03/2026\nTotal 86,50 €",
     "Clínica Veterinaria ALAMEDA"),
    # a German shop's owner under its name ("Inh."): the shop's whole designation
    ("Buchhandlung Seitenwind\nInh. Jana Petersen e.K.\nHoltenauer Straße 131\n24105 Kiel\n"
     "Rechnung\nRechnungs-Nr. 2026-1201\nDatum 08.07.2026\nGesamtbetrag 142,29 €",
     "Buchhandlung Seitenwind Inh. Jana Petersen e.K."),
])
def test_particles_streets_and_owners_around_a_name(text: str, issuer: str) -> None:
    assert values(text)["issuer"] == issuer


def test_a_trade_registrys_folio_is_no_number_and_a_quotes_estimate_number_is() -> None:
    text = ("Ofimática Turia, S.L.\nCIF: B86413275\nFactura\nTotal 544,98 €\n"
            "Ofimática Turia, S.L. – Inscrita en el Registro Mercantil de Valencia, Tomo 10.482, "
            "Folio 77, Hoja V-183204")
    assert values(text).get("invoice_number") != "77"
    text = ("Blue Heron Landscaping LLC\n2230 SE Division St\nPortland, OR 97202\nESTIMATE\n"
            "Prepared for\nDana Whitfield\n6121 NE Alameda St\nPortland, OR 97213\n"
            "Estimate #\nEST-2031\nDate\nApril 3, 2026\nTotal $8,240.00")
    assert values(text)["invoice_number"] == "EST-2031"


def test_a_dutch_order_confirmations_number_under_its_title_cell() -> None:
    text = ("Noordelijke Fietsfabriek B.V.\nIndustrieweg 4\n9461 TA Gieten\n"
            "Orderbevestiging | Datum | Uw bestelling | Onze offerte | Levering\n"
            "OB-26-0931 | 15-09-2026 | PO 5512 d.d. 14-09-2026 | OF-26-0877 d.d. 02-09-2026 | "
            "week 40\nHartelijk dank voor uw bestelling.\nTotaal € 7.580,00")
    found = values(text)
    assert found["document_type"] == "order_confirmation"
    assert found["invoice_number"] == "OB-26-0931"


def test_a_wordmarks_second_line_as_the_best_name_joins_the_first() -> None:
    text = ("Clínica Veterinaria\nALAMEDA\nAlameda de Hércules, 77\n41002 Sevilla\n"
            "Tel. 954 90 31 27\nFACTURA\nD. Álvaro Núñez Becerra\nC/ Feria 14\n41003 Sevilla\n"
            "Nº factura: 2026-A-0158\nFecha: 03/03/2026\nTotal 86,50 €\n"
            "Veterinaria Alameda Sevilla, S.L.P. · CIF B90412871 · Alameda de Hércules, 77")
    assert values(text)["issuer"] == "Clínica Veterinaria ALAMEDA"


def test_a_legal_name_printed_in_the_letterhead_beats_a_logos_word_beside_it() -> None:
    text = ("Kielitalo Sana Oy | KIELITALO\nHämeenkatu 14 B\n33100 Tampere | SANA\n"
            "puh. 040 718 2264\nASIAKAS\nPirkan Konepaja Oy | LASKU\nPL 118 | Laskun numero 2026-118\n"
            "33101 Tampere | Päivämäärä 12.3.2026\nYhteensä 1 240,00 €\n"
            "Kielitalo Sana Oy | Y-tunnus 2917442-6 | IBAN FI21 5731 2820 0417 66")
    assert values(text)["issuer"] == "Kielitalo Sana Oy"


def test_a_date_broken_after_its_joining_word_at_a_lines_end() -> None:
    text = ("Fattura n. 12/2026 del 2\nmarzo 2026\nS T U D I O\nB E N V E N U T I\n"
            "Arch. Lucia Benvenuti\nBorgo Pinti 30, 50121 Firenze\nP.IVA 03928170467\n"
            "SPETT.LE\nCondominio Via dei Serragli\nVia dei Serragli 112\n50124 Firenze\n"
            "Totale € 2.196,00")
    assert str(values(text)["date"]) == "2026-03-02"
    # an amount ending a line is no day of the month opening the next
    assert values("Invoice 2026-114\nQty 2\nMarch 2026 usage\nTotal $10.00").get(
        "date") != "2026-03-02"


def test_a_reminders_title_in_a_column_beside_a_brand_in_small_letters() -> None:
    text = ("fibrelande | Relance – facture impayée\nINTERNET · TÉLÉPHONE\n"
            "Référence     RL-2026-00871\nFibrelande SAS | Rennes, le    05/09/2026\n"
            "M. Yannick Le Goff\n8, allée des Hortensias\n29200 Brest\nMonsieur,\n"
            "Sauf erreur de notre part, la facture ci-dessous reste impayée à ce jour.\n"
            "Facture | Échéance | Montant dû\nFacture F26-0718-44102 du 18/07/2026 | 34,99 €\n"
            "Si votre règlement a été effectué, merci de ne pas tenir compte de ce courrier.")
    found = values(text)
    assert found["document_type"] == "reminder"
    assert str(found["date"]) == "2026-09-05"


def test_a_spanish_graduates_title_is_no_portuguese_form() -> None:
    text = ("FARMACIA\nOLIVEROS\nLda. Carmen Oliveros Peña\nAv. de Andalucía 52, 29007 Málaga\n"
            "NIF 47382915V · Tel. 952 318 604\nFACTURA SIMPLIFICADA\nNº: T-0087-221345\n"
            "Fecha: 7 de abril de 2026\nTotal 23,40 €")
    assert values(text)["issuer"] == "FARMACIA OLIVEROS"
    assert values("Café Majestoso, Lda.\nAv. dos Aliados 58\n4000-065 Porto\nFatura FT 2026/12\n"
                  "Total 12,00 €")["issuer"] == "Café Majestoso, Lda."


def test_a_portuguese_certified_code_in_a_row_of_values_is_the_number() -> None:
    text = ("Armazéns Lusomar, Lda.\nCais da Ribeira, 27\n4050-510 Porto\nNIF 507 844 130\n"
            "Fatura Data Vencimento N.º Cliente Encomenda ATCUD\n"
            "FT 2026/118 2026-02-09 2026-03-11 C0871 EN 2026/0340 JJ7K4M2P-118\n"
            "Artigo Descrição Qtd. Preço IVA Total\nTotal 1.230,00 €")
    assert values(text)["invoice_number"] == "FT 2026/118"
