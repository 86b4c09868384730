"""A generated, labelled, multilingual corpus of business documents.

`samples()` returns deterministic `Sample`s (lines for docmaker + the truth) in 14 languages
(LANGS), or in the 8 of corpus_world.py too (WORLD_LANGS: ja, zh-Hans, zh-Hant, ko, ar, hi, id,
pt-BR), 10 document types and three layouts, with distractors: due/delivery/period dates,
birth dates, customer and order numbers, recipient blocks naming other companies, banks in the
footer. The truth holds the language, and the total and its currency where the document has one.
`write_corpus(dir)` writes them as PDFs (or noisy scans) plus `truth.json` for `renamerd eval`;
Arabic PDFs are drawn in visual order, as PDF producers do.

The phrasing here is written independently of the engine's lexicon (it is what real documents
say), so the accuracy test measures the engine, not a copy of its own tables.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.corpus_world import BASE_CURRENCIES, WORLD
from engine.docmaker import Line, TextAt, make_pdf, make_scan

# per language: titles per type, labels, date style, names
L: dict[str, dict[str, Any]] = {
    "en": dict(
        credit_number="Credit note no.",
        titles=dict(invoice="INVOICE", receipt="RECEIPT", credit_note="CREDIT NOTE",
                    reminder="PAYMENT REMINDER", quote="QUOTATION",
                    order_confirmation="ORDER CONFIRMATION", delivery_note="DELIVERY NOTE",
                    contract="SERVICE AGREEMENT", bank_statement="BANK STATEMENT",
                    payslip="PAYSLIP"),
        issue="Invoice date", date="Date", due="Due date", delivery="Delivery date",
        period="Billing period", birth="Date of birth", number="Invoice number",
        customer="Customer number", order="Order number", recipient="Bill to", total="Total",
        vat="VAT No", bank="Barclays Bank PLC", thanks="Thank you for your business.",
        months=["January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December"],
        textual="{d} {M} {y}", numeric="{d:02d}/{m:02d}/{y}", cur="£",
        firms=["Harrington", "Blackwood", "Ashford", "Kingsley", "Whitmore", "Pemberton"],
        trades=["Consulting", "Plumbing", "Software", "Logistics", "Print", "Energy"],
        suffixes=["Ltd", "LLC", "Inc.", "PLC"], street="{n} High Street",
        city="London EC1A {n}BB", people=["John Smith", "Emma Brown", "Oliver Jones"]),
    "de": dict(
        credit_number="Gutschriftsnummer",
        titles=dict(invoice="Rechnung", receipt="Quittung", credit_note="Gutschrift",
                    reminder="Zahlungserinnerung", quote="Angebot",
                    order_confirmation="Auftragsbestätigung", delivery_note="Lieferschein",
                    contract="Dienstleistungsvertrag", bank_statement="Kontoauszug",
                    payslip="Entgeltabrechnung"),
        issue="Rechnungsdatum", date="Datum", due="Fällig am", delivery="Lieferdatum",
        period="Leistungszeitraum", birth="Geburtsdatum", number="Rechnungsnummer",
        customer="Kundennummer", order="Bestellnummer", recipient="Rechnungsempfänger",
        total="Gesamtbetrag", vat="USt-IdNr.", bank="Deutsche Bank AG",
        thanks="Vielen Dank für Ihren Auftrag.",
        months=["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
                "September", "Oktober", "November", "Dezember"],
        textual="{d}. {M} {y}", numeric="{d:02d}.{m:02d}.{y}", cur="€",
        firms=["Schneider", "Hoffmann", "Becker", "Wagner", "Krüger", "Lehmann"],
        trades=["Elektrotechnik", "Bau", "Software", "Logistik", "Druck", "Energie"],
        suffixes=["GmbH", "AG", "GmbH & Co. KG", "UG"], street="Hauptstraße {n}",
        city="{n}0115 Berlin", people=["Max Mustermann", "Erika Schulz", "Jonas Weber"]),
    "fr": dict(
        credit_number="Avoir n°",
        titles=dict(invoice="FACTURE", receipt="REÇU", credit_note="AVOIR",
                    reminder="RELANCE DE PAIEMENT", quote="DEVIS",
                    order_confirmation="CONFIRMATION DE COMMANDE",
                    delivery_note="BON DE LIVRAISON", contract="CONTRAT DE PRESTATION",
                    bank_statement="RELEVÉ DE COMPTE", payslip="BULLETIN DE PAIE"),
        issue="Date de facture", date="Date", due="Date d'échéance", delivery="Date de livraison",
        period="Période", birth="Date de naissance", number="Numéro de facture",
        customer="N° client", order="N° de commande", recipient="Facturé à", total="Total TTC",
        vat="TVA intracommunautaire", bank="BNP Paribas SA", thanks="Merci de votre confiance.",
        months=["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
                "septembre", "octobre", "novembre", "décembre"],
        textual="{d} {M} {y}", numeric="{d:02d}/{m:02d}/{y}", cur="€",
        firms=["Dubois", "Lefèvre", "Moreau", "Laurent", "Girard", "Mercier"],
        trades=["Conseil", "Bâtiment", "Informatique", "Transports", "Imprimerie", "Énergie"],
        suffixes=["SARL", "SAS", "S.A.", "EURL"], street="{n} rue de la Paix",
        city="750{n:02d} Paris", people=["Jean Martin", "Marie Petit", "Luc Bernard"]),
    "es": dict(
        credit_number="Nº de factura rectificativa",
        titles=dict(invoice="FACTURA", receipt="RECIBO", credit_note="FACTURA RECTIFICATIVA",
                    reminder="RECORDATORIO DE PAGO", quote="PRESUPUESTO",
                    order_confirmation="CONFIRMACIÓN DE PEDIDO", delivery_note="ALBARÁN",
                    contract="CONTRATO DE SERVICIOS", bank_statement="EXTRACTO BANCARIO",
                    payslip="NÓMINA"),
        issue="Fecha de emisión", date="Fecha", due="Fecha de vencimiento",
        delivery="Fecha de entrega", period="Periodo", birth="Fecha de nacimiento",
        number="Número de factura", customer="Nº de cliente", order="Nº de pedido",
        recipient="Cliente", total="Total a pagar", vat="NIF", bank="Banco Santander S.A.",
        thanks="Gracias por su confianza.",
        months=["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
                "septiembre", "octubre", "noviembre", "diciembre"],
        textual="{d} de {M} de {y}", numeric="{d:02d}/{m:02d}/{y}", cur="€",
        firms=["García", "Fernández", "López", "Martínez", "Sánchez", "Romero"],
        trades=["Consultoría", "Construcciones", "Informática", "Transportes", "Gráficas",
                "Energía"],
        suffixes=["S.L.", "S.A.", "S.L.U."], street="Calle Mayor {n}", city="280{n:02d} Madrid",
        people=["Carlos Ruiz", "Lucía Gómez", "Pablo Díaz"]),
    "it": dict(
        credit_number="Nota di credito n.",
        titles=dict(invoice="FATTURA", receipt="RICEVUTA", credit_note="NOTA DI CREDITO",
                    reminder="SOLLECITO DI PAGAMENTO", quote="PREVENTIVO",
                    order_confirmation="CONFERMA D'ORDINE",
                    delivery_note="DOCUMENTO DI TRASPORTO", contract="CONTRATTO DI SERVIZIO",
                    bank_statement="ESTRATTO CONTO", payslip="BUSTA PAGA"),
        issue="Data fattura", date="Data", due="Scadenza", delivery="Data di consegna",
        period="Periodo", birth="Data di nascita", number="Numero fattura",
        customer="Codice cliente", order="Numero ordine", recipient="Destinatario",
        total="Totale documento", vat="Partita IVA", bank="Intesa Sanpaolo S.p.A.",
        thanks="Grazie per la fiducia.",
        months=["gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio",
                "agosto", "settembre", "ottobre", "novembre", "dicembre"],
        textual="{d} {M} {y}", numeric="{d:02d}/{m:02d}/{y}", cur="€",
        firms=["Rossi", "Bianchi", "Romano", "Colombo", "Ricci", "Marino"],
        trades=["Consulenze", "Costruzioni", "Informatica", "Trasporti", "Tipografia",
                "Energia"],
        suffixes=["S.r.l.", "S.p.A.", "S.n.c."], street="Via Roma {n}", city="201{n:02d} Milano",
        people=["Marco Conti", "Giulia Greco", "Luca Bruno"]),
    "pt": dict(
        credit_number="Nota de crédito nº",
        titles=dict(invoice="FATURA", receipt="RECIBO", credit_note="NOTA DE CRÉDITO",
                    reminder="AVISO DE COBRANÇA", quote="ORÇAMENTO",
                    order_confirmation="CONFIRMAÇÃO DE ENCOMENDA",
                    delivery_note="GUIA DE REMESSA", contract="CONTRATO DE PRESTAÇÃO DE SERVIÇOS",
                    bank_statement="EXTRATO BANCÁRIO", payslip="RECIBO DE VENCIMENTO"),
        issue="Data de emissão", date="Data", due="Data de vencimento", delivery="Data de entrega",
        period="Período", birth="Data de nascimento", number="Fatura nº",
        customer="Nº de cliente", order="Nº da encomenda", recipient="Cliente",
        total="Total a pagar", vat="NIF", bank="Caixa Geral de Depósitos S.A.",
        thanks="Obrigado pela preferência.",
        months=["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
                "setembro", "outubro", "novembro", "dezembro"],
        textual="{d} de {M} de {y}", numeric="{d:02d}/{m:02d}/{y}", cur="€",
        firms=["Silva", "Santos", "Ferreira", "Pereira", "Oliveira", "Costa"],
        trades=["Consultoria", "Construções", "Informática", "Transportes", "Gráfica",
                "Energia"],
        suffixes=["Lda.", "S.A.", "Unipessoal Lda"], street="Rua Augusta {n}",
        city="1100-0{n:02d} Lisboa", people=["João Sousa", "Ana Rodrigues", "Pedro Alves"]),
    "nl": dict(
        credit_number="Creditnotanummer",
        titles=dict(invoice="FACTUUR", receipt="KASSABON", credit_note="CREDITNOTA",
                    reminder="BETALINGSHERINNERING", quote="OFFERTE",
                    order_confirmation="ORDERBEVESTIGING", delivery_note="PAKBON",
                    contract="OVEREENKOMST", bank_statement="REKENINGAFSCHRIFT",
                    payslip="LOONSTROOK"),
        issue="Factuurdatum", date="Datum", due="Vervaldatum", delivery="Leverdatum",
        period="Periode", birth="Geboortedatum", number="Factuurnummer",
        customer="Klantnummer", order="Ordernummer", recipient="Factuuradres",
        total="Totaal te betalen", vat="BTW-nummer", bank="ING Bank N.V.",
        thanks="Bedankt voor uw opdracht.",
        months=["januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus",
                "september", "oktober", "november", "december"],
        textual="{d} {M} {y}", numeric="{d:02d}-{m:02d}-{y}", cur="€",
        firms=["de Vries", "Jansen", "Bakker", "Visser", "Smit", "Meijer"],
        trades=["Advies", "Bouw", "Software", "Transport", "Drukkerij", "Energie"],
        suffixes=["B.V.", "N.V.", "V.O.F."], street="Kerkstraat {n}", city="10{n:02d} AB Amsterdam",
        people=["Jan de Jong", "Sanne Mulder", "Daan Bos"]),
    "pl": dict(
        credit_number="Korekta nr",
        titles=dict(invoice="FAKTURA VAT", receipt="PARAGON", credit_note="FAKTURA KORYGUJĄCA",
                    reminder="WEZWANIE DO ZAPŁATY", quote="OFERTA",
                    order_confirmation="POTWIERDZENIE ZAMÓWIENIA", delivery_note="DOWÓD DOSTAWY",
                    contract="UMOWA O ŚWIADCZENIE USŁUG", bank_statement="WYCIĄG BANKOWY",
                    payslip="PASEK WYNAGRODZEŃ"),
        issue="Data wystawienia", date="Data", due="Termin płatności", delivery="Data sprzedaży",
        period="Okres rozliczeniowy", birth="Data urodzenia", number="Faktura nr",
        customer="Nr klienta", order="Nr zamówienia", recipient="Nabywca",
        total="Razem do zapłaty", vat="NIP", bank="PKO Bank Polski S.A.",
        thanks="Dziękujemy za współpracę.",
        months=["stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca",
                "sierpnia", "września", "października", "listopada", "grudnia"],
        textual="{d} {M} {y}", numeric="{d:02d}.{m:02d}.{y}", cur="zł",
        firms=["Kowalski", "Nowak", "Wiśniewski", "Wójcik", "Kamiński", "Lewandowski"],
        trades=["Doradztwo", "Budownictwo", "Informatyka", "Transport", "Drukarnia",
                "Energia"],
        suffixes=["Sp. z o.o.", "S.A.", "sp.j."], street="ul. Marszałkowska {n}",
        city="00-6{n:02d} Warszawa", people=["Jan Kowalczyk", "Anna Zielińska", "Piotr Mazur"]),
    "sv": dict(
        credit_number="Kreditfaktura nr",
        titles=dict(invoice="FAKTURA", receipt="KVITTO", credit_note="KREDITFAKTURA",
                    reminder="BETALNINGSPÅMINNELSE", quote="OFFERT",
                    order_confirmation="ORDERBEKRÄFTELSE", delivery_note="FÖLJESEDEL",
                    contract="AVTAL", bank_statement="KONTOUTDRAG", payslip="LÖNESPECIFIKATION"),
        issue="Fakturadatum", date="Datum", due="Förfallodatum", delivery="Leveransdatum",
        period="Period", birth="Födelsedatum", number="Fakturanummer", customer="Kundnummer",
        order="Ordernummer", recipient="Kund", total="Att betala", vat="Org.nr",
        bank="Nordea Bank Abp", thanks="Tack för din beställning.",
        months=["januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti",
                "september", "oktober", "november", "december"],
        textual="{d} {M} {y}", numeric="{y}-{m:02d}-{d:02d}", cur="kr",
        firms=["Andersson", "Johansson", "Karlsson", "Nilsson", "Eriksson", "Larsson"],
        trades=["Konsult", "Bygg", "Data", "Transport", "Tryckeri", "Energi"],
        suffixes=["AB", "HB"], street="Storgatan {n}", city="111 {n:02d} Stockholm",
        people=["Erik Lindberg", "Anna Berg", "Lars Holm"]),
    "da": dict(
        credit_number="Kreditnotanummer",
        titles=dict(invoice="FAKTURA", receipt="KVITTERING", credit_note="KREDITNOTA",
                    reminder="RYKKER", quote="TILBUD", order_confirmation="ORDREBEKRÆFTELSE",
                    delivery_note="FØLGESEDDEL", contract="AFTALE", bank_statement="KONTOUDTOG",
                    payslip="LØNSEDDEL"),
        issue="Fakturadato", date="Dato", due="Forfaldsdato", delivery="Leveringsdato",
        period="Periode", birth="Fødselsdato", number="Fakturanummer", customer="Kundenummer",
        order="Ordrenummer", recipient="Kunde", total="I alt at betale", vat="CVR-nr.",
        bank="Danske Bank A/S", thanks="Tak for din ordre.",
        months=["januar", "februar", "marts", "april", "maj", "juni", "juli", "august",
                "september", "oktober", "november", "december"],
        textual="{d}. {M} {y}", numeric="{d:02d}.{m:02d}.{y}", cur="kr.",
        firms=["Jensen", "Nielsen", "Hansen", "Pedersen", "Andersen", "Christensen"],
        trades=["Rådgivning", "Byg", "IT", "Transport", "Tryk", "Energi"],
        suffixes=["A/S", "ApS", "I/S"], street="Vesterbrogade {n}", city="16{n:02d} København V",
        people=["Mads Larsen", "Sofie Møller", "Anders Holm"]),
    "no": dict(
        credit_number="Kreditnotanummer",
        titles=dict(invoice="FAKTURA", receipt="KVITTERING", credit_note="KREDITNOTA",
                    reminder="PURRING", quote="TILBUD", order_confirmation="ORDREBEKREFTELSE",
                    delivery_note="PAKKSEDDEL", contract="AVTALE", bank_statement="KONTOUTSKRIFT",
                    payslip="LØNNSSLIPP"),
        issue="Fakturadato", date="Dato", due="Forfallsdato", delivery="Leveringsdato",
        period="Periode", birth="Fødselsdato", number="Fakturanummer", customer="Kundenummer",
        order="Ordrenummer", recipient="Kunde", total="Å betale", vat="Org.nr.",
        bank="DNB Bank ASA", thanks="Takk for handelen.",
        months=["januar", "februar", "mars", "april", "mai", "juni", "juli", "august",
                "september", "oktober", "november", "desember"],
        textual="{d}. {M} {y}", numeric="{d:02d}.{m:02d}.{y}", cur="kr",
        firms=["Hansen", "Johansen", "Olsen", "Larsen", "Andersen", "Pedersen"],
        trades=["Rådgivning", "Bygg", "Data", "Transport", "Trykkeri", "Energi"],
        suffixes=["AS", "ASA", "DA"], street="Karl Johans gate {n}", city="01{n:02d} Oslo",
        people=["Ola Nordmann", "Kari Berg", "Per Dahl"]),
    "fi": dict(
        credit_number="Hyvityslaskun numero",
        titles=dict(invoice="LASKU", receipt="KUITTI", credit_note="HYVITYSLASKU",
                    reminder="MAKSUMUISTUTUS", quote="TARJOUS", order_confirmation="TILAUSVAHVISTUS",
                    delivery_note="LÄHETYSLUETTELO", contract="SOPIMUS", bank_statement="TILIOTE",
                    payslip="PALKKALASKELMA"),
        issue="Laskun päivämäärä", date="Päivämäärä", due="Eräpäivä", delivery="Toimituspäivä",
        period="Laskutusjakso", birth="Syntymäaika", number="Laskun numero",
        customer="Asiakasnumero", order="Tilausnumero", recipient="Asiakas",
        total="Yhteensä", vat="Y-tunnus", bank="Nordea Pankki Oyj", thanks="Kiitos tilauksestanne.",
        months=["tammikuuta", "helmikuuta", "maaliskuuta", "huhtikuuta", "toukokuuta",
                "kesäkuuta", "heinäkuuta", "elokuuta", "syyskuuta", "lokakuuta", "marraskuuta",
                "joulukuuta"],
        textual="{d}. {M} {y}", numeric="{d}.{m}.{y}", cur="€",
        firms=["Korhonen", "Virtanen", "Mäkinen", "Nieminen", "Hämäläinen", "Laine"],
        trades=["Konsultointi", "Rakennus", "Ohjelmistot", "Kuljetus", "Paino", "Energia"],
        suffixes=["Oy", "Oyj", "Ky"], street="Mannerheimintie {n}", city="001{n:02d} Helsinki",
        people=["Matti Heikkinen", "Laura Koskinen", "Juha Salonen"]),
    "cs": dict(
        credit_number="Dobropis č.",
        titles=dict(invoice="FAKTURA - DAŇOVÝ DOKLAD", receipt="ÚČTENKA", credit_note="DOBROPIS",
                    reminder="UPOMÍNKA", quote="CENOVÁ NABÍDKA",
                    order_confirmation="POTVRZENÍ OBJEDNÁVKY", delivery_note="DODACÍ LIST",
                    contract="SMLOUVA O DÍLO", bank_statement="VÝPIS Z ÚČTU",
                    payslip="VÝPLATNÍ PÁSKA"),
        issue="Datum vystavení", date="Datum", due="Datum splatnosti", delivery="DUZP",
        period="Období", birth="Datum narození", number="Číslo faktury",
        customer="Číslo zákazníka", order="Číslo objednávky", recipient="Odběratel",
        total="Celkem k úhradě", vat="DIČ", bank="Česká spořitelna, a.s.",
        thanks="Děkujeme za Vaši objednávku.",
        months=["ledna", "února", "března", "dubna", "května", "června", "července", "srpna",
                "září", "října", "listopadu", "prosince"],
        textual="{d}. {M} {y}", numeric="{d}. {m}. {y}", cur="Kč",
        firms=["Novák", "Svoboda", "Dvořák", "Černý", "Procházka", "Kučera"],
        trades=["Poradenství", "Stavby", "Software", "Doprava", "Tiskárna", "Energie"],
        suffixes=["s.r.o.", "a.s.", "spol. s r.o."], street="Václavské náměstí {n}",
        city="110 {n:02d} Praha 1", people=["Jan Novotný", "Petra Veselá", "Tomáš Marek"]),
    "tr": dict(
        credit_number="İade fatura no",
        titles=dict(invoice="FATURA", receipt="MAKBUZ", credit_note="İADE FATURASI",
                    reminder="ÖDEME HATIRLATMASI", quote="FİYAT TEKLİFİ",
                    order_confirmation="SİPARİŞ ONAYI", delivery_note="SEVK İRSALİYESİ",
                    contract="HİZMET SÖZLEŞMESİ", bank_statement="HESAP EKSTRESİ",
                    payslip="MAAŞ BORDROSU"),
        issue="Fatura tarihi", date="Tarih", due="Son ödeme tarihi", delivery="Sevk tarihi",
        period="Dönem", birth="Doğum tarihi", number="Fatura no", customer="Müşteri no",
        order="Sipariş no", recipient="Sayın", total="Genel toplam", vat="Vergi no",
        bank="Türkiye İş Bankası A.Ş.", thanks="Bizi tercih ettiğiniz için teşekkür ederiz.",
        months=["Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos",
                "Eylül", "Ekim", "Kasım", "Aralık"],
        textual="{d} {M} {y}", numeric="{d:02d}.{m:02d}.{y}", cur="TL",
        firms=["Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Yıldız"],
        trades=["Danışmanlık", "İnşaat", "Yazılım", "Lojistik", "Matbaa", "Enerji"],
        suffixes=["A.Ş.", "Ltd. Şti."], street="İstiklal Caddesi No: {n}",
        city="34{n:03d} İstanbul", people=["Ahmet Yılmaz", "Ayşe Kaya", "Mehmet Öz"]),
}
LANGS = tuple(L)
WORLD_LANGS = tuple(WORLD)
L.update(WORLD)
ALL_LANGS = LANGS + WORLD_LANGS
TYPES = ("invoice", "invoice", "invoice", "receipt", "credit_note", "reminder", "quote",
         "order_confirmation", "delivery_note", "contract", "bank_statement", "payslip")
NUMBERED = {"invoice", "credit_note"}


@dataclass
class Sample:
    name: str
    language: str
    doc_type: str
    layout: str
    lines: list[Line]
    truth: dict[str, Any] = field(default_factory=dict)


def _fmt(lang: dict[str, Any], d: dt.date, textual: bool) -> str:
    if textual:
        return lang["textual"].format(d=d.day, M=lang["months"][d.month - 1], y=d.year)
    return lang["numeric"].format(d=d.day, m=d.month, y=d.year)


def _money(rnd: random.Random, lang: dict[str, Any], code: str) -> tuple[str, str]:
    """(the amount as the document writes it, as extractedInfo has it: "1234.56")."""
    value = rnd.randint(1000, 990000) / 100
    if "money" in lang:
        whole = int(value * 10)
        if "{i" in lang["money"]:  # currencies written without decimals (yen, won, rupiah)
            value = float(whole)
        text = lang["money"].format(
            cur=lang["cur"], v2=f"{value:,.2f}", i=f"{whole:,}",
            idots=f"{whole:,}".replace(",", "."),
            v2eu=f"{value:,.2f}".replace(",", "_").replace(".", ",").replace("_", "."))
        return text, f"{value:.2f}"
    if code in ("en",):
        return f"{lang['cur']}{value:,.2f}", f"{value:.2f}"
    text = f"{value:,.2f}".replace(",", " ").replace(".", ",")
    return f"{text} {lang['cur']}", f"{value:.2f}"


def _firm(rnd: random.Random, lang: dict[str, Any], suffix: str | None = None) -> str:
    return lang.get("firm_format", "{f} {t} {s}").format(
        f=rnd.choice(lang["firms"]), t=rnd.choice(lang["trades"]),
        s=suffix or rnd.choice(lang["suffixes"]))


def _sample(idx: int, code: str, doc_type: str, layout: str, rnd: random.Random) -> Sample:
    lang = L[code]
    firm = _firm(rnd, lang)
    other = _firm(rnd, lang)
    while other == firm:
        other = _firm(rnd, lang, lang["suffixes"][0])
    recipient = rnd.choice([rnd.choice(lang["people"]), other])
    n = rnd.randint(1, 9)
    street, city = lang["street"].format(n=n * 3), lang["city"].format(n=n)
    rstreet, rcity = lang["street"].format(n=n * 7 + 2), lang["city"].format(n=(n + 3) % 10)
    date = dt.date(2023, 1, 1) + dt.timedelta(days=rnd.randint(0, 700))
    due = date + dt.timedelta(days=rnd.choice([14, 30]))
    delivery = date - dt.timedelta(days=rnd.randint(1, 6))
    period_start = date.replace(day=1) - dt.timedelta(days=28)
    textual = rnd.random() < 0.3
    number = f"{rnd.choice(['RE', 'INV', 'F', '', 'A'])}{date.year}-{rnd.randint(100, 99999):05d}"
    number = number.lstrip("-")
    title = lang["titles"][doc_type]
    header = [TextAt(20, 18, firm, 16, True), TextAt(20, 25, f"{street} · {city}", 9)]
    rec_block = [f"{lang['recipient']}:", recipient, rstreet, rcity, ""]
    din_sender = f"{firm} · {street} · {city}"
    meta: list[str] = []
    body: list[str] = []
    truth: dict[str, Any] = {"date": date.isoformat(), "issuer": firm, "document_type": doc_type,
                             "language": code}
    money, amount = _money(rnd, lang, code)
    currency = lang.get("currency") or BASE_CURRENCIES[code]
    customer = f"{lang['customer']}: {rnd.randint(10000, 99999)}"
    order = f"{lang['order']}: {rnd.randint(100000, 999999)}"
    if doc_type in NUMBERED:
        meta += [f"{lang['number'] if doc_type == 'invoice' else lang['credit_number']}: {number}",
                 f"{lang['issue'] if doc_type == 'invoice' else lang['date']}: {_fmt(lang, date, textual)}",
                 customer]
        truth["invoice_number"] = number
        if rnd.random() < 0.6:
            meta.append(f"{lang['due']}: {_fmt(lang, due, False)}")
        if rnd.random() < 0.5:
            meta.append(f"{lang['delivery']}: {_fmt(lang, delivery, False)}")
        if rnd.random() < 0.4:
            meta.append(f"{lang['period']}: {_fmt(lang, period_start, False)} - "
                        f"{_fmt(lang, period_start + dt.timedelta(days=27), False)}")
        body += [order, "", f"{lang['total']}: {money}", "", lang["thanks"]]
        truth.update(amount=amount, currency=currency)
    elif doc_type == "receipt":
        meta += [f"{lang['date']}: {_fmt(lang, date, False)} {rnd.randint(8, 20)}:{rnd.randint(10, 59)}"]
        body += [f"{lang['total']}: {money}", lang["thanks"]]
        truth.update(amount=amount, currency=currency)
    elif doc_type == "payslip":
        meta += [f"{lang['date']}: {_fmt(lang, date, textual)}", rnd.choice(lang["people"]),
                 f"{lang['birth']}: {_fmt(lang, dt.date(1970 + n, n, 10 + n), False)}",
                 f"{lang['period']}: {lang['months'][date.month - 1]} {date.year}"]
        body += [f"{lang['total']}: {money}"]
        truth.update(amount=amount, currency=currency)
    elif doc_type == "bank_statement":
        meta += [f"{lang['date']}: {_fmt(lang, date, textual)}",
                 f"{lang['period']}: {_fmt(lang, period_start, False)} - "
                 f"{_fmt(lang, period_start + dt.timedelta(days=27), False)}",
                 "IBAN DE89 3704 0044 0532 0130 00"]
    else:
        meta += [f"{lang['date']}: {_fmt(lang, date, textual)}", customer]
        if doc_type in ("reminder", "order_confirmation", "delivery_note", "quote"):
            meta.append(order)
        if doc_type == "reminder":
            meta.append(f"{lang['due']}: {_fmt(lang, due, False)}")
        if doc_type == "delivery_note":
            meta.append(f"{lang['delivery']}: {_fmt(lang, delivery, False)}")
        body += [lang["thanks"]]
    footer = ["", f"{firm} · {lang['vat']} {rnd.randint(10**8, 10**9 - 1)} · {lang['bank']}"]
    if layout == "letterhead":
        lines: list[Line] = [*header, "", "", "", *rec_block, title, *meta, "", *body, *footer]
    elif layout == "din":
        lines = [TextAt(20, 45, din_sender, 7), TextAt(20, 50, recipient, 10),
                 TextAt(20, 55, rstreet, 10), TextAt(20, 60, rcity, 10)]
        y = 80.0
        for text in [title, *meta, "", *body, *footer]:
            lines.append(TextAt(20, y, text, 13 if text == title else 10, text == title))
            y += 6
    else:  # "recipient_first": customer block drawn first, letterhead on the right
        lines = [TextAt(20, 20, f"{lang['recipient']}:", 10), TextAt(20, 25, recipient, 10),
                 TextAt(20, 30, rstreet, 10), TextAt(20, 35, rcity, 10),
                 TextAt(120, 20, firm, 14, True), TextAt(120, 27, street, 9),
                 TextAt(120, 32, city, 9)]
        y = 55.0
        for text in [title, *meta, "", *body, *footer]:
            lines.append(TextAt(20, y, text, 13 if text == title else 10, text == title))
            y += 6
    name = f"{idx:04d}_{code}_{doc_type}_{layout}"
    return Sample(name, code, doc_type, layout, lines, truth)


def samples(per_language: int = 8, seed: int = 20240601,
            languages: tuple[str, ...] = LANGS) -> list[Sample]:
    """Deterministic samples: `per_language` documents per language, types and layouts mixed."""
    rnd = random.Random(seed)
    out: list[Sample] = []
    idx = 0
    layouts = ("letterhead", "din", "recipient_first")
    for code in languages:
        for i in range(per_language):
            doc_type = TYPES[idx % len(TYPES)]
            out.append(_sample(idx, code, doc_type, layouts[(i + len(out)) % 3], rnd))
            idx += 1
    return out


_LTR_RUN = re.compile(r"[0-9A-Za-z$€£¥₹][0-9A-Za-z.,:/#$€£¥₹+-]*[0-9A-Za-z€£$]|[0-9A-Za-z]")


def visual_order(line: Line) -> Line:
    """An Arabic line as PDF producers draw it: right to left, numbers and Latin words kept
    left to right (a simple bidi, enough for these documents)."""
    text = line.text if isinstance(line, TextAt) else line
    if not re.search(r"[\u0600-\u06ff]", text):
        return line
    visual = _LTR_RUN.sub(lambda m: m.group(0)[::-1], text[::-1])
    if isinstance(line, TextAt):
        return TextAt(line.x_mm, line.y_mm, visual, line.size, line.bold)
    return visual


def write_corpus(directory: Path, items: list[Sample], *, scans: bool = False,
                 noise: float = 0.02) -> Path:
    """Write PDFs (or noisy PNG scans) and truth.json into `directory`; returns it."""
    directory.mkdir(parents=True, exist_ok=True)
    truth: dict[str, dict[str, Any]] = {}
    for s in items:
        if scans:
            filename = f"{s.name}.png"
            data = make_scan(s.lines, noise=noise, seed=zlib.crc32(s.name.encode()) & 0xFFFF)
        else:
            filename = f"{s.name}.pdf"
            data = make_pdf([visual_order(ln) for ln in s.lines] if s.language == "ar"
                            else s.lines)
        (directory / filename).write_bytes(data)
        truth[filename] = s.truth
    (directory / "truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1),
                                          encoding="utf-8")
    return directory
