"""The reload plan (runtime/reload.py): every setting is either applied live or reported as kept
until a restart, and live sections change in place, so the services holding them see the new
values. (A reload of a real process during a batch: tests/daemon/test_reload.py.)"""

from __future__ import annotations

from renamerd.config import LimitsSettings, Settings
from renamerd.runtime import reload as reloading
from renamerd.service.sign_in_limits import SignInThrottle


def test_every_setting_is_either_live_or_kept_until_a_restart() -> None:
    sections = set(Settings.model_fields) - {"connections", "source_file"}
    assert sections == set(reloading.LIVE) | set(reloading.RESTART)
    assert not set(reloading.LIVE) & set(reloading.RESTART)


def test_providers_added_by_a_reload_are_applied() -> None:
    old = Settings()
    new = Settings(providers={"dropbox": {"app_key": "k", "app_secret": "s"}})
    what = reloading.plan(old, new)
    assert what.live == ["providers"]
    assert reloading.describe(what) == ["[providers] changed: applied"]
    reloading.apply(old, new, what)
    assert old.providers == {"dropbox": {"app_key": "k", "app_secret": "s"}}


def test_a_live_section_changes_in_place_for_whoever_holds_it() -> None:
    running = Settings()
    fetch, web = running.fetch, running.web
    throttle = SignInThrottle(LimitsSettings(), running.web)
    new = Settings(fetch={"allow_networks": ["192.0.2.0/24"]}, web={"sign_in_attempts": 3})
    reloading.apply(running, new, reloading.plan(running, new))
    assert running.fetch is fetch and fetch.allow_networks == ["192.0.2.0/24"]
    assert running.web is web and throttle.pair.amount == 3
    throttle.close()


def test_keys_needing_a_restart_are_reported_and_kept() -> None:
    running = Settings()
    new = Settings(engine={"workers": 3, "memory_limit_mb": 64, "deadline_seconds": 5},
                   limits={"storage_url": "redis://x"}, daemon={"workers": 7})
    what = reloading.plan(running, new)
    assert what.live == ["engine"]
    assert set(what.restart) == {"engine.workers", "engine.memory_limit_mb",
                                 "limits.storage_url", "daemon"}
    reloading.apply(running, new, what)
    assert running.engine.deadline_seconds == 5
    assert (running.engine.workers, running.engine.memory_limit_mb) == (0, 1024)
    assert running.limits.storage_url == "" and running.daemon.workers == 2
    assert reloading.describe(what)[-1] == (
        "changed but kept until a restart: limits.storage_url, engine.workers, "
        "engine.memory_limit_mb, [daemon]")
    # only a restart key changed: the section is not "applied"
    what = reloading.plan(Settings(), Settings(engine={"workers": 3}))
    assert what.live == [] and what.restart == ["engine.workers"]
