"""Daemon processes beat; the ones silent for a minute are not alive."""

from __future__ import annotations

from daemon.fakes import Clock
from renamerd.service.processes import ProcessRegistry
from renamerd.storage.database import Database


def test_processes_alive_by_their_last_beat(db: Database) -> None:
    clock = Clock()
    registry = ProcessRegistry(db, now=clock)
    registry.beat("a:1", started_at=clock(), workers=2, polling=True)
    clock.advance(30)
    registry.beat("b:2", started_at=clock(), workers=4, polling=False)
    assert [p.identity for p in registry.alive()] == ["a:1", "b:2"]
    clock.advance(45)
    assert [p.identity for p in registry.alive()] == ["b:2"]
    registry.beat("a:1", started_at=clock(), workers=2, polling=True)
    assert {p.identity for p in registry.alive()} == {"a:1", "b:2"}
    registry.gone("a:1")
    registry.gone("a:1")
    assert [(p.identity, p.workers, p.polling) for p in registry.alive()] == [("b:2", 4, False)]
    clock.advance(2 * 86400)
    registry.beat("c:3", started_at=clock(), workers=1, polling=True)  # forgets b:2
    assert [p.identity for p in registry.alive(within_s=10**7)] == ["c:3"]
