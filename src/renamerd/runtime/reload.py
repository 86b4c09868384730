"""Reloading the config in a running process (SIGHUP, `renamerd reload`, `systemctl reload`).

The file is read again; what can change live is applied to the process's one `Settings` object,
which the daemon's parts (scheduler, poller, workers, connector pool, notifications) and the API
share, and every change is logged; what cannot is logged as kept until a restart and keeps its
old value. A live section is updated *in place*, field by field: a service that was handed the
section object (`Credits(db, settings.credits)`, the fetcher's `settings.fetch`, ...) reads the
new values on its next use. Running jobs are not touched: a batch finishes with the connector it
started with, and the next claim uses the new settings. A file that does not load leaves
everything as it was.

=============================  =========================================================
changes live                   connections (added, removed, changed: polls rescheduled,
                               connectors reopened), limits (values), logging, engine
                               (but its workers and memory_limit_mb), credits, fetch, tokens,
                               mail, notify, web, providers
kept until a restart           server (address, port, timeouts, proxies, metrics), database,
                               daemon (workers, state folder, leases), secrets, oauth,
                               limits.storage_url, engine.workers, engine.memory_limit_mb
=============================  =========================================================

Every top-level setting is in exactly one of `LIVE`, `RESTART` or is `connections`; one that
is in neither (a section added later) is reported as kept until a restart, never as unchanged.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from renamerd.config import Settings

log = logging.getLogger("renamerd.reload")

#: sections applied live
LIVE = ("limits", "logging", "engine", "credits", "fetch", "tokens", "mail", "notify", "web",
        "providers")
#: keys of live sections that keep their old value until a restart (the rate limits' storage;
#: the engine's worker processes, started once with their count and memory ceiling)
RESTART_KEYS: dict[str, tuple[str, ...]] = {
    "limits": ("storage_url",), "engine": ("workers", "memory_limit_mb")}
#: sections that keep their old value until a restart
RESTART = ("server", "database", "daemon", "secrets", "oauth")
#: top-level fields that are not settings of a section
_NOT_SECTIONS = ("connections", "source_file")


@dataclass
class ReloadPlan:
    """What differs between the running settings and the file's."""

    live: list[str] = field(default_factory=list)
    restart: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    @property
    def connections_changed(self) -> bool:
        return bool(self.added or self.removed or self.changed)


def plan(old: Settings, new: Settings) -> ReloadPlan:
    """The differences, section by section and connection by connection. Pure."""
    out = ReloadPlan()
    for section in LIVE:
        kept = RESTART_KEYS.get(section, ())
        was, now = getattr(old, section), getattr(new, section)
        out.restart += [f"{section}.{key}" for key in kept
                        if getattr(was, key) != getattr(now, key)]
        if _values(was, kept) != _values(now, kept):
            out.live.append(section)
    others = [name for name in type(old).model_fields
              if name not in LIVE and name not in _NOT_SECTIONS]  # RESTART, and any new one
    out.restart += [s for s in others if getattr(old, s) != getattr(new, s)]
    before = {c.name: c for c in old.connections}
    after = {c.name: c for c in new.connections}
    out.added = sorted(set(after) - set(before))
    out.removed = sorted(set(before) - set(after))
    out.changed = sorted(n for n in set(before) & set(after) if before[n] != after[n])
    return out


def _values(section: Any, without: tuple[str, ...]) -> Any:
    """A section's values to compare, leaving out the keys in `without`."""
    if isinstance(section, BaseModel):
        return section.model_dump(exclude=set(without))
    return section


def apply(running: Settings, new: Settings, what: ReloadPlan) -> None:
    """Copy the live sections and the connections of `new` onto `running`, in place: each live
    section object of `running` keeps its identity and takes the new values, so every part
    holding `running`, or one of its sections, sees them. `RESTART_KEYS` keep their values."""
    for section in what.live:
        current, fresh = getattr(running, section), getattr(new, section)
        if not isinstance(current, BaseModel):
            setattr(running, section, fresh)
            continue
        kept = RESTART_KEYS.get(section, ())
        for key in type(current).model_fields:
            if key not in kept:
                setattr(current, key, getattr(fresh, key))
    running.connections = list(new.connections)


def describe(what: ReloadPlan) -> list[str]:
    """The log lines of a reload, one per change."""
    lines = [f"connection {n!r} added" for n in what.added]
    lines += [f"connection {n!r} removed" for n in what.removed]
    lines += [f"connection {n!r} changed" for n in what.changed]
    lines += [f"[{s}] changed: applied" for s in what.live]
    if what.restart:
        lines.append("changed but kept until a restart: " + ", ".join(
            f"[{s}]" if "." not in s else s for s in what.restart))
    if not lines:
        lines.append("nothing changed")
    return lines
