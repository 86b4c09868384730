"""The words web/instructions.py says about instructions are what the engine does: the
naming rules apply under every strategy, the folder rules only under "As the instructions say"
(the pages send templateMode "custom" whenever there are instructions)."""

from __future__ import annotations

import pytest

from renamerd.engine import STRATEGIES, RenameOptions, rename
from renamerd.web.instructions import instruction_notes, misread_words

INSTRUCTIONS = "Use format YYYY-MM-DD - Company. Put invoices in Big/"


@pytest.fixture(scope="module")
def pdf_bytes() -> bytes:
    from engine.docmaker import make_pdf

    return make_pdf(["ACME GmbH", "Musterstrasse 1, 10115 Berlin", "", "Invoice",
                     "Invoice number: RE-1001", "Invoice date: 01.03.2024", "Total: 119,00 EUR"])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_notes_say_what_the_engine_does(strategy: str, pdf_bytes: bytes) -> None:
    result = rename(pdf_bytes, "scan.pdf", RenameOptions(
        strategy=strategy, template_mode="custom", custom_template=INSTRUCTIONS))
    assert result.suggested_filename.startswith("2024-03-01 - ACME GmbH")  # every strategy
    notes = instruction_notes(INSTRUCTIONS, strategy, llm=False)
    if strategy == "follow_custom_prompt":
        assert result.folder_path == "Big" and notes == []
    else:
        assert result.folder_path != "Big"
        assert len(notes) == 1 and "folder rules of these instructions are not used" in notes[0]
        assert "Their naming rules apply with every strategy" in notes[0]


def test_without_folder_rules_as_the_instructions_say_files_in_the_target_itself(
        pdf_bytes: bytes) -> None:
    for text in ("lowercase", ""):
        result = rename(pdf_bytes, "scan.pdf", RenameOptions(
            strategy="follow_custom_prompt", template_mode="custom" if text else "auto",
            custom_template=text or None))
        assert result.folder_path == ""
        (note,) = instruction_notes(text, "follow_custom_prompt", llm=False)
        assert note.endswith("every document goes into the target folder itself.")


@pytest.mark.parametrize(("text", "reason", "words"), [
    ("blah blah nonsense", "not understood: 'blah blah nonsense'", "“blah blah nonsense”"),
    ("frobnicate everything", "not understood: 'frobnicate'",
     "“frobnicate everything” (because of “frobnicate”)"),
    ("in Big/ and", "says which documents but not where they go (no folder named)",
     "“in Big/ and” (says which documents but not where they go (no folder named))"),
])
def test_a_part_not_understood_in_words(text: str, reason: str, words: str) -> None:
    assert misread_words(text, reason) == words
