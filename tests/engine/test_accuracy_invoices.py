"""Minimum accuracies on the generated invoices (tests/engine/invoices.py, issue 17): the held-out
part as drawn, and every invoice with its text blocks drawn in a shuffled order (a text layer
written table first, letterhead last, as some producers do)."""

from __future__ import annotations

from pathlib import Path

from engine.invoices import drawn_apart, invoices, split, write
from engine.test_accuracy import check
from renamerd.engine.evaluation import evaluate

AIMS = {"date": 0.97, "issuer": 0.95, "document_type": 0.97, "invoice_number": 0.97}


def test_held_out_invoices(tmp_path: Path) -> None:
    _tune, held = split(invoices())
    check(evaluate(write(tmp_path, held)), AIMS)


def test_invoices_whose_text_layer_is_drawn_out_of_order(tmp_path: Path) -> None:
    items = [drawn_apart(inv, seed=i) for i, inv in enumerate(invoices())]
    assert sum(a.lines != b.lines for a, b in zip(items, invoices(), strict=True)) > 100
    check(evaluate(write(tmp_path, items)), AIMS)
