"""How commands print what scripts read: JSON, one object per command."""

from __future__ import annotations

import json
from typing import Any

import click

from renamerd.service.accounts import TeamView
from renamerd.storage.models import ApiToken, User


def user_json(user: User) -> dict[str, Any]:
    return {"id": user.id, "email": user.email, "name": user.name, "admin": user.is_admin,
            "disabled": user.disabled}


def iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def token_json(token: ApiToken) -> dict[str, Any]:
    return {
        "id": token.id, "label": token.label, "hint": token.hint + "…",
        "created_at": iso(token.created_at), "last_used_at": iso(token.last_used_at),
        "revoked_at": iso(token.revoked_at), "expires_at": iso(token.expires_at),
    }


def team_json(view: TeamView) -> dict[str, Any]:
    return {
        "id": view.team.id, "name": view.team.name,
        "members": [user_json(u) for u in view.members],
    }


def emit(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))
