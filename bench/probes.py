# ruff: noqa: E501  (the probes' texts keep their lines as the documents print them)
"""Probes: page texts written after the layouts of common real documents (a Stripe receipt,
a Telekom bill, a Polish Faktura VAT, a Malaysian till slip...), each with the fields a person
reads off it, run through the field extraction. They stand for documents nobody here has; a
rule that fixes one must be a rule about documents of its kind. docs/engine-accuracy.md keeps
the figures.

    .venv/bin/python bench/probes.py [--show-errors]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from renamerd.engine import extract_text_fields  # noqa: E402
from renamerd.engine.evaluation import truth_matches  # noqa: E402

#: (set, name, text, date, issuer, invoice number or None, document type)
PROBES: list[tuple[str, str, str, str, str, str | None, str]] = []
#: the set the probes below it belong to
_set = ""


def probe(name: str, text: str, date: str, issuer: str, number: str | None = None,
          dtype: str = "invoice") -> None:
    PROBES.append((_set, name, text, date, issuer, number, dtype))


_set = "invoices"
probe("it fattura elettronica", """FATTURA ELETTRONICA
Cedente/prestatore (fornitore)
Identificativo fiscale ai fini IVA: IT01234567890
Denominazione: Ferramenta Rossi S.r.l.
Indirizzo: Via Garibaldi 12
Comune: Bologna Provincia: BO Cap: 40121
Cessionario/committente (cliente)
Codice fiscale: BNCMRA80A01F205X
Denominazione: Bianchi Mario
Indirizzo: Via Roma 5
Tipologia documento | Art. 73 | Numero documento | Data documento | Codice destinatario
TD01 fattura | | 2024/0157 | 12-04-2024 | 0000000
Descrizione | Quantità | Prezzo unitario | UM | Sconto | %IVA | Prezzo totale
Trapano avvitatore | 1,00 | 89,00 | | | 22,00 | 89,00
Totale documento 108,58
""", "2024-04-12", "Ferramenta Rossi S.r.l.", "2024/0157")

probe("pl faktura vat", """Faktura VAT nr FV/2024/03/118
Data wystawienia: 2024-03-15
Data sprzedaży: 2024-03-15
Sprzedawca:
Hurtownia Elektryczna Volt Sp. z o.o.
ul. Przemysłowa 8
61-001 Poznań
NIP: 7811234567
Nabywca:
Kowalski Budownictwo Jan Kowalski
ul. Lipowa 3
60-101 Poznań
NIP: 7829876543
Lp. | Nazwa towaru lub usługi | Ilość | Cena netto | Wartość netto | VAT | Wartość brutto
1 | Kabel YDY 3x2,5 | 100 m | 3,20 | 320,00 | 23% | 393,60
Razem do zapłaty: 393,60 PLN
Termin płatności: 2024-03-29
""", "2024-03-15", "Hurtownia Elektryczna Volt Sp. z o.o.", "FV/2024/03/118")

probe("cz faktura", """FAKTURA - DAŇOVÝ DOKLAD č. 2024000312
Dodavatel:
Stavebniny Novák s.r.o.
Průmyslová 1024/7
150 00 Praha 5
IČO: 27123456 DIČ: CZ27123456
Odběratel:
Petr Dvořák
Lipová 12
602 00 Brno
Datum vystavení: 05.02.2024
Datum splatnosti: 19.02.2024
Datum uskutečnění plnění: 05.02.2024
Variabilní symbol: 2024000312
Celkem k úhradě: 12 450,00 Kč
""", "2024-02-05", "Stavebniny Novák s.r.o.", "2024000312")

probe("se faktura", """Faktura
Fakturanummer 40117
Fakturadatum 2024-05-06
Förfallodatum 2024-06-05
Er referens: Anna Svensson
Vår referens: Erik Lund
Anna Svensson
Storgatan 4
411 38 Göteborg
Specifikation | Antal | À-pris | Belopp
Fönsterputs | 1 | 1 200,00 | 1 200,00
Att betala: 1 500,00 SEK
Putsgruppen i Väst AB | Org.nr 556123-4567 | Bankgiro 123-4567 | Innehar F-skattsedel
""", "2024-05-06", "Putsgruppen i Väst AB", "40117")

probe("tr e-arsiv", """e-Arşiv Fatura
ÖZTÜRK BİLİŞİM TEKNOLOJİLERİ LTD. ŞTİ.
Atatürk Cad. No: 45 Kadıköy/ İSTANBUL
Tel: 0216 555 11 22
Vergi Dairesi: KADIKÖY VKN: 1234567890
SAYIN
AHMET YILMAZ
Bağdat Cad. No: 100 Maltepe/ İSTANBUL
TCKN: 12345678901
Özelleştirme No: TR1.2
Senaryo: EARSIVFATURA
Fatura Tipi: SATIS
Fatura No: ABC2024000000123
Fatura Tarihi: 21-03-2024
Mal Hizmet | Miktar | Birim Fiyat | KDV Oranı | Tutar
Laptop tamiri | 1 Adet | 1.500,00 TL | %20 | 1.500,00 TL
Ödenecek Tutar 1.800,00 TL
""", "2024-03-21", "ÖZTÜRK BİLİŞİM TEKNOLOJİLERİ LTD. ŞTİ.", "ABC2024000000123")

probe("es factura emisor", """FACTURA
Número de factura: F-2024-0089
Fecha de expedición: 08/03/2024
Datos del emisor
Reformas García e Hijos S.L.
CIF: B12345678
C/ Mayor 22, 28013 Madrid
Datos del cliente
Lucía Fernández Ruiz
NIF: 12345678Z
C/ Alcalá 100, 28009 Madrid
Concepto | Unidades | Precio | Importe
Pintura salón | 1 | 850,00 | 850,00
Base imponible 850,00 IVA 21% 178,50 Total 1.028,50 €
""", "2024-03-08", "Reformas García e Hijos S.L.", "F-2024-0089")

probe("nl factuur", """Factuur
Van Dijk Installatietechniek B.V.
Industrieweg 14
3542 AD Utrecht
KvK 12345678 | BTW NL001234567B01
Aan:
Familie de Boer
Kerkstraat 9
3511 LX Utrecht
Factuurnummer: 2024-0412
Factuurdatum: 17 april 2024
Vervaldatum: 1 mei 2024
Omschrijving | Aantal | Prijs | Totaal
Onderhoud cv-ketel | 1 | 95,00 | 95,00
Totaal te betalen € 114,95
""", "2024-04-17", "Van Dijk Installatietechniek B.V.", "2024-0412")

probe("de rechnung din letter", """Malerbetrieb Schulze GmbH · Lindenallee 3 · 10115 Berlin
Herrn
Thomas Becker
Gartenstraße 17
10117 Berlin
Rechnung
Rechnungsnummer: RE-2024-0231
Kundennummer: 10482
Datum: 22.02.2024
Leistungszeitraum: 12.02.2024 - 16.02.2024
Sehr geehrter Herr Becker,
für die ausgeführten Arbeiten erlauben wir uns zu berechnen:
Pos. | Beschreibung | Menge | Einzelpreis | Gesamt
1 | Wohnzimmer streichen | 42 m² | 12,00 | 504,00
Gesamtbetrag 599,76 €
Zahlbar innerhalb von 14 Tagen ohne Abzug.
Malerbetrieb Schulze GmbH | Geschäftsführer: Klaus Schulze | HRB 123456 B | USt-IdNr. DE123456789
""", "2024-02-22", "Malerbetrieb Schulze GmbH", "RE-2024-0231")

probe("fr facture auto-entrepreneur", """Julien Moreau
Développeur web indépendant
12 rue des Lilas, 69003 Lyon
SIRET : 812 345 678 00012
FACTURE N° 2024-017
Date : 3 avril 2024
Client :
Boulangerie Martin SARL
5 place Bellecour
69002 Lyon
Désignation | Quantité | Prix unitaire HT | Total HT
Création site vitrine | 1 | 1 500,00 € | 1 500,00 €
TVA non applicable, art. 293 B du CGI
Total à payer : 1 500,00 €
""", "2024-04-03", "Julien Moreau", "2024-017")

probe("in gst tax invoice", """TAX INVOICE
Sharma Electronics Pvt. Ltd.
Shop No. 14, Nehru Place, New Delhi - 110019
GSTIN: 07AABCS1234F1Z5
Invoice No: SE/24-25/0456
Invoice Date: 11-Jun-2024
Bill To:
Rahul Verma
B-22, Sector 15, Noida, Uttar Pradesh - 201301
State Code: 09
S.No | Description | HSN | Qty | Rate | Amount
1 | LED TV 43" | 8528 | 1 | 28,000.00 | 28,000.00
CGST 9% 2,520.00 SGST 9% 2,520.00
Grand Total ₹ 33,040.00
Amount in words: Thirty Three Thousand Forty Rupees Only
""", "2024-06-11", "Sharma Electronics Pvt. Ltd.", "SE/24-25/0456")

probe("us invoice", """Invoice
Bright Path Landscaping LLC
4821 Oak Ridge Dr
Austin, TX 78749
(512) 555-0147
BILL TO
Jennifer Walsh
1209 Maple Ave
Austin, TX 78704
INVOICE # | DATE | DUE DATE | TERMS
1087 | 05/14/2024 | 06/13/2024 | Net 30
DESCRIPTION | QTY | RATE | AMOUNT
Spring cleanup | 1 | 450.00 | 450.00
BALANCE DUE $450.00
""", "2024-05-14", "Bright Path Landscaping LLC", "1087")

probe("pt fatura", """FATURA FT 2024/1532
Original
Carpintaria Silva & Filhos, Lda.
Rua do Comércio, 45
4000-123 Porto
NIF: 501234567
Exmo.(s) Sr.(s)
Ana Costa
Avenida da Boavista 200
4100-119 Porto
NIF: 234567890
Data: 2024-02-28
Vencimento: 2024-03-29
Descrição | Qtd. | Preço Unit. | IVA | Total
Armário por medida | 1 | 1.200,00 | 23% | 1.200,00
Total (EUR) 1.476,00
ATCUD: JJ37MN7G-1532
""", "2024-02-28", "Carpintaria Silva & Filhos, Lda.", "FT 2024/1532")

_set = "everyday"
probe("stripe invoice", """Invoice
Invoice number 7F3C2A1-0012
Date of issue March 5, 2024
Date due March 5, 2024
Fernhill Analytics Inc.
548 Market Street
San Francisco, California 94104
United States
billing@fernhill.io
Bill to
John Doe
12 Elm Road
Boston, Massachusetts 02110
$49.00 USD due March 5, 2024
Pay online
Description | Qty | Unit price | Amount
Pro plan | 1 | $49.00 | $49.00
Mar 5 – Apr 5, 2024
Subtotal $49.00
Total $49.00
Amount due $49.00 USD
7F3C2A1-0012 · $49.00 USD due March 5, 2024 · Page 1 of 1
""", "2024-03-05", "Fernhill Analytics Inc.", "7F3C2A1-0012")

probe("stripe receipt", """Receipt from Fernhill Analytics Inc.
$49.00
Paid March 5, 2024
Receipt number 2381-4471
Invoice number 7F3C2A1-0012
Payment method Visa - 4242
Summary
Pro plan Qty 1 $49.00
Total $49.00
Amount paid $49.00
If you have any questions, contact us at billing@fernhill.io.
""", "2024-03-05", "Fernhill Analytics Inc.", "2381-4471", "receipt")

probe("telekom rechnung", """Telekom Deutschland GmbH, Postfach 100 600, 48050 Münster
Frau
Sabine Krüger
Ahornweg 12
50667 Köln
Ihre Rechnung für März 2024
Datum 05.03.2024
Kundennummer 1234567890
Rechnungsnummer 8801 2345 6789
Buchungskonto 4455667788
Seite 1 von 4
Guten Tag Frau Krüger,
hier ist Ihre aktuelle Rechnung.
Monatliche Beträge 01.03. - 31.03.2024 | 39,95 €
Rechnungsbetrag | 47,54 €
Der Rechnungsbetrag wird am 12.03.2024 von Ihrem Konto abgebucht.
Telekom Deutschland GmbH | Aufsichtsrat: Tim Höttges | Geschäftsführung: Srini Gopalan | Amtsgericht Bonn HRB 5919
""", "2024-03-05", "Telekom Deutschland GmbH", "8801 2345 6789")

probe("uber receipt", """Uber
Total €18.40
March 9, 2024
Thanks for riding, Anna
We hope you enjoyed your ride this evening.
Trip fare €16.10
Booking fee €2.30
Amount charged
Visa ••••4242 €18.40
You rode with Mehmet
UberX 6.2 kilometers | 17 min
Uber B.V. Burgerweeshuispad 301, 1076 HR Amsterdam, Netherlands
""", "2024-03-09", "Uber", None, "receipt")

probe("uk footer legal", """INVOICE
Invoice No: 10442
Invoice Date: 14/02/2024
To:
Mr P Hughes
22 Mill Lane
Leeds LS6 2AB
Description | Qty | Price | Total
Boiler service | 1 | £85.00 | £85.00
VAT @ 20% | | | £17.00
Total due | | | £102.00
Payment terms: 14 days
Bank: Barclays | Sort code 20-00-00 | Account 12345678
Warmhouse Heating Ltd | Registered in England and Wales No. 08123456 | 4 Station Road, Leeds LS1 4AP | VAT Reg 123 4567 89
""", "2024-02-14", "Warmhouse Heating Ltd", "10442")

probe("booking hotel", """Hotel Alpenrose
Dorfstrasse 12, 6020 Innsbruck, Österreich
Tel. +43 512 123456 · info@alpenrose-innsbruck.at
RECHNUNG
Rechnung Nr. 2024/00871
Datum: 18.02.2024
Gast: Herr Jan Novak
Zimmer 214 · Anreise 15.02.2024 · Abreise 18.02.2024
Übernachtung mit Frühstück | 3 | 129,00 | 387,00
Ortstaxe | 3 | 3,00 | 9,00
Gesamt EUR 396,00
Alpenrose Hotelbetriebs GmbH · FN 123456a · UID ATU12345678
""", "2024-02-18", "Hotel Alpenrose", "2024/00871")

probe("es factura simplificada", """MERCADONA, S.A.
A-46103834
C/ ALCALA 120
28009 MADRID
TELEFONO: 915555555
15/03/2024 19:42 OP: 123456
FACTURA SIMPLIFICADA: 2345-017-654321
Descripción | P. Unit | Importe
LECHE ENTERA 1L | 0,95 | 1,90
PAN BARRA | | 0,60
TOTAL (€) 2,50
TARJETA BANCARIA 2,50
IVA | BASE IMPONIBLE (€) | CUOTA (€)
4% | 2,40 | 0,10
""", "2024-03-15", "MERCADONA, S.A.", "2345-017-654321", "receipt")

probe("it scontrino", """ESSELUNGA S.p.A.
Via Vittor Pisani 20 - Milano
P.IVA 04916380159
DOCUMENTO COMMERCIALE
di vendita o prestazione
DESCRIZIONE | IVA | Prezzo(€)
MOZZARELLA | 4% | 1,99
PASTA 500G | 4% | 0,89
TOTALE COMPLESSIVO 2,88
di cui IVA 0,11
PAGAMENTO ELETTRONICO 2,88
12-04-2024 18:03
DOCUMENTO N. 0412-0087
RT 99MEX012345
""", "2024-04-12", "ESSELUNGA S.p.A.", "0412-0087", "receipt")

probe("apple invoice", """Apple Distribution International Ltd.
Hollyhill Industrial Estate
Hollyhill, Cork
Republic of Ireland
VAT No: IE9700053D
Invoice
Billed To
Marie Dubois
8 rue Victor Hugo
75001 Paris
Order ID: MT4LX2Q9P1
Document No.: 182734650291
Invoice Date: 21 Jan 2024
App Store | Procreate | €14.99
Subtotal €12.49
VAT charged at 20% €2.50
Total €14.99
""", "2024-01-21", "Apple Distribution International Ltd.", "182734650291")

probe("dutch energy", """Vattenfall
Postbus 41920, 1009 DC Amsterdam
De heer J. de Vries
Prinsengracht 100
1015 EA Amsterdam
Jaarnota
Notanummer: 40012345678
Notadatum: 2 februari 2024
Klantnummer: 1234567
Periode: 1 februari 2023 t/m 31 januari 2024
Totaal te betalen € 245,60
Dit bedrag wordt rond 16 februari 2024 van uw rekening afgeschreven.
Vattenfall Klantenservice N.V. | KvK 33292246 | BTW NL008121297B01
""", "2024-02-02", "Vattenfall", "40012345678")

_set = "nordic"
probe("da faktura", """Faktura
Tømrerfirmaet Hansen ApS
Industrivej 7
8600 Silkeborg
CVR-nr. 35123456
Kunde:
Mette Nielsen
Søndergade 14
8000 Aarhus C
Fakturanr.: 2024-118
Fakturadato: 12. marts 2024
Forfaldsdato: 26. marts 2024
Beskrivelse | Antal | Pris | Beløb
Udskiftning af vinduer | 1 | 18.500,00 | 18.500,00
Moms 25% 4.625,00
I alt DKK 23.125,00
Betales til Danske Bank reg. 1234 konto 5678901234
""", "2024-03-12", "Tømrerfirmaet Hansen ApS", "2024-118")

probe("no faktura", """FAKTURA
Rørlegger Berg AS
Storgata 45, 0182 Oslo
Org.nr. 912 345 678 MVA
Fakturanummer: 10334
Fakturadato: 04.04.2024
Forfallsdato: 18.04.2024
KID: 0103345
Kunde: Ola Nordmann
Kirkeveien 3
0368 Oslo
Beskrivelse | Antall | Enhetspris | Beløp
Reparasjon av vannlås | 1 | 1 450,00 | 1 450,00
Å betale NOK 1 812,50
Kontonummer: 1234.56.78901
""", "2024-04-04", "Rørlegger Berg AS", "10334")

probe("fi lasku", """LASKU
Siivouspalvelu Virtanen Oy
Hämeenkatu 10
33100 Tampere
Y-tunnus: 2345678-9
Laskun numero: 5021
Laskun päivämäärä: 15.02.2024
Eräpäivä: 29.02.2024
Viitenumero: 50213
Asiakas:
Matti Meikäläinen
Pispalan valtatie 20
33250 Tampere
Kuvaus | Määrä | Hinta | Yhteensä
Kotisiivous | 4 h | 38,00 | 152,00
Maksettava yhteensä 188,48 €
""", "2024-02-15", "Siivouspalvelu Virtanen Oy", "5021")

probe("da kvittering", """NETTO
Salling Group A/S
Rosbjergvej 33, 8220 Brabrand
CVR 35954716
KVITTERING
MÆLK 1L | 11,95
RUGBRØD | 18,00
TOTAL | 29,95
DANKORT | 29,95
Moms udgør 5,99
14.03.2024 17:22 Kasse 3 Bon 4521
""", "2024-03-14", "NETTO", None, "receipt")

probe("fi kuitti", """K-Market Kamppi
Kauppakeskus Kamppi, Helsinki
Y-tunnus 1234567-8
KUITTI
MAITO 1L | 1,19
LEIPÄ | 2,49
YHTEENSÄ | 3,68
KORTTI | 3,68
ALV 14% 0,45
21.03.2024 12:05 Kassa 2
""", "2024-03-21", "K-Market Kamppi", None, "receipt")

probe("no kvittering", """REMA 1000
Grünerløkka
Thorvald Meyers gate 60, 0552 Oslo
Org.nr 987 654 321
KVITTERING
BANANER | 14,90
MELK | 21,90
SUM | 36,80
BANK | 36,80
Herav MVA 15% 4,80
Dato: 02.05.2024 Tid: 18:44
""", "2024-05-02", "REMA 1000", None, "receipt")

_set = "malaysian"
probe("7-eleven", """7-Eleven Malaysia Sdn. Bhd.
(183803-X)
Level 3A, Plaza Ampang City, Jalan Ampang
50450 Kuala Lumpur
GST ID : 001116078080
Store: 2294 TMN MELAWATI
Date: 07/03/2018 Time: 21:14
Cashier: NURUL
100 PLUS ISOTONIC 500ML | 2.60
GARDENIA CLASSIC 400G | 3.60
Total | 6.20
Cash | 10.00
Change | 3.80
Thank You. Please Come Again.
""", "2018-03-07", "7-Eleven Malaysia Sdn. Bhd.", None, "receipt")

probe("tesco", """TESCO
TESCO STORES (MALAYSIA) SDN BHD
(Co. Reg. No. 270329-U)
TESCO SETIA ALAM
GST Reg. No: 000866508800
TAX INVOICE
KLEENEX TISSUE | 8.99 SR
MILO 1KG | 18.49 SR
TOTAL | 27.48
VISA | 27.48
Items: 2
15/04/2018 18:32 0043 012 4571 2019
""", "2018-04-15", "TESCO STORES (MALAYSIA) SDN BHD", None, "receipt")

probe("kopitiam brand top", """RESTORAN WAN SHENG
002043319-W
No.2, Jalan Temenggung 19/9
Seksyen 9, Bandar Mahkota Cheras
43200 Cheras, Selangor
GST Reg No: 001335787520
Tax Invoice
Invoice No: 1047521
Cashier: Counter 1
Date : 23-03-2018 16:38:22
Teh (B) | 2 | 2.20 | 4.40
Kopi O | 1 | 1.40 | 1.40
Total Inclusive GST: | 5.80
Cash | 10.00
Change | 4.20
""", "2018-03-23", "RESTORAN WAN SHENG", None, "receipt")

probe("hardware tax invoice first", """SIMPLIFIED TAX INVOICE
KEDAI PAPAN YEW SENG SDN BHD
(1093213-P)
LOT 276, JALAN BANTING
43800 DENGKIL SELANGOR
TEL : 03-8768 6092
GST NO : 001746628608
CASH BILL NO: CS 20180112-0091
DATE: 12/01/2018 11:49
CASHIER: USER
PAKU 3" | 2 KG | 4.50 | 9.00
TOTAL: 9.00
ROUNDING: 0.00
NETT TOTAL: 9.00
""", "2018-01-12", "KEDAI PAPAN YEW SENG SDN BHD", None, "receipt")

probe("mcd operator footer", """McDonald's Jln Klang Lama
Gerbang Alaf Restaurants Sdn Bhd
(65351-M)
Level 6, Bangunan TH Uptown 3
GST ID No: 000504664064
TAX INVOICE
INV# 006020065
ORD #42 -REG #02- 18/03/2018 13:09:06
1 M McChicken | 11.50
1 M Coke | 2.00
Eat-In Total (incl GST) | 13.50
Cash Tendered | 20.00
Change | 6.50
""", "2018-03-18", "Gerbang Alaf Restaurants Sdn Bhd", None, "receipt")

probe("pharmacy dmy text month", """GUARDIAN HEALTH AND BEAUTY SDN BHD
(183211-A)
GUARDIAN IOI MALL PUCHONG
GST No: 001223315456
Tel: 03-5882 2081
Receipt No: 0108-0204-8846
24 Feb 2018 14:05 | POS: 04
PANADOL ACTIFAST 20S | 1 | 11.50
TOTAL | 11.50
MASTER | 11.50
""", "2018-02-24", "GUARDIAN HEALTH AND BEAUTY SDN BHD", None, "receipt")

probe("petrol", """PETRON MALAYSIA REFINING & MARKETING BHD
(3927-V)
PETRON JALAN KUCHAI LAMA
GST NO: 000371744768
TAX INVOICE
TRANS NO: 0012345
PUMP 05 PRIMAX 95 | 28.55 L | 62.81
TOTAL | 62.81
CASH | 70.00
CHANGE | 7.19
DATE: 02/02/2018 TIME: 08:12
""", "2018-02-02", "PETRON MALAYSIA REFINING & MARKETING BHD", None, "receipt")

probe("stationery short date", """POPULAR BOOK CO. (M) SDN BHD
(113825-W)
No 8, Jalan 7/118B, Desa Tun Razak
56000 Kuala Lumpur
Tel: 03-9179 6333
GST Reg No: 001492992000
Tax Invoice
20/03/18 19:42 | #0211-01 | S/P: 023
PILOT G2 0.5 BLK | 1 | 6.90
TOTAL RM | 6.90
""", "2018-03-20", "POPULAR BOOK CO. (M) SDN BHD", None, "receipt")

probe("enterprise no legal form", """SYARIKAT PERNIAGAAN GIN KEE
(81109-A)
NO 290, JALAN AIR PANAS,
SETAPAK, 53200, KUALA LUMPUR.
TEL: 03-40210276
GST ID: 000750673920
SIMPLIFIED TAX INVOICE
Doc No. : CS00012345
Date: 05/01/2018
Cashier: USER
Salesperson :
Ref. :
CEMENT 50KG | 2 | 19.00 | 38.00
Total Amount: 38.00
""", "2018-01-05", "SYARIKAT PERNIAGAAN GIN KEE", None, "receipt")

probe("bakery chinese", """面包坊 BAKERY
BAKE WITH YEN SDN BHD
(582901-D)
22 & 24, JALAN SS 2/67
47300 PETALING JAYA
Tel: 03-7875 0011
Receipt : R00123
Date : 11-Feb-2018
Time : 10:22
BUTTER 250G | 1 | 10.50
TOTAL | 10.50
""", "2018-02-11", "BAKE WITH YEN SDN BHD", None, "receipt")


_set = "text layers"
# (as PDF text layers and browsers give page texts: labels run into values, a label split at
# its slash, a print header, a text without line breaks)
probe("marketplace labels run in", """Rechnung
Verkauft von Lindqvist Audio GmbH
USt-IDNr. DE298765431
Gesamtpreis212,40 €
Rechnungsdetails
Bestelldatum03 März 2025
Bestellnummer028-5512093-1184420
Rechnungsdatum
/Lieferdatum05 März 2025
RechnungsnummerDE5KQ7TR2AEUI
Zahlbetrag212,40 €
Lieferadresse
Jana Becker
Lindenallee 4
50667 Köln
Beschreibung | Menge | Stückpreis
Studiokopfhörer | 1 | 178,49 € | 19% | 212,40 €
""", "2025-03-05", "Lindqvist Audio GmbH", "DE5KQ7TR2AEUI")

probe("browser print of a web receipt", """3/14/25, 9:41 PM Lumen Notes
Receipt #2291-4410
Date paid March 12, 2025
Lumen Notes Inc.
548 Market Street, San Francisco, CA 94104
Bill to
sam.taylor@example.com
Description | Qty | Amount
Lumen Pro (Mar 12 - Apr 12, 2025) | 1 | $8.00
Total $8.00
Amount paid $8.00
https://billing.lumennotes.app/receipts/2291-4410 1/1
""", "2025-03-12", "Lumen Notes Inc.", "2291-4410", "receipt")

probe("telecom letter, department on the sender line", """funkwelt Kundenservice • Postfach 2231 • 50412 Köln Kundennummer 4410023381
Rechnungsdatum 04.02.2025
Rechnungsnummer 9913002214
Seite 1 von 2
Lena Wolf
Gartenweg 9
04109 Leipzig
Rechnung für Januar 2025
Zu zahlender Betrag: 14,99 €
Dein Vertrag: funkwelt Allnet S
Leistungen funkwelt 14,99 €
Viele Grüße
Dein funkwelt Team
funkwelt ist eine Marke der Nordnetz Telekommunikation GmbH
""", "2025-02-04", "funkwelt", "9913002214")

probe("order summary page", """Order Summary
Order placed 9 February 2025 Order No. 171-2290431-5560012
Payment method Order Summary
Visa •••• 7731 Item(s) Subtotal: £24.99
Postage & Packing: £0.00
Grand Total: £24.99
Ergonomic Laptop Stand, Aluminium
Sold by: Halden Home Ltd
""", "2025-02-09", "Halden Home Ltd", None, "order_confirmation")

probe("supermarket e-receipt", """Frischmarkt Nord oHG
Hafenstr. 12, 20459 Hamburg
UID Nr.: DE301122334
EUR
BIO VOLLMILCH 1,19 B
ROGGENBROT 2,49 B
SUMME EUR 3,68
Geg. EC-Cash EUR 3,68
Steuer % Netto Steuer Brutto
B= 7,0% 3,44 0,24 3,68
TSE-Transaktion: 118223
Bonus-Karten-Nr.: #########5521
12.02.2025 18:22 Bon-Nr.:4471
Vielen Dank für Ihren Einkauf
""", "2025-02-12", "Frischmarkt Nord oHG", "4471", "receipt")

probe("pl fuel station series", """Faktura nr: F 0456K21/0789/03                    Data wystawienia: 2025-01-17
Sprzedawca: Paliwa Mazowsze S.A.
NIP: 525-00-11-223
Adres: Przemysłowa 4 05-800 Pruszków
Paliwa Mazowsze S.A.
Stacja Paliw Nr 112
05-820 Piastów
Nabywca: Biuro Rachunkowe Nowak Sp. z o.o.
NIP: 5213344556
Lp Nazwa towaru | Jm | Ilość | Cena brutto | Wartość brutto
1 ON Diesel | l | 40,00 | 6,49 | 259,60
Należność ogółem: 259,60 PLN
""", "2025-01-17", "Paliwa Mazowsze S.A.", "F 0456K21/0789/03")


probe("web shop's order page, printed", """Item(s) Subtotal: $61.90
Shipping & Handling: $0.00
Grand Total:$66.85
Final Details for Order #112-5530917-2208841
Print this page for your records.
Order Placed: March 2, 2024
Order Total: $66.85
Shipped on March 4, 2024
Items Ordered Price
2 of: Linen Napkins, Set of 4
Sold by: Casa Verde Goods (seller profile)
$30.95
Shipping Address:
Maria Lopez
1200 ELM ST
AUSTIN, TX 78701-1420
United States
Payment information
Payment Method: Visa | Last digits: 5521
Credit Card transactions Visa ending in 5521: March 4, 2024:$66.85
Conditions of Use | Privacy Notice © 1996-2024, Marketly.com, Inc. or its affiliates
""", "2024-03-02", "Marketly.com, Inc.", "112-5530917-2208841", "order_confirmation")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args()
    fields = ("date", "issuer", "invoice_number", "document_type")
    for which in dict.fromkeys(p[0] for p in PROBES):
        probes = [p for p in PROBES if p[0] == which]
        right = dict.fromkeys(fields, 0)
        for _set_name, name, text, date, issuer, number, dtype in probes:
            got = extract_text_fields([text]).values
            expected = {"date": date, "issuer": issuer, "invoice_number": number,
                        "document_type": dtype}
            ok = {f: expected[f] is None or truth_matches(f, got.get(f), expected)
                  for f in fields}
            for f in fields:
                right[f] += ok[f]
            if args.show_errors and not all(ok.values()):
                print(f"  {which}/{name}: " + ", ".join(
                    f"{f} {got.get(f)!r}" for f in fields if not ok[f]))
        print(f"{which:<10} {len(probes):>3} probes  " + "  ".join(
            f"{f} {right[f]}/{len(probes)}" for f in fields))


if __name__ == "__main__":
    main()
