"""The words of each notification kind: a subject and a plain-text body for e-mail, and the
same facts as data for the webhook."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: pending_credits: jobs wait for credits; connection_stopped: a connection needs new consent;
#: connection_failing: a connection's polls keep failing; digest: the week's renames
KINDS = ("pending_credits", "connection_stopped", "connection_failing", "digest")


@dataclass(frozen=True)
class Message:
    kind: str
    subject: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)


def build(kind: str, facts: dict[str, Any], base_url: str) -> Message:
    """The message of `kind` from its `facts` (see each builder for the keys it reads).
    Raises ValueError for an unknown kind."""
    builders = {"pending_credits": _pending_credits, "connection_stopped": _connection_stopped,
                "connection_failing": _connection_failing, "digest": _digest}
    if kind not in builders:
        raise ValueError(f"unknown notification kind {kind!r} (known: {', '.join(KINDS)})")
    subject, lines = builders[kind](facts)
    footer = ["", f"-- renamerd at {base_url}",
              "You get at most one message of this kind a day."]
    return Message(kind, subject, "\n".join([*lines, *footer]) + "\n", dict(facts))


def _pending_credits(f: dict[str, Any]) -> tuple[str, list[str]]:
    count = int(f.get("pending", 1))
    docs = "document waits" if count == 1 else "documents wait"
    return (f"renamerd: {count} {docs} for credits", [
        f"{count} {docs} to be renamed: your credits ran out (balance {f.get('credits', 0)}).",
        "They are renamed as soon as credits are added: nothing is lost meanwhile.",
    ])


def _connection_stopped(f: dict[str, Any]) -> tuple[str, list[str]]:
    name = f.get("connection", "?")
    return (f"renamerd: connection {name} needs you to sign in again", [
        f"The provider ({f.get('provider', '?')}) refused the connection {name}'s credentials:",
        f"  {f.get('error', '')}",
        "Its documents wait until the account is connected again (Reconnect in the web app,",
        f"or `renamerd connect {f.get('provider', 'PROVIDER')} --connection {name}`).",
    ])


def _connection_failing(f: dict[str, Any]) -> tuple[str, list[str]]:
    name = f.get("connection", "?")
    return (f"renamerd: connection {name} keeps failing", [
        f"The last {f.get('failures', '?')} looks at connection {name} "
        f"({f.get('provider', '?')}) failed; the last error:",
        f"  {f.get('error', '')}",
        "renamerd keeps trying; new documents there are not picked up until it works again.",
    ])


def _digest(f: dict[str, Any]) -> tuple[str, list[str]]:
    count = int(f.get("renamed", 0))
    names: list[str] = list(f.get("names", []))
    lines = [f"renamerd renamed and filed {count} document{'s' if count != 1 else ''} for you "
             f"in the last 7 days (balance now {f.get('credits', 0)} credits)."]
    if names:
        lines += ["", *[f"  {n}" for n in names]]
        if count > len(names):
            lines.append(f"  ... and {count - len(names)} more")
    return (f"renamerd: {count} document{'s' if count != 1 else ''} renamed this week", lines)
