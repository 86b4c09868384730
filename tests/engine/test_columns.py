"""Labels and values drawn as two columns (engine/fields/columns.py)."""

from __future__ import annotations

from renamerd.engine.fields import extract
from renamerd.engine.fields.columns import pair_label_columns

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
