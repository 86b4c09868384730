"""Reloading the config in a running process (SIGHUP, `renamerd reload`, `systemctl reload`).

The file is read again; what can change live is applied to the process's one `Settings` object,
which the daemon's parts (scheduler, poller, workers, connector pool, notifications) and the API
share, and every change is logged; what cannot is logged as needing a restart and keeps its old
value. Running jobs are not touched: a batch finishes with the connector it started with, and
the next claim uses the new settings. A file that does not load leaves everything as it was.

=============================  =========================================================
changes live                   connections (added, removed, changed: polls rescheduled,
                               connectors reopened), limits (values), logging, engine,
                               credits, fetch, tokens, mail, notify, web
needs a restart                server (address, port, timeouts, proxies, metrics), database,
                               daemon (workers, state folder, leases), secrets, oauth, limits'
                               storage_url
=============================  =========================================================
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from renamerd.config import Settings

log = logging.getLogger("renamerd.reload")

#: sections applied live
LIVE = ("limits", "logging", "engine", "credits", "fetch", "tokens", "mail", "notify", "web")
#: sections that keep their old value until a restart
RESTART = ("server", "database", "daemon", "secrets", "oauth")


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
        if getattr(old, section) != getattr(new, section):
            out.live.append(section)
    if old.limits.storage_url != new.limits.storage_url:
        out.restart.append("limits.storage_url")
    for section in RESTART:
        if getattr(old, section) != getattr(new, section):
            out.restart.append(section)
    before = {c.name: c for c in old.connections}
    after = {c.name: c for c in new.connections}
    out.added = sorted(set(after) - set(before))
    out.removed = sorted(set(before) - set(after))
    out.changed = sorted(n for n in set(before) & set(after) if before[n] != after[n])
    return out


def apply(running: Settings, new: Settings, what: ReloadPlan) -> None:
    """Copy the live sections and the connections of `new` onto `running` (in place: every part
    holding `running` sees them). The storage_url of limits stays as it was."""
    for section in what.live:
        value = getattr(new, section)
        if section == "limits":
            value = value.model_copy(update={"storage_url": running.limits.storage_url})
        setattr(running, section, value)
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
