"""Labels and values drawn as two columns (engine/fields/columns.py)."""

from __future__ import annotations

import pytest

from renamerd.engine.fields import extract
from renamerd.engine.fields.columns import date_cell, pair_header_rows, pair_label_columns

COLUMNS = ["FACTURA", "Numero de Orden", "Fecha de Compra", "Tarjeta Fidelidad",
           "Fecha de emisión", "Factura", "ES9812110233", "21.03.24", "2093419674366",
           "21.03.24", "1 24 0005 0001201345", "DECATHLON ESPANA SAU"]


def test_a_block_of_labels_then_one_of_values_is_read_pair_by_pair() -> None:
    assert pair_label_columns(COLUMNS) == [
        "FACTURA", "Numero de Orden: ES9812110233", "Fecha de Compra: 21.03.24",
        "Tarjeta Fidelidad: 2093419674366", "Fecha de emisión: 21.03.24",
        "Factura: 1 24 0005 0001201345", "DECATHLON ESPANA SAU"]


def test_lines_that_are_no_two_columns_are_left_alone() -> None:
    lines = ["ACME Ltd", "Invoice", "Invoice number: 5", "Date: 12.03.2024",
             "Fecha", "Factura", "21.03.24", "Total", "Tax", "Net", "12.00", "2.00"]
    assert pair_label_columns(lines) == lines  # two labels, or fewer values than labels


def test_the_invoice_number_and_date_come_from_their_own_column_rows() -> None:
    values = extract(["\n".join(COLUMNS)]).values
    assert values["invoice_number"] == "1 24 0005 0001201345"
    assert str(values["date"]) == "2024-03-21"


US_HEADER = ["Bright Path Landscaping LLC", "4821 Oak Ridge Dr", "Austin, TX 78749"]


def test_labels_with_a_number_sign_make_a_column_too() -> None:
    # a text layer writing the header cells, then the value cells ("INVOICE #" is a label)
    lines = US_HEADER + ["INVOICE #", "DATE", "DUE DATE", "TERMS",
                         "1087", "05/14/2024", "06/13/2024", "Net 30"]
    values = extract(["\n".join(lines)]).values
    assert values["invoice_number"] == "1087"
    assert str(values["date"]) == "2024-05-14"  # the invoice's date, not the due date


def test_labels_under_a_name_in_a_few_words_pair_with_the_values_below_them() -> None:
    # the name and a word above the labels look like labels too; an amount's currency in brackets
    lines = ["WAVECOM", "Complex", "Invoice Number", "Date of Issue", "Due Date",
             "Amount Due (JMD)", "0000085", "04/29/2025", "05/29/2025", "$40,250.00", "Rate"]
    assert pair_label_columns(lines) == [
        "WAVECOM", "Complex", "Invoice Number: 0000085", "Date of Issue: 04/29/2025",
        "Due Date: 05/29/2025", "Amount Due (JMD): $40,250.00", "Rate"]
    found = extract(["\n".join(["WAVECOM Limited", "30 Red Hills Road", *lines])]).values
    assert (found["invoice_number"], found["date"]) == ("0000085", "2025-04-29")


def test_a_row_of_labels_over_a_row_of_values_is_read_cell_by_cell() -> None:
    rows = ["INVOICE # | DATE | DUE DATE | TERMS", "1087 | 05/14/2024 | 06/13/2024 | Net 30"]
    assert pair_header_rows(rows) == ["INVOICE #: 1087", "DATE: 05/14/2024",
                                      "DUE DATE: 06/13/2024", "TERMS: Net 30"]
    values = extract(["\n".join(US_HEADER + rows)]).values
    assert values["invoice_number"] == "1087" and str(values["date"]) == "2024-05-14"


def test_an_items_table_and_rows_of_other_widths_are_left_alone() -> None:
    rows = ["DESCRIPTION | QTY | RATE | AMOUNT", "Spring cleanup | 1 | 450.00 | 450.00",
            "INVOICE # | DATE", "1087 | 05/14/2024 | Net 30"]
    assert pair_header_rows(rows) == rows


def test_labels_one_blank_apart_over_values_pair_as_far_as_both_rows_are_sure() -> None:
    # a text layer's table header and row, cells one blank apart ("Page" is no known label)
    assert pair_header_rows(["Invoice Number Invoice Date Customer Number Page",
                             "4700367116 19-DEC-2025 4668565 1 / 1"]) == [
        "Invoice Number: 4700367116", "Invoice Date: 19-DEC-2025", "Customer Number: 4668565",
        "Page", "1 / 1"]
    assert pair_header_rows(["Invoice No. Date", "INV-1 12/03/2024"]) == [
        "Invoice No: INV-1", "Date: 12/03/2024"]
    # an empty last column; a row opening with a word of its own
    assert pair_header_rows(["Facture N° Date Référence", "FAT000546 08/06/2026"]) == [
        "Facture N°: FAT000546", "Date: 08/06/2026", "Référence"]
    assert pair_header_rows(["Klantcode Factuurnummer Factuurdatum",
                             "Factuur 9000415 104346 12/12/2022"]) == [
        "Klantcode: 9000415", "Factuurnummer: 104346", "Factuurdatum: 12/12/2022", "Factuur"]
    # pairs stop at the first value that is no one word with a digit
    assert pair_header_rows(["Rechnungsnummer Rechnungsdatum Kundennummer",
                             "R-17 05.03.2024 K 17"]) == [
        "Rechnungsnummer: R-17", "Rechnungsdatum: 05.03.2024", "Kundennummer", "K 17"]
    text = ("Quest Software Ltd\nInvoice\nInvoice Number Invoice Date Customer Number Page\n"
            "4700367116 19-DEC-2025 4668565 1 / 1")
    assert extract([text]).values["invoice_number"] == "4700367116"


def test_rows_whose_values_do_not_fit_their_labels_are_left_alone() -> None:
    unsure = [["Invoice Date Invoice Number", "May 8, 2026 INV-1"],  # a value with blanks
              ["Invoice Number Invoice Date", "12/03/2024 INV-1"],  # a date under a number's
              ["Data do documento Número do documento Aceite", "31/03/2026 EPR05 N"],
              ["Klantcode Factuurnummer Factuurdatum", "Factuur 9000415 104346"]]
    for rows in unsure:
        assert pair_header_rows(rows) == rows


def test_two_labels_with_their_colons_over_two_values_pair() -> None:
    assert pair_label_columns(["Rechnung:", "Kunde:", "3081253", "57312126P", "Datum:"]) == [
        "Rechnung: 3081253", "Kunde: 57312126P", "Datum:"]
    # without colons two lines could be a name and a heading over an address
    lines = ["Rechnung", "Kunde", "3081253", "57312126P"]
    assert pair_label_columns(lines) == lines


def test_a_name_line_between_the_labels_row_and_the_values_row_is_kept_apart() -> None:
    # a Tally invoice's text layer: the seller's name column beside the label cells
    lines = ["Invoice No. Dated", "Kaveri Stone Works", "118/26-27 14-Aug-26",
             "Plot 7, Industrial Area"]
    assert pair_header_rows(lines) == ["Kaveri Stone Works", "Invoice No: 118/26-27",
                                       "Dated: 14-Aug-26", "Plot 7, Industrial Area"]


def test_a_row_of_labels_ending_a_line_pairs_with_the_values_ending_the_next() -> None:
    lines = ["Kaveri Stone Works Invoice No. e-Way Bill No. Dated",
             "Plot 7, Industrial Area GST-41-26-27 741852963012 14-Aug-26"]
    assert pair_header_rows(lines) == [
        "Kaveri Stone Works", "Invoice No: GST-41-26-27", "e-Way Bill No: 741852963012",
        "Dated: 14-Aug-26", "Plot 7, Industrial Area"]
    # a value that does not fit its label (a number under "Dated") pairs nothing
    unfit = ["Kaveri Stone Works Invoice No. Dated", "Plot 7, Industrial Area 118 4471"]
    assert pair_header_rows(unfit) == unfit


TALLY = """e-Invoice
Tax Invoice
IRN : 5f0b1e7c9a2d4e6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f
Ack No. : 182630112233445
Ack Date : 16-Aug-26
Invoice No. Dated
Kaveri Stone Works
118/26-27 14-Aug-26
Plot 7, Industrial Area, Hosur Road
GSTIN/UIN: 33AAKFK1234L1Z9
Consignee (Ship to)
Nandi Builders Private Limited
Buyer (Bill to) Dispatch Doc No. Delivery Note Date
Nandi Builders Private Limited
12 Lake View Road, Bengaluru 560001
Description of Goods HSN/SAC Quantity Rate per Amount
1 Granite slabs 68022190 40 SQM 1,150.00 SQM 46,000.00
Total ₹ 48,300.00
for Kaveri Stone Works
Authorised Signatory"""


def test_an_indian_e_invoice_is_read_from_its_header_columns() -> None:
    # the acknowledgement's number and date are the tax portal's, not the invoice's; the
    # buyer under "Buyer (Bill to)" beside the second column's labels is the customer
    values = extract([TALLY]).values
    assert values["invoice_number"] == "118/26-27"
    assert str(values["date"]) == "2026-08-14"
    assert values["issuer"] == "Kaveri Stone Works"


@pytest.mark.parametrize(("value", "is_date"), [
    ("19-DEC-2025", True), ("12/12/2022", True), ("2024-03-05", True), ("2-Oct-26", True),
    ("222/26-27", False), ("26-27/1979", False), ("4700367116", False),
    ("2025-04-0077", False),  # a year, a month and a running number: no day has four digits
])
def test_a_date_cell_is_told_from_an_invoice_number_with_its_financial_year(
        value: str, is_date: bool) -> None:
    assert date_cell(value) is is_date


def test_a_number_opening_with_a_year_and_a_month_is_read_under_its_label() -> None:
    text = ("Rechnungsbetrag 7.389,90 €\nRechnungs-Nr.: 2025-04-0077\nRechnungsdatum: 01.04.2025\n"
            "Müller Haustechnik GmbH\nIndustriestraße 4\n70565 Stuttgart")
    assert extract([text]).values["invoice_number"] == "2025-04-0077"


def test_an_invoice_number_with_its_financial_year_is_read_under_its_label() -> None:
    page = ("TAX INVOICE\nNILGIRI CARTONS PRIVATE LIMITED Invoice No. e-Way Bill No. Dated\n"
            "PLOT NO 17/21/1.1 26-27/1979 372347234423 2-Oct-26\nGSTIN/UIN: 06AAOCS0564L1ZY\n"
            "Total 7,574 PCS 2,84,077.00\n")
    values = extract([page]).values
    assert values["invoice_number"] == "26-27/1979"
    assert str(values["date"]) == "2026-10-02"


def test_an_address_line_between_a_labels_row_and_its_values_row() -> None:
    # Meesho's label: the customer's address column runs between the rows
    lines = ["Purchase Order No. Invoice No. Order Date Invoice Date",
             "Mahadeb Nagar, West Bengal, 742202, Place of Supply:",
             "259174160814544384 fleup261308 28.02.2026 28.02.2026"]
    assert pair_header_rows(lines) == [
        "Mahadeb Nagar, West Bengal, 742202, Place of Supply:",
        "Purchase Order No: 259174160814544384", "Invoice No: fleup261308",
        "Order Date: 28.02.2026", "Invoice Date: 28.02.2026"]


def test_an_address_line_between_rows_whose_values_do_not_all_pair_stays() -> None:
    lines = ["Invoice No. Invoice Date", "12 High Street, Leeds LS1 4AB",
             "4471 28.02.2026 Extra words 77"]
    assert pair_header_rows(lines) == lines


def test_a_date_with_its_months_name_is_one_cell_of_a_values_row() -> None:
    # Tally's layout, the seller's name before the labels and its address before the values
    lines = ["Pooja Enterprises Invoice No. Dated",
             "Plot No 87, Laxmi Nagar, Paota C Road, 165 29 May 25"]
    assert pair_header_rows(lines) == ["Pooja Enterprises", "Invoice No: 165",
                                       "Dated: 29 May 25", "Plot No 87, Laxmi Nagar, Paota C Road,"]
    assert date_cell("11 Nov 2025") and not date_cell("12 Items 2025")


def test_a_row_of_values_wrapped_onto_two_lines_pairs_with_its_labels() -> None:
    lines = ["Amount due Due date Issue date Invoice number", "£149.83 28 Sept 2026",
             "29 Aug 2026 INV-1085", "View online"]
    assert pair_header_rows(lines) == [
        "Amount due", "Due date: 28 Sept 2026", "Issue date: 29 Aug 2026",
        "Invoice number: INV-1085", "£149.83", "View online"]


def test_two_lines_under_a_row_of_labels_pair_only_when_three_values_fit() -> None:
    # (an OCR'd letterhead: "C." and "FACTURA" over a fax number and an e-mail line)
    lines = ["rr IE ao Aa or Agropuerlo C. FACTURA", "RAs — sod vive Fax: (66-2) 362 9151 a”",
             "Email mai ack dav gi com Ne 023289 1?"]
    assert pair_header_rows(lines) == lines


def test_a_row_of_labels_ending_in_colons_pairs_with_its_values_known_or_not() -> None:
    """A utility bill's summary: two rows of labels with colons, one of each row unknown to
    the lexicon (a billing period, days billed), each over its values; a column printed
    sideways beside them puts a word before each row ("domicilio", "Madrid;")."""
    lines = ["IBERDROLA CLIENTES, S.A.U.", "RESUMEN DE FACTURA",
             "PERIODO DE FACTURACIÓN: Nº FACTURA:",
             "domicilio 27/04/2026 - 31/05/2026 21260608010256253",
             "Madrid; DIAS FACTURADOS: FECHA DE EMISIÓN:", "34 8 de junio de 2026",
             "Potencia facturada P1 27/04/2026 4.648 31/05/2026", "TOTAL IMPORTE FACTURA 112,30 €"]
    assert pair_header_rows(lines)[2:7] == [
        "domicilio", "PERIODO DE FACTURACIÓN: 27/04/2026 - 31/05/2026",
        "Nº FACTURA: 21260608010256253", "DIAS FACTURADOS: 34",
        "FECHA DE EMISIÓN: 8 de junio de 2026"]
    found = extract(["\n".join(lines)]).values
    assert found["invoice_number"] == "21260608010256253" and str(found["date"]) == "2026-06-08"


@pytest.mark.parametrize(("heads", "cells"), [
    ("Invoice Date: Note: Total:", "01/02/2026 see below"),  # fewer values than labels
    ("Notes: Remarks:", "12 boxes 3 pallets"),  # no date or number label
    ("Invoice No: 12", "5 6"),  # the row does not end in a label
])
def test_rows_that_are_no_colon_labels_over_values_stay(heads: str, cells: str) -> None:
    assert pair_header_rows([heads, cells]) == [heads, cells]


def test_labels_with_colons_whose_values_follow_past_another_column() -> None:
    # a cloud provider's invoice: its labels, another column's "Team ID" and value, then the
    # values of the labels in their order
    lines = ["Summary", "Invoice number:", "Date of issue:", "Payment due on:", "Team ID",
             "do:team:a9d0abb1-1ba5-4b88-af01-0f938050a157", "509772997", "April 1, 2025",
             "April 15, 2025", "Subtotal"]
    assert pair_label_columns(lines) == [
        "Summary", "Invoice number: 509772997", "Date of issue: April 1, 2025",
        "Payment due on: April 15, 2025", "Team ID",
        "do:team:a9d0abb1-1ba5-4b88-af01-0f938050a157", "Subtotal"]
    text = "DigitalOcean LLC\nFinal invoice\n" + "\n".join(lines) + "\nTotal due $12.00"
    assert extract([text]).values["invoice_number"] == "509772997"


def test_labels_with_colons_and_no_values_near_are_left_alone() -> None:
    lines = ["Invoice number:", "Date of issue:", "Payment due on:", "Team ID", "Notes",
             "Thank you", "Summary", "509772997", "April 1, 2025", "April 15, 2025"]
    assert pair_label_columns(lines) == lines


def test_an_ocr_rulings_empty_cell_and_a_numero_sign_do_not_stop_a_header_row() -> None:
    # a scan: "N° de facture" is a label, and the table's ruling read as a cell of its own
    got = pair_header_rows(["N° de facture | Date | Votre commande | | Date de prestation | Échéance",
                            "FA-2023-0219 | 17/02/2023 | BC-7781 du 30/01/2023 | 09/02/2023 | "
                            "19/03/2023"])
    assert got[:2] == ["N° de facture: FA-2023-0219", "Date: 17/02/2023"]


def test_a_table_of_several_rows_under_its_headings_is_no_header_row() -> None:
    # the invoices a reminder lists: the first of them is not the reminder's number and date
    rows = ["Rechnungs-Nr. | Rechnungsdatum | Fällig am | Betrag",
            "RE-2026-0871 | 15.07.2026 | 14.08.2026 | 3.840,00 €",
            "RE-2026-0902 | 29.07.2026 | 28.08.2026 | 1.296,00 €"]
    assert pair_header_rows(rows) == rows


def test_a_date_label_among_address_headings_keeps_both_rows() -> None:
    rows = ["Invoice date / Tax point | Billing address | Delivery address",
            "09 March 2021 | Mr Owen Prichard | Mr Owen Prichard"]
    assert pair_header_rows(rows) == ["Invoice date: 09 March 2021", *rows]
