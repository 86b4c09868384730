"""`renamerd jobs list|show|retry` and `renamerd undo ID|--batch B`, on both databases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clirun import run_cli
from daemon.fakes import doc, fake_engine
from renamerd.config import load_settings
from renamerd.runtime.worker import ConnectorPool, Worker
from renamerd.service import jobs as J
from renamerd.service.journal import record
from renamerd.storage.database import Database


@pytest.fixture
def env(db_url: str, tmp_path: Path) -> tuple[str, Path, Path]:
    inbox, library = tmp_path / "inbox", tmp_path / "library"
    inbox.mkdir()
    cfg = tmp_path / "renamerd.toml"
    cfg.write_text(
        f'[database]\nurl = "{db_url}"\n[daemon]\nstate_dir = "{tmp_path / "state"}"\n'
        f'[[connections]]\nname = "docs"\nprovider = "local"\nowner = "o@example.com"\n'
        f'watch = "{inbox}"\ntarget = "{library}"\n'
        f'[connections.options]\nstable_checks = 1\n'
    )
    return str(cfg), inbox, library


def process_inbox(cfg: str, engine: Any = fake_engine) -> Database:
    """What the daemon does, in-process: poll once, run every job (with the test engine)."""
    from renamerd.service.accounts import Accounts

    settings = load_settings(cfg)
    db = Database(settings.database.url)
    db.upgrade()
    owner = Accounts(db, settings).ensure_user("o@example.com")
    queue = J.JobQueue(db, settings.daemon, settings.credits)
    pool = ConnectorPool(settings, db)
    conn = pool.get("docs")
    queue.enqueue_many("docs", owner.id, conn.changes(settings.connections[0].watch, None).files)
    worker = Worker(settings, db, queue, pool, engine=engine)
    while claimed := queue.claim("cli-test"):
        worker.run_job(*claimed[0])
    pool.close()
    return db


def test_jobs_list_show_retry_and_undo(env: tuple[str, Path, Path], capsys) -> None:
    cfg, inbox, library = env
    (inbox / "a.pdf").write_bytes(doc("2024-06-01", "Acme"))
    (inbox / "b.bin").write_bytes(b"BIN\x00")
    db = process_inbox(cfg)

    r = run_cli(capsys, "jobs", "list", "--config", cfg)
    assert r.code == 0 and "done" in r.out and "skipped" in r.out
    r = run_cli(capsys, "jobs", "list", "--state", "done", "--json", "--config", cfg)
    (done,) = json.loads(r.out)
    assert done["dest_path"] == str(library / "2024" / "invoice" / "2024-06-01_Acme.pdf")
    r = run_cli(capsys, "jobs", "list", "--connection", "nope", "--json", "--config", cfg)
    assert json.loads(r.out) == []

    r = run_cli(capsys, "jobs", "show", str(done["id"]), "--config", cfg)
    shown = json.loads(r.out)
    assert shown["journal"]["old_path"] == str(inbox / "a.pdf")
    assert shown["result"]["suggestedFilename"] == "2024-06-01_Acme.pdf"
    r = run_cli(capsys, "jobs", "show", "4242", "--config", cfg)
    assert r.code == 1 and "no job with id 4242" in r.err

    r = run_cli(capsys, "jobs", "retry", "--state", "skipped", "--config", cfg)
    assert r.code == 0 and "queued 1 job" in r.out
    r = run_cli(capsys, "jobs", "retry", str(done["id"]), "--config", cfg)
    assert r.code == 1 and "only failed, skipped, pending_credits" in r.err
    r = run_cli(capsys, "jobs", "retry", "--config", cfg)
    assert r.code == 2

    r = run_cli(capsys, "undo", str(done["id"]), "--config", cfg)
    assert r.code == 0, r.err
    assert (inbox / "a.pdf").read_bytes() == doc("2024-06-01", "Acme")
    assert not (library / "2024" / "invoice" / "2024-06-01_Acme.pdf").exists()
    r = run_cli(capsys, "undo", str(done["id"]), "--config", cfg)
    assert r.code == 1 and r.err.strip() == f"error: job {done['id']} is already undone"
    r = run_cli(capsys, "jobs", "list", "--state", "undone", "--json", "--config", cfg)
    assert [j["id"] for j in json.loads(r.out)] == [done["id"]]  # as the web app's Undo
    db.dispose()


def test_undo_batch_moves_back_without_overwriting(env: tuple[str, Path, Path], capsys) -> None:
    cfg, _inbox, _library = env
    work = Path(cfg).parent / "files"
    (work / "new").mkdir(parents=True)
    settings = load_settings(cfg)
    db = Database(settings.database.url)
    db.upgrade()
    with db.write_session() as s:
        for name in ("one", "two"):
            (work / "new" / f"{name}-renamed.pdf").write_bytes(name.encode())
            record(s, connection="", file_id=str(work / f"{name}.pdf"),
                   old_path=str(work / f"{name}.pdf"),
                   new_path=str(work / "new" / f"{name}-renamed.pdf"), batch="b1")
    (work / "two.pdf").write_bytes(b"someone else's")  # the old name is taken meanwhile

    r = run_cli(capsys, "undo", "--batch", "b1", "--config", cfg)
    assert r.code == 1 and "1 of 2 file(s) not moved back" in r.err
    assert (work / "one.pdf").read_bytes() == b"one"
    assert (work / "two.pdf").read_bytes() == b"someone else's"
    assert (work / "new" / "two-renamed.pdf").read_bytes() == b"two"
    (work / "two.pdf").unlink()
    r = run_cli(capsys, "undo", "--batch", "b1", "--config", cfg)  # only what is left
    assert r.code == 0 and r.out.count("moved back") == 1
    assert (work / "two.pdf").read_bytes() == b"two"
    r = run_cli(capsys, "undo", "--batch", "b1", "--config", cfg)
    assert r.code == 1 and "nothing to undo" in r.err
    db.dispose()


def test_a_kept_job_says_so_and_has_nothing_to_undo(env: tuple[str, Path, Path], capsys) -> None:
    from engine.docmaker import make_pdf
    from renamerd.engine import rename

    cfg, inbox, _library = env
    text = Path(cfg).read_text().replace('target = "', 'below_confidence = "keep"\ntarget = "')
    Path(cfg).write_text(text)
    (inbox / "Garden notes May.pdf").write_bytes(make_pdf(["plant tomatoes after the frost"]))
    db = process_inbox(cfg, engine=rename)
    r = run_cli(capsys, "jobs", "list", "--config", cfg)
    assert r.code == 0 and "done" in r.out
    assert str(inbox / "Garden notes May.pdf") in r.out
    assert "(kept its name: nothing could be read" in r.out and "no credit charged)" in r.out
    (job,) = json.loads(run_cli(capsys, "jobs", "list", "--json", "--config", cfg).out)
    assert job["result"]["kept"]["policy"] == "keep" and job["charge_ref"] is None
    r = run_cli(capsys, "undo", str(job["id"]), "--config", cfg)
    assert r.code == 1 and "no move to undo" in r.err
    assert (inbox / "Garden notes May.pdf").exists()
    db.dispose()
