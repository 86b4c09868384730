"""connector.py itself: Pacer, free_name, names and paths, option resolution, the registry."""

from __future__ import annotations

import io
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from renamerd.connectors import (
    AuthError,
    ConfigError,
    Conflict,
    Pacer,
    TooLarge,
    TransientError,
    available_providers,
    free_name,
    iter_chunks,
    join_path,
    load_connector,
    open_connector,
    resolve_options,
    split_name,
)
from renamerd.connectors import registry as connector_mod
from renamerd_connectors import memory


class FakeTime:
    """A clock that only moves when someone sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def flaky(failures: list[BaseException], result: str = "ok") -> tuple[list[int], object]:
    calls = [0]

    def fn() -> str:
        calls[0] += 1
        if failures:
            raise failures.pop(0)
        return result

    return calls, fn


def test_pacer_returns_first_success_without_sleeping() -> None:
    t = FakeTime()
    pacer = Pacer(sleep=t.sleep, clock=t.clock)
    calls, fn = flaky([])
    assert pacer.call(fn) == "ok"  # type: ignore[arg-type]
    assert calls == [1] and t.sleeps == []


def test_pacer_honours_retry_after() -> None:
    t = FakeTime()
    pacer = Pacer(sleep=t.sleep, clock=t.clock)
    calls, fn = flaky([TransientError("429", retry_after=7), TransientError("429", retry_after=2)])
    assert pacer.call(fn) == "ok"  # type: ignore[arg-type]
    assert calls == [3] and t.sleeps == [7, 2]


def test_pacer_backs_off_exponentially_with_jitter_and_cap() -> None:
    t = FakeTime()
    pacer = Pacer(sleep=t.sleep, clock=t.clock, backoff=1.0, max_sleep=10.0, retries=6)
    calls, fn = flaky([TransientError("503") for _ in range(6)])
    assert pacer.call(fn) == "ok"  # type: ignore[arg-type]
    assert calls == [7]
    for attempt, slept in enumerate(t.sleeps):
        base = 1.0 * 2**attempt
        assert min(base * 0.5, 10.0) <= slept <= min(base * 1.5, 10.0)
    assert t.sleeps[-1] == 10.0  # 32 s capped


def test_pacer_gives_up_after_retries() -> None:
    t = FakeTime()
    pacer = Pacer(sleep=t.sleep, clock=t.clock, retries=3)
    calls, fn = flaky([TransientError("500", retry_after=0) for _ in range(10)])
    with pytest.raises(TransientError):
        pacer.call(fn)  # type: ignore[arg-type]
    assert calls == [4]


def test_pacer_does_not_retry_other_errors() -> None:
    t = FakeTime()
    pacer = Pacer(sleep=t.sleep, clock=t.clock)
    calls, fn = flaky([AuthError("revoked")])
    with pytest.raises(AuthError):
        pacer.call(fn)  # type: ignore[arg-type]
    assert calls == [1] and t.sleeps == []


def test_pacer_keeps_min_sleep_between_calls() -> None:
    t = FakeTime()
    pacer = Pacer(min_sleep=0.25, sleep=t.sleep, clock=t.clock)
    for _ in range(4):
        pacer.call(lambda: None)
    assert t.sleeps == [0.25, 0.25, 0.25]  # the first call goes at once
    t.now += 5  # idle for a while: no wait
    pacer.call(lambda: None)
    assert t.sleeps == [0.25, 0.25, 0.25]


def test_pacer_retry_after_is_never_negative() -> None:
    t = FakeTime()
    pacer = Pacer(sleep=t.sleep, clock=t.clock)
    calls, fn = flaky([TransientError("429", retry_after=-3)])
    pacer.call(fn)  # type: ignore[arg-type]
    assert t.sleeps == [0.0]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("report.pdf", ("report", ".pdf")),
        ("report.final.pdf", ("report.final", ".pdf")),
        ("README", ("README", "")),
        (".hidden", (".hidden", "")),
    ],
)
def test_split_name(name: str, expected: tuple[str, str]) -> None:
    assert split_name(name) == expected


def test_join_path() -> None:
    assert join_path("/", "a.pdf") == "/a.pdf"
    assert join_path("", "a.pdf") == "/a.pdf"
    assert join_path("/x/y/", "a.pdf") == "/x/y/a.pdf"


@pytest.fixture
def mem() -> Iterator[memory.MemoryConnector]:
    conn = memory.MemoryConnector({"drive": "free-name-tests", "case_insensitive": True})
    yield conn
    memory.forget_drive("free-name-tests")


def test_free_name_numbering(mem: memory.MemoryConnector) -> None:
    d = mem.drive
    assert free_name(mem, "/lib", "a.pdf") == "a.pdf"
    d.put("/lib/a.pdf", b"1")
    d.put("/lib/a (2).pdf", b"2")
    d.put("/lib/A (3).PDF", b"3")  # case-insensitive drive: taken too
    assert free_name(mem, "/lib", "a.pdf") == "a (4).pdf"
    d.put("/lib/notes", b"x")
    assert free_name(mem, "/lib", "notes") == "notes (2)"


def test_free_name_skips_names_that_clashed(mem: memory.MemoryConnector) -> None:
    mem.drive.mkdir("/lib/report.pdf")  # a folder: invisible to stat_path, but it clashes
    folder = mem.ensure_folder("/lib")
    f_id = mem.drive.put("/inbox/report.pdf", b"r")
    name = free_name(mem, "/lib", "report.pdf")
    assert name == "report.pdf"
    with pytest.raises(Conflict):
        mem.move(f_id, folder, name)
    again = free_name(mem, "/lib", "report.pdf", skip=["REPORT.pdf"])  # case-insensitive drive
    assert again == "report (2).pdf"
    assert mem.move(f_id, folder, again).name == "report (2).pdf"


def test_free_name_gives_up(mem: memory.MemoryConnector) -> None:
    for n in range(1, 4):
        mem.drive.put(f"/lib/{'x.pdf' if n == 1 else f'x ({n}).pdf'}", b"")
    with pytest.raises(Conflict):
        free_name(mem, "/lib", "x.pdf", limit=3)


def test_resolve_options_env_and_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret\n")
    monkeypatch.setenv("MY_CLIENT_SECRET", "from-env")
    out = resolve_options({
        "client_secret": {"env": "MY_CLIENT_SECRET"},
        "refresh_token": {"file": str(secret)},
        "app_secret_file": str(secret),
        "service_account_file": "/etc/sa.json",
        "ca_bundle": "/etc/ca.pem",
        "page_size": 10,
    })
    assert out == {
        "client_secret": "from-env",
        "refresh_token": "s3cret",
        "app_secret": "s3cret",
        "service_account_file": "/etc/sa.json",
        "ca_bundle": "/etc/ca.pem",
        "page_size": 10,
    }


def test_resolve_options_errors_name_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="client_secret.*NOT_SET_VAR"):
        resolve_options({"client_secret": {"env": "NOT_SET_VAR"}})
    with pytest.raises(ConfigError, match="refresh_token_file"):
        resolve_options({"refresh_token_file": str(tmp_path / "missing")})


def test_registry() -> None:
    assert {"local", "memory"} <= set(available_providers())
    with pytest.raises(ConfigError, match="unknown provider 'box'"):
        load_connector("box")
    conn = open_connector("memory", {"drive": "registry-test"}, name="r", state_dir="")
    assert conn.provider == "memory"
    memory.forget_drive("registry-test")


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ("renamerd_connectors.ghost:Ghost", "module renamerd_connectors.ghost is missing"),
        ("renamerd_connectors.memory:Nothing", "does not exist"),
        ("renamerd_connectors.memory_sdk_probe:X", "missing"),
    ],
)
def test_registry_broken_entry_points(
    value: str, match: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ep = EntryPoint(name="ghost", value=value, group="renamerd.connectors")
    monkeypatch.setattr(connector_mod, "available_providers", lambda: {"ghost": ep})
    with pytest.raises(ConfigError, match=match):
        load_connector("ghost")


def test_registry_missing_sdk_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = tmp_path / "needs_sdk.py"
    pkg.write_text("import sdk_that_is_not_installed\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = EntryPoint(name="box", value="needs_sdk:Box", group="renamerd.connectors")
    monkeypatch.setattr(connector_mod, "available_providers", lambda: {"box": ep})
    with pytest.raises(ConfigError, match=r"pip install 'renamerd\[box\]'"):
        load_connector("box")


def test_iter_chunks_limit() -> None:
    buf = io.BytesIO()
    assert iter_chunks([b"ab", b"", b"cd"], buf, 4) == 4
    assert buf.getvalue() == b"abcd"
    with pytest.raises(TooLarge):
        iter_chunks([b"ab", b"cd", b"e"], io.BytesIO(), 4)
