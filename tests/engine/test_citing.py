"""Documents that cite others: a reminder, a credit note or a cancellation names the invoices
it is about, their numbers and dates, beside its own; and the labels and titles that tell the
two apart."""

from __future__ import annotations

from renamerd.engine.fields import extract


def values(text: str) -> dict[str, object]:
    return extract([text]).values


def test_a_reminders_own_number_under_a_compound_label_beats_the_cited_invoices() -> None:
    text = ("Nordkust Ventilation AB\nImportgatan 19, 422 46 Hisings Backa\n"
            "BETALNINGSPÅMINNELSE\nPåminnelse 2 – vi har ännu inte fått betalt för fakturan nedan\n"
            "PÅMINNELSENR\nP-70215\nDATUM\n2026-10-20\nKUNDNR\n15530\n"
            "Fakturanr: 10487\nFakturadatum: 2026-09-01\nFörfallodag: 2026-10-01\n"
            "Att betala 12 480,00 kr\nNordkust Ventilation AB · Org.nr 556701-2291")
    got = values(text)
    assert got["document_type"] == "reminder"
    assert got["invoice_number"] == "P-70215"
    assert got["date"] == "2026-10-20"  # (not the invoice's "Fakturadatum")


def test_a_type_word_before_a_short_number_label_says_whose_number_it_is() -> None:
    # "Hyvityslasku nro" is the credit note's own; "laskullamme nro" ("by our invoice") the
    # invoice it credits, however high its label scores
    text = ("Saaristo Sähkö Oy\nSatamakatu 7, 20100 Turku\nHyvitettävä lasku 25981\n"
            "Hyvityslasku nro 26044\n"
            "Päivämäärä 15.9.2026\nAsiakas: Kiinteistö Oy Aurajoki\n"
            "Hyvitämme laskullamme nro 25981 (28.8.2026) veloitetut, tekemättä jääneet työt.\n"
            "Hyvitys yhteensä -640,00 €\nY-tunnus 2876451-9")
    got = values(text)
    assert got["document_type"] == "credit_note"
    assert got["invoice_number"] == "26044"
    assert got["date"] == "2026-09-15"


def test_a_reminders_date_is_not_the_cited_invoices_in_its_table() -> None:
    text = ("Holzmann Haustechnik GmbH\nGewerbestraße 14 · 86159 Augsburg\n"
            "Holzmann Haustechnik GmbH · Gewerbestraße 14 · 86159 Augsburg\n"
            "Hausverwaltung Ebner & Roth GbR\nMaximilianstraße 31\n86150 Augsburg\n"
            "Mahnung Nr. MA-2026-0058\nDatum 18.06.2026\nKunden-Nr. 10452\n2. Mahnung\n"
            "Sehr geehrter Herr Ebner,\n"
            "Rechnung Nr. Rechnungsdatum fällig am Betrag\n"
            "RE-2026-0412 07.04.2026 07.05.2026 1.284,22 €\n"
            "Zu zahlender Betrag 1.289,22 €")
    got = values(text)
    assert got["date"] == "2026-06-18"
    assert got["invoice_number"] == "MA-2026-0058"


def test_a_cancellation_titled_with_its_number_below_a_reference_to_the_invoice() -> None:
    text = ("Alpenblick Eventtechnik GmbH\nHaller Straße 212, 6020 Innsbruck\n"
            "office@alpenblick-event.at\nalpenblick\n"
            "Alpenblick Eventtechnik GmbH, Haller Straße 212, 6020 Innsbruck\n"
            "Tourismusverband Stubai\nz. Hd. Frau Julia Pfurtscheller\nDorfstraße 3\n"
            "6167 Neustift im Stubaital\nBezug: Rechnung RE-2026-1143\nvom 27.08.2026\n"
            "Storno-Nr. ST-2026-0019\nDatum 03.09.2026\n"
            "Stornorechnung ST-2026-0019\nzur Rechnung RE-2026-1143 vom 27.08.2026\n"
            "Sehr geehrte Frau Pfurtscheller,\nwir stornieren hiermit unsere Rechnung Nr. "
            "RE-2026-1143 vollständig.\nGutschriftsbetrag -6.472,80 EUR")
    got = values(text)
    assert got["document_type"] == "credit_note"
    assert got["invoice_number"] == "ST-2026-0019"
    assert got["date"] == "2026-09-03"


def test_a_title_in_capitals_with_words_of_its_own() -> None:
    text = ("Pennington Print Ltd\nUnit 4, Brookfield Trading Estate, Stockport SK1 2QD\n"
            "Ms Harriet Cole\nCole & Barker Events Ltd\n17 Oldham Street\nManchester\nM1 1JQ\n"
            "Account No: COLE01\nOur ref: CC/HK\n9 July 2026\n"
            "SECOND REMINDER – OVERDUE ACCOUNT\nDear Ms Cole,\n"
            "Our invoice no. INV-10482 of 14 May 2026 was due for payment on 13 June 2026.\n"
            "Invoice Date Due date Amount (£)\nINV-10482 14/05/2026 13/06/2026 1,146.00\n"
            "Total overdue £1,146.00\nYours sincerely,\nClare Connolly")
    assert values(text)["document_type"] == "reminder"


def test_a_compound_number_label_written_apart() -> None:
    # "Rechnungs Nr" and "Auftrags Nr": "Rechnungsnummer" and "Auftragsnummer" written apart
    text = ("Elektrowelt24\nLinnicherstr. 64\n50933 Köln\n"
            "Elektrowelt24 - Linnicherstr. 64 - 50933 Köln\nOliver Kern\nFriedenstraße 25\n"
            "74229 Oedheim\nRechnungs Nr:\nRE890095\nRechnungs Datum 15.05.2026\nRechnung\n"
            "Auftrags Nr: AU315378\nGesamtbetrag 255,00 €")
    assert values(text)["invoice_number"] == "RE890095"


def test_a_logos_word_from_inside_the_legal_name_gives_way_to_it() -> None:
    # a debt collector's letter as OCR read it: the logo's "TPI" lost, its second word kept
    text = ("INVESTMENT\nTP: investment GmbH : Ruhrallee 185 - 45136:\nFrau\nWaltraud Leitz\n"
            "Weinbergsteige 3\n74223 Flein\nTPI Investment GmbH\nINKASSO-Abteilung\n"
            "Ruhrallee 185\n45136 Essen\n07.10.2025\nInkasso-Nr. 10008129 - Vergleichsangebot\n"
            "Sehr geehrte Frau Leitz,\n"
            "wir nehmen Bezug auf die bisherige Korrespondenz und Ihren andauernden Zahlungsverzug.\n"
            "Zur Rechtmäßigkeit der Forderung verweisen wir erneut auf den von Ihnen erteilten\n"
            "Auftrag (Anlage 1) und das aktuelle Urteil des Landgerichts Magdeburg.\n"
            "Wir bieten Ihnen an, das Verfahren durch eine einmalige Zahlung von\n200,00 €\n"
            "abzuschließen.\nBitte überweisen Sie den Betrag bis zum 17.10.2025.\n"
            "Erfolgt keine Zahlung, lebt die ursprüngliche Forderung vollständig wieder auf.\n"
            "TPI Investment GmbH • Geschäftsführer: Dr. Thomas Peters • AG Essen - HRB 37011 • "
            "www.tpi-investment.de\n"
            "Bankverbindung: Sparkasse Essen - IBAN: DE57 3605 0105 0003 5065 81 - BIC: SPESDE3EXXX")
    assert values(text)["issuer"] == "TPI Investment GmbH"


def test_a_short_label_after_a_credit_notes_title_words_on_a_sender_line() -> None:
    # a DIN sender line and the title in the column beside it, read as one line
    text = ("Drukarnia Wisła Sp. z o.o.\nul. Półłanki 64, 30-740 Kraków\n"
            "Drukarnia Wisła Sp. z o.o., ul. Półłanki 64, 30-740 Kraków Faktura korygująca nr "
            "FK/2026/04/007\nNabywca: | Data wystawienia | 2026-04-14\n"
            "Przyczyna korekty: rabat (reklamacja jakości nr RK/12/2026)\n"
            "Do faktury nr FV/2026/03/118 z dnia 2026-03-20\nRazem do zwrotu -1 230,00 zł")
    got = values(text)
    assert got["document_type"] == "credit_note"
    assert got["invoice_number"] == "FK/2026/04/007"


def test_a_letters_subject_naming_an_invoice_and_its_number_is_what_it_is_about() -> None:
    text = ("Groenveld Hoveniers B.V.\nLaagraven 8, 3439 LG Nieuwegein · KvK 61822309\n"
            "VvE Residentie Oudwijk\nt.a.v. de penningmeester\nOudwijk 44\n3581 JM Utrecht\n"
            "Uw klantnummer: 40217\nBetreft: factuur 2026-0118\nNieuwegein, 24 maart 2026\n"
            "Betalingsherinnering\nGeachte heer, mevrouw,\n"
            "Bij controle van onze administratie zagen wij dat onze factuur met nummer 2026-0118\n"
            "nog niet is voldaan. De vervaldatum van deze factuur was 26 februari 2026.\n"
            "Wij verzoeken u het bedrag over te maken onder vermelding van het factuurnummer.\n"
            "Met vriendelijke groet,")
    assert values(text)["document_type"] == "reminder"


def test_a_portuguese_guides_certified_code_beside_the_customers_order_number() -> None:
    text = ("Cortiças do Montado, Lda.\nZona Industrial, Lote 12, 7100-011 Estremoz\n"
            "NIF 508 772 410\nGUIA DE REMESSA\nOriginal · ATCUD: KX7PQ2MB-733\n"
            "V/ ENCOMENDA | N/ ENCOMENDA | GUIA N.º | DATA | CLIENTE\n"
            "4500112877 de 2026-08-03 | EC 2026/0415 | GR 2026/0733 | 2026-08-12 | 0387\n"
            "Mercadoria enviada ao abrigo da V/ encomenda n.º 4500112877.")
    got = values(text)
    assert got["document_type"] == "delivery_note"
    assert got["invoice_number"] == "GR 2026/0733"


def test_a_reminders_level_and_a_danish_bank_code_are_no_numbers() -> None:
    text = ("Søndergaard Maskinservice ApS\nIndustrivej 8, 8600 Silkeborg\nCVR 31874420\n"
            "Kundenr. 3391\nDato 28.04.2026\nRykker nr. 2\n"
            "Vi har endnu ikke modtaget betaling, selvom vi har sendt en påmindelse "
            "(rykker nr. 1) den 7. april 2026.\n"
            "Fakturanr. Fakturadato Forfaldsdato Beløb\n2026-1187 10.03.2026 24.03.2026 16 285,00\n"
            "Betaling: Reg.nr. 7670, kontonr. 1048822914 (Jyske Bank).")
    got = values(text)
    assert got["document_type"] == "reminder"
    assert got["invoice_number"] not in ("1", "2", "7670")
    assert got["date"] == "2026-04-28"


def test_an_order_confirmations_own_number_beside_the_customers_order() -> None:
    text = ("Suministros Levante, S.L.\nPol. Ind. Fuente del Jarro, 46988 Paterna\n"
            "CONFIRMACIÓN DE PEDIDO\nSu pedido nº PO-88412\nConfirmación nº CP-26-0571\n"
            "Fecha 9 de febrero de 2026\n"
            "Le agradecemos su pedido nº PO-88412 del 6 de febrero de 2026.\n"
            "Total 4.812,60 €")
    got = values(text)
    assert got["document_type"] == "order_confirmation"
    assert got["invoice_number"] == "CP-26-0571"


def test_a_title_followed_by_its_own_code_is_the_papers_number() -> None:
    text = ("Seeland Präzisionsteile AG\nBielstrasse 77 · 2502 Biel/Bienne\nRotor Systems GmbH\n"
            "Hardturmstrasse 161\n8005 Zürich\nAuftragsbestätigung AB-26-00731\n"
            "Datum 03.03.2026\nIhre Bestellung PO-77412 vom 27.02.2026\n"
            "Besten Dank für Ihre Bestellung.\nTotal CHF 11'987.50")
    got = values(text)
    assert got["document_type"] == "order_confirmation"
    assert got["invoice_number"] == "AB-26-00731"


def test_a_portuguese_credit_notes_certified_code_after_its_title() -> None:
    text = ("Tecelagem Vale do Ave\nTecelagem Vale do Ave, Lda. · Rua da Indústria 145 · "
            "4760-131 Vila Nova de Famalicão\nExmos. Senhores\nModa Atlântica, S.A.\n"
            "Avenida da Liberdade 190\n1250-147 Lisboa\nData 21-07-2026\nCliente n.º 2214\n"
            "Ref. documento FT 2026/412 de 30-06-2026\nNota de Crédito NC 2026/37\n"
            "Motivo: devolução de mercadoria com defeito.\nTotal a creditar 1.254,60 €")
    got = values(text)
    assert got["document_type"] == "credit_note"
    assert got["invoice_number"] == "NC 2026/37"


def test_a_cancellations_title_with_its_number_label_and_a_qualified_reminder_title() -> None:
    storno = ("Messebau Kranich GmbH\nHafenstraße 9 · 20457 Hamburg\nEventhaus Nord GmbH\n"
              "Elbchaussee 12\n22763 Hamburg\nDatum 21.07.2026\n"
              "Stornorechnung Nr. ST-2026-0031\n"
              "Hiermit stornieren wir unsere Rechnung Nr. RE-2026-0412 vom 10.07.2026.\n"
              "Die Rechnung wurde versehentlich gestellt; eine korrigierte Rechnung folgt.\n"
              "Bereits geleistete Zahlungen werden mit der korrigierten Rechnung verrechnet.\n"
              "Gesamtbetrag -4.284,00 EUR")
    got = values(storno)
    assert (got["document_type"], got["invoice_number"]) == ("credit_note", "ST-2026-0031")
    reminder = ("Maple Ridge Printing\nMaple Ridge Printing Inc. · 455 Dundas St W, Toronto ON "
                "M5T 1H1\nLakeshore Events Ltd.\nAttn: Accounts Payable\n2150 Lakeshore Rd W\n"
                "Mississauga ON L5J 1K1\nDate August 18, 2026\nFriendly Payment Reminder\n"
                "Dear Accounts Payable team,\nOur records show that the invoice below, issued on "
                "July 10, 2026, has not been paid.\nThe invoice was due on August 9, 2026.\n"
                "Total outstanding (CAD) $2,486.50\nHST No. 812345678 RT0001")
    got = values(reminder)
    assert (got["document_type"], got["date"]) == ("reminder", "2026-08-18")
    assert got.get("invoice_number") != "812345678"


def test_a_reminders_words_about_the_senders_earlier_reminder_date_nothing() -> None:
    text = ("Glaserei Pichler GmbH\nLandstraße 40 · 4020 Linz\nCafé Traxlmayr\n"
            "Promenade 16\n4020 Linz\nDatum Linz, 9. September 2026\n2. Mahnung\n"
            "Sehr geehrte Damen und Herren,\ntrotz unserer Zahlungserinnerung vom "
            "12. August 2026 konnten wir keinen Zahlungseingang feststellen.\n"
            "Rechnung Nr. | Rechnungsdatum | Betrag\nRE-26-0611 | 30.06.2026 | 1.980,00 €")
    assert values(text)["date"] == "2026-09-09"


def test_a_french_letters_deadline_at_the_latest_is_no_date_of_it() -> None:
    text = ("Transports Vasseur SARL\n12 rue Gay-Lussac, 76800 Saint-Étienne-du-Rouvray\n"
            "SAS Normandie Primeurs\n8 quai de Boisguilbert\n76000 Rouen\n"
            "Notre réf. : REL-2026-117\nMise en demeure de payer\nMadame, Monsieur,\n"
            "Nous vous mettons en demeure de nous régler la somme de 5 216,00 € sous huit jours,\n"
            "soit au plus tard le 2 octobre 2026.\nFait à Saint-Étienne-du-Rouvray, le 22/09/2026")
    assert values(text)["date"] == "2026-09-22"


def test_an_invoices_delivery_note_number_in_a_sentence_is_not_its_own() -> None:
    text = ("IMPRIMERIE DUCHÊNE\nImprimerie Duchêne SRL\nChaussée de Wavre 1388\n1160 Auderghem\n"
            "TVA BE 0642.338.517\nASBL Les Jardins de Flagey\nRue Gray 112\n1050 Ixelles\n"
            "FACTURE\nNuméro: 2026/0315\nDate de facture: 23/03/2026\n"
            "Affiches A2, quadri recto | 250 | 210,00 €\nTotal TVAC | 798,60 €\n"
            "Livré le 19/03/2026, bon de livraison n° 8841. Paiement à 30 jours.")
    got = values(text)
    assert (got["document_type"], got["invoice_number"]) == ("invoice", "2026/0315")


def test_a_reminders_title_with_a_subtitle_after_a_dash() -> None:
    text = ("SCI Les Tilleuls\nÀ l'attention de M. Bernard Vasseur\n5 allée des Tilleuls\n"
            "67200 Strasbourg\nGEOMETRA\nCabinet Geometra SARL\nGéomètres-experts\n"
            "12 quai Kléber\n67000 Strasbourg\nStrasbourg, le 2 octobre 2026\n"
            "Deuxième relance – facture impayée\nMonsieur,\n"
            "Malgré notre premier rappel du 10 septembre 2026, nous constatons que la facture\n"
            "ci-dessous reste impayée :\nFacture: FA-2026-0233\nTotal dû 2 200,00 €\n"
            "Veuillez agréer, Monsieur, nos salutations distinguées.")
    assert values(text)["document_type"] == "reminder"


def test_the_original_invoice_in_a_credit_notes_cells_is_cited_not_its_type() -> None:
    # an Australian "Adjustment Note": the invoice it adjusts sits in a cell of its own,
    # "Original tax invoice | INV-118734", which names no type of this paper
    text = ("Southern Cross Office Supplies | Adjustment Note\n"
            "Southern Cross Office Supplies Pty Ltd | (Credit Note)\n"
            "ABN 53 612 884 107 | CN-004219\n42 Fitzroy Street, St Kilda VIC 3182\n"
            "Customer | Date of issue | 23/07/2026\n"
            "Bayside Physiotherapy Pty Ltd | Original tax invoice | INV-118734\n"
            "7/110 Bay Street | Original invoice date | 02/07/2026\n"
            "Credit for goods returned – damaged in transit.\n"
            "Total credit incl. GST | -$686.95\n")
    got = values(text)
    assert got["document_type"] == "credit_note"
    assert got["date"] == "2026-07-23"


def test_an_original_invoice_as_a_copy_mark_is_still_the_invoices_title() -> None:
    text = ("Sri Murugan Traders\nORIGINAL TAX INVOICE | Invoice No: SMT/1182\n"
            "Date: 14/03/2026\nBill to: Ravi Kumar\nTotal: 4,200.00\n")
    assert values(text)["document_type"] == "invoice"


def test_a_swiss_offre_and_offerte_are_quotes() -> None:
    fr = ("Menuiserie Favre Sàrl\nRoute de Chancy 71\n1213 Petit-Lancy\n"
          "Fiduciaire Rochat SA\nRue du Rhône 14\n1204 Genève\n"
          "Petit-Lancy, le 21 août 2026\nOﬀre n° OF-26-158\n"
          "Concerne : agencement de la réception. Validité de l'oﬀre : 60 jours.\n"
          "Total CHF 9'420.00\n")
    got = values(fr)
    assert got["document_type"] == "quote"
    assert got["invoice_number"] == "OF-26-158"
    de = ("Malerei Brunner AG\nBahnhofstrasse 4\n8600 Dübendorf\nHerr Peter Keller\n"
          "Seestrasse 12\n8700 Küsnacht\nOfferte Nr. 2026-214\nDatum: 03.03.2026\n"
          "Total CHF 4'860.00\n")
    assert values(de)["document_type"] == "quote"


def test_an_italian_credit_notes_own_number_label() -> None:
    text = ("vendoro.it\nNota di credito\nVENDUTO DA\nVendoro Italia S.r.l.\n"
            "Viale Monte Grappa 3, 20124 Milano\nNumero nota di credito NC-IT-2026-000318\n"
            "Data nota di credito 11/02/2026\n"
            "Riferimento fattura IT-2026-004127 del 23/01/2026\nTotale rimborsato -49,90 €\n")
    got = values(text)
    assert got["invoice_number"] == "NC-IT-2026-000318"
    assert got["date"] == "2026-02-11"


def test_a_letters_subject_names_its_type() -> None:
    # a scanned reminder: its subject says what it is; the table below lists the invoices
    text = ("FERRAMENTA NICOLÒ\ndi Bruno Nicolò & C. s.n.c. — Utensileria - Ferramenta\n"
            "Corso Giulio Cesare, 186 — 10155 Torino\nSpett.le\nEdil Moncalieri s.r.l.\n"
            "Strada Genova, 211\n10024 Moncalieri (TO)\nTorino, 4 luglio 2024\n"
            "Oggetto: Sollecito di pagamento — Cod. cliente 00418\n"
            "Gentili Signori, dai nostri controlli risultano non ancora saldate le fatture:\n"
            "Fattura n. Data fattura Scadenza\n1093 15/04/2024 31/05/2024 1.240,00\n"
            "Distinti saluti.")
    assert values(text)["document_type"] == "reminder"


def test_a_credit_note_regarding_an_invoice_without_a_colon() -> None:
    # ("Avser faktura 30644": the credit note is about that invoice, its title is its type)
    text = ("Lindqvist & Söner KREDITFAKTURA\nAvser faktura 30644 (2024-11-18)\n"
            "Beloppet kvittas mot nästa faktura eller betalas ut till ert konto inom 10 dagar "
            "efter begäran.")
    assert values(text)["document_type"] == "credit_note"
