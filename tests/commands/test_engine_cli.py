"""`renamerd rename` (dry run, --json, --apply with journal and undo) and `renamerd eval`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlmodel import select

from clirun import run_cli
from engine.corpus import ALL_LANGS, samples, write_corpus
from engine.docmaker import make_pdf
from renamerd.storage.database import Database
from renamerd.storage.models import JournalEntry

INVOICE = ["Initech Solutions Ltd", "5 Side Street", "London EC1A 1BB", "", "INVOICE",
           "Invoice number: INV-77", "Invoice date: 01/02/2024", "Total: £120.00"]


@pytest.fixture
def cfg(db_url: str, tmp_path: Path) -> str:
    path = tmp_path / "renamerd.toml"
    path.write_text(f'[database]\nurl = "{db_url}"\n')
    return str(path)


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "scan1.pdf").write_bytes(make_pdf(INVOICE))
    (folder / "scan2.pdf").write_bytes(make_pdf(INVOICE))  # same document twice
    (folder / "notes.txt").write_text("not a document")
    return folder


def test_dry_run_changes_nothing(cfg: str, inbox: Path, capsys) -> None:
    r = run_cli(capsys, "rename", str(inbox), "--strategy", "by_date", "--config", cfg)
    assert r.code == 0, r.err
    assert "scan1.pdf -> 2024/2024-02-01_Initech-Solutions-Ltd_invoice_INV-77.pdf" in r.out
    assert "notes.txt: error:" in r.out
    assert sorted(p.name for p in inbox.iterdir()) == ["notes.txt", "scan1.pdf", "scan2.pdf"]


def test_json_output(cfg: str, inbox: Path, capsys) -> None:
    r = run_cli(capsys, "rename", str(inbox / "scan1.pdf"), "--json", "--template-mode",
                "custom", "--custom-template", "name it company then date, lowercase",
                "--config", cfg)
    assert r.code == 0, r.err
    (item,) = json.loads(r.out)
    assert item["suggestedFilename"] == "initech-solutions-ltd_2024-02-01.pdf"
    assert item["extractedInfo"]["invoice_number"] == "INV-77"
    assert item["instructions"]["rules"][0] == "name: issuer + date"


def test_apply_moves_journals_and_undo_restores(cfg: str, inbox: Path, tmp_path: Path,
                                                db_url: str, capsys) -> None:
    target = tmp_path / "archive"
    r = run_cli(capsys, "rename", str(inbox), "--apply", "--target", str(target),
                "--strategy", "by_issuer", "--config", cfg)
    assert r.code == 0, r.err
    folder = target / "Initech Solutions Ltd"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["2024-02-01_Initech-Solutions-Ltd_invoice_INV-77 (2).pdf",
                     "2024-02-01_Initech-Solutions-Ltd_invoice_INV-77.pdf"]  # never overwritten
    assert (inbox / "notes.txt").exists() and not (inbox / "scan1.pdf").exists()
    batch = r.out.strip().splitlines()[-1].split("--batch ")[1]
    db = Database(db_url)
    with db.session() as s:
        rows = s.exec(select(JournalEntry).where(JournalEntry.batch == batch)).all()
    db.dispose()
    assert len(rows) == 2 and all(row.connection == "" for row in rows)
    assert {Path(row.old_path).name for row in rows} == {"scan1.pdf", "scan2.pdf"}
    assert all(row.file_id == row.old_path for row in rows)

    r = run_cli(capsys, "undo", "--batch", batch, "--config", cfg)
    assert r.code == 0, r.err
    assert sorted(p.name for p in inbox.iterdir()) == ["notes.txt", "scan1.pdf", "scan2.pdf"]


def test_usage_errors(cfg: str, inbox: Path, capsys) -> None:
    r = run_cli(capsys, "rename", str(inbox), "--apply", "--config", cfg)
    assert r.code == 2 and "--target" in r.err
    r = run_cli(capsys, "rename", str(inbox / "missing.pdf"), "--config", cfg)
    assert r.code == 1 and "no such file" in r.err
    r = run_cli(capsys, "rename", str(inbox), "--strategy", "by_colour", "--config", cfg)
    assert r.code == 2


def test_eval_prints_accuracy_calibration_and_time(cfg: str, tmp_path: Path, capsys) -> None:
    corpus = write_corpus(tmp_path / "corpus", samples(per_language=1, seed=3))
    r = run_cli(capsys, "eval", str(corpus), "--config", cfg)
    assert r.code == 0, r.err
    assert "date" in r.out and "100.0%" in r.out and "median time per document" in r.out
    r = run_cli(capsys, "eval", str(corpus), "--json", "--config", cfg)
    report = json.loads(r.out)
    assert report["documents"] == 14 and report["fields"]["date"]["accuracy"] >= 0.9
    assert len(report["calibration"]) == 4
    r = run_cli(capsys, "eval", str(tmp_path), "--config", cfg)
    assert r.code == 1 and "truth.json" in r.err


def test_eval_reports_every_language_including_the_new_ones(cfg: str, tmp_path: Path,
                                                            capsys) -> None:
    corpus = write_corpus(tmp_path / "corpus",
                          samples(per_language=1, seed=3, languages=ALL_LANGS))
    r = run_cli(capsys, "eval", str(corpus), "--config", cfg)
    assert r.code == 0, r.err
    rows = {line.split()[0]: line for line in r.out.splitlines()[1:] if line.strip()}
    assert "per" in rows and "amount" in rows["per"]
    for code in ("ja", "zh-Hans", "zh-Hant", "ko", "ar", "hi", "id", "pt-BR", "en", "de"):
        assert code in rows, r.out
    r = run_cli(capsys, "eval", str(corpus), "--json", "--config", cfg)
    languages = json.loads(r.out)["languages"]
    assert len(languages) == 22
    assert languages["ja"]["date"]["accuracy"] == 1.0


def test_explain_shows_the_compiled_rules_and_what_was_not_understood(cfg: str,
                                                                      capsys) -> None:
    text = ("Use format YYYY-MM-DD - Company - Amount. Put invoices over 400 GBP in Big/ "
            "and everything else in Small/. Make it sparkle")
    r = run_cli(capsys, "rename", "--explain", "--custom-template", text, "--config", cfg)
    assert r.code == 0, r.err
    assert "if document_type = invoice and amount > 400 GBP -> folder 'Big'" in r.out
    assert "everything else -> folder 'Small'" in r.out
    assert "name: date + issuer + amount" in r.out
    assert "\"Make it sparkle\": not understood: 'sparkle'" in r.out
    r = run_cli(capsys, "rename", "--explain", "--json", "--custom-template", text,
                "--config", cfg)
    body = json.loads(r.out)
    assert body["instructions"]["notUnderstood"][0]["text"] == "Make it sparkle"
    assert body["results"] == []
    r = run_cli(capsys, "rename", "--explain", "--config", cfg)
    assert r.code == 2 and "--custom-template" in r.err


def test_keep_policy_leaves_doubtful_files_in_place(cfg: str, tmp_path: Path,
                                                    capsys) -> None:
    from engine.docmaker import make_pdf

    inbox = tmp_path / "notes"
    inbox.mkdir()
    (inbox / "Garden notes May.pdf").write_bytes(make_pdf(["plant tomatoes after the frost"]))
    target = tmp_path / "lib"
    r = run_cli(capsys, "rename", str(inbox), "--apply", "--target", str(target),
                "--below-confidence", "keep", "--config", cfg)
    assert r.code == 0, r.err
    assert (inbox / "Garden notes May.pdf").exists()
    r = run_cli(capsys, "rename", str(inbox), "--apply", "--target", str(target),
                "--config", cfg)
    assert (target / "Review" / "Garden notes May.pdf").exists(), r.out
