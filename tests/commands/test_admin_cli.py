from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import run_cli
from renamerd.service.accounts import looks_like_token


@pytest.fixture
def cfg(db_url: str, tmp_path: Path) -> str:
    path = tmp_path / "renamerd.toml"
    path.write_text(f'[database]\nurl = "{db_url}"\n')
    return str(path)


def test_user_token_credit_team_workflow(cfg: str, capsys) -> None:
    r = run_cli(capsys, "users", "create", "ada@example.org", "--name", "Ada", "--config", cfg)
    assert r.code == 0, r.err
    user = json.loads(r.out)
    assert user["email"] == "ada@example.org" and user["name"] == "Ada" and user["id"]

    r = run_cli(capsys, "--config", cfg, "users", "create", "ada@example.org")
    assert r.code == 1 and "already exists" in r.err and "Traceback" not in r.err

    r = run_cli(capsys, "--config", cfg, "tokens", "create", "ada@example.org", "--label", "ci")
    assert r.code == 0
    token = r.out.strip().splitlines()[-1]
    assert looks_like_token(token)

    r = run_cli(capsys, "--config", cfg, "tokens", "list", "ada@example.org", "--json")
    (listed,) = json.loads(r.out)
    assert listed["label"] == "ci" and token not in r.out

    r = run_cli(capsys, "--config", cfg, "credits", "grant", "ada@example.org", "25",
                "--valid-days", "30", "--reason", "pilot")
    assert r.code == 0 and json.loads(r.out)["credits"] == 75

    r = run_cli(capsys, "--config", cfg, "credits", "show", "ada@example.org")
    shown = json.loads(r.out)
    assert shown["credits"] == 75
    assert {lot["source"] for lot in shown["lots"]} == {"signup", "grant"}

    r = run_cli(capsys, "--config", cfg, "tokens", "revoke", listed["id"])
    assert r.code == 0 and "revoked" in r.out

    assert run_cli(capsys, "--config", cfg, "teams", "create", "Ops").code == 0
    r = run_cli(capsys, "--config", cfg, "teams", "add-member", "Ops", "ada@example.org")
    assert [m["email"] for m in json.loads(r.out)["members"]] == ["ada@example.org"]
    r = run_cli(capsys, "--config", cfg, "teams", "remove-member", "Ops", "ada@example.org")
    assert json.loads(r.out)["members"] == []

    r = run_cli(capsys, "--config", cfg, "users", "list")
    assert "ada@example.org" in r.out


def test_errors_are_one_line_and_nonzero(cfg: str, capsys) -> None:
    for args in (
        ("tokens", "create", "nobody@example.org"),
        ("credits", "grant", "nobody@example.org", "5"),
        ("teams", "add-member", "Nope", "nobody@example.org"),
        ("tokens", "revoke", "tok_nope"),
    ):
        r = run_cli(capsys, "--config", cfg, *args)
        assert r.code == 1, args
        assert r.err.startswith("error: ") and len(r.err.strip().splitlines()) == 1
    r = run_cli(capsys, "--config", cfg, "credits", "grant", "a@b.c", "many")
    assert r.code == 2
