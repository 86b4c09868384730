"""Job queue: idempotent enqueue, claim races, leases and fencing, backoff, pending credits.
Every test runs on SQLite and on PostgreSQL (the `db` fixture)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from daemon.fakes import Clock  # noqa: E402
from renamerd.config import CreditsSettings, DaemonSettings, Settings
from renamerd.connectors import RemoteFile
from renamerd.service import jobs as J
from renamerd.service.accounts import Accounts
from renamerd.service.credits import Credits
from renamerd.storage.database import Database
from renamerd.storage.models import Job


def rf(i: int, rev: str = "r1", path: str | None = None) -> RemoteFile:
    return RemoteFile(id=f"id{i}", path=path or f"/inbox/f{i}.pdf", name=f"f{i}.pdf", size=10,
                      revision=rev)


@pytest.fixture
def owner(db: Database) -> str:
    return Accounts(db, Settings(credits={"signup_grant": 0})).ensure_user("o@example.com").id


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def queue(db: Database, clock: Clock) -> J.JobQueue:
    return J.JobQueue(db, DaemonSettings(lease_s=30, max_attempts=3, retry_backoff_s=10),
                      CreditsSettings(), now=clock)


def test_enqueue_is_idempotent_per_file_revision(queue: J.JobQueue, owner: str) -> None:
    assert len(queue.enqueue_many("c", owner, [rf(1), rf(2)])) == 2
    assert queue.enqueue_many("c", owner, [rf(1), rf(2)]) == []
    assert queue.enqueue("c", owner, rf(1, rev="r2")) is not None  # new content: new job
    assert queue.enqueue("other", owner, rf(1)) is not None  # other connection
    assert queue.counts()[J.QUEUED] == 4


def test_enqueue_skips_files_the_daemon_moved_itself(queue: J.JobQueue, owner: str) -> None:
    (job,) = queue.enqueue_many("c", owner, [rf(1)])
    ((claimed, lease),) = queue.claim("w")
    queue.finish(lease, J.DONE, dest_path="/inbox/2024/x.pdf", dest_file_id="/inbox/2024/x.pdf")
    # a path-id provider (local) reports the moved file under its new path and id
    moved = RemoteFile(id="/inbox/2024/x.pdf", path="/inbox/2024/x.pdf", name="x.pdf", size=10,
                       revision="r1")
    assert queue.enqueue_many("c", owner, [moved]) == []
    # ... but a new file that merely has the same name with other content is new work
    other = RemoteFile(id="/inbox/2024/x.pdf", path="/inbox/2024/x.pdf", name="x.pdf", size=11,
                       revision="r9")
    assert len(queue.enqueue_many("c", owner, [other])) == 1


def test_claim_races_never_hand_out_a_job_twice(queue: J.JobQueue, owner: str) -> None:
    queue.enqueue_many("c", owner, [rf(i) for i in range(40)])
    seen: list[int] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def claimer(n: int) -> None:
        try:
            while True:
                got = queue.claim(f"w{n}", limit=2)
                if not got:
                    return
                with lock:
                    seen.extend(lease.job_id for _, lease in got)
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=claimer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(seen) == 40 and len(set(seen)) == 40
    assert queue.counts()[J.RUNNING] == 40


def test_expired_lease_is_reclaimed_and_the_stale_worker_is_fenced(
    queue: J.JobQueue, owner: str, clock: Clock
) -> None:
    queue.enqueue_many("c", owner, [rf(1)])
    ((_, old),) = queue.claim("w1")
    assert queue.claim("w2") == []  # lease still valid
    clock.advance(10)
    assert queue.heartbeat(old)  # extends to +30s from now
    clock.advance(31)
    ((job, new),) = queue.claim("w2")
    assert new.generation == old.generation + 1 and job.attempts == 2
    assert not queue.heartbeat(old)
    with pytest.raises(J.LeaseLost):
        queue.finish(old, J.DONE)
    with pytest.raises(J.LeaseLost):
        queue.retry_later(old, "x")
    assert queue.finish(new, J.DONE).state == J.DONE
    with pytest.raises(J.LeaseLost):  # finishing twice is refused too
        queue.finish(new, J.FAILED)


def test_retries_back_off_exponentially_then_fail(queue: J.JobQueue, owner: str,
                                                  clock: Clock) -> None:
    queue.enqueue_many("c", owner, [rf(1)])
    delays = []
    for _ in range(2):
        ((_, lease),) = queue.claim("w")
        job = queue.retry_later(lease, "provider: 503")
        assert job.state == J.QUEUED
        delays.append((job.next_attempt_at - clock()).total_seconds())
        assert queue.claim("w") == []  # not due yet
        clock.advance(delays[-1])
    assert delays == [10.0, 20.0]
    ((_, lease),) = queue.claim("w")
    job = queue.retry_later(lease, "provider: 503")
    assert job.state == J.FAILED and "after 3 attempts" in (job.error or "")
    # a provider's Retry-After longer than the backoff wins
    queue.enqueue_many("c", owner, [rf(2)])
    ((_, lease),) = queue.claim("w")
    job = queue.retry_later(lease, "429", retry_after=600)
    assert (job.next_attempt_at - clock()).total_seconds() == 600


def test_manual_retry(queue: J.JobQueue, owner: str) -> None:
    queue.enqueue_many("c", owner, [rf(1), rf(2)])
    (a, la), (b, lb) = queue.claim("w", limit=2)
    queue.finish(la, J.FAILED, error="x")
    queue.finish(lb, J.SKIPPED, error="y")
    with pytest.raises(ValueError):
        queue.enqueue_many("c", owner, [rf(3)])
        ((_, l3),) = queue.claim("w")
        queue.retry(l3.job_id)  # running: refused
    assert queue.retry(la.job_id).state == J.QUEUED
    again = queue.retry_state(J.SKIPPED)
    assert [j.id for j in again] == [lb.job_id]
    assert queue.get(lb.job_id).attempts == 0
    with pytest.raises(J.JobNotFound):
        queue.retry(99999)


def test_grant_wakes_recent_pending_jobs_only(db: Database, queue: J.JobQueue, owner: str,
                                              clock: Clock) -> None:
    credits = Credits(db, CreditsSettings(resume_max_age_days=30))
    queue.enqueue_many("c", owner, [rf(1), rf(2)])
    leases = [lease for _, lease in queue.claim("w", limit=2)]
    for lease in leases:
        queue.finish(lease, J.PENDING_CREDITS, error="insufficient credits")
    with db.write_session() as s:  # the second job was created 31 days ago
        old = s.get(Job, leases[1].job_id)
        assert old is not None
        old.created_at = clock() - timedelta(days=31)
        s.add(old)
    J.jobs_available.clear()
    credits.grant(owner, 10)
    assert J.jobs_available.is_set()
    assert queue.get(leases[0].job_id).state == J.QUEUED
    assert queue.get(leases[1].job_id).state == J.PENDING_CREDITS
    credits.grant(owner, 10)  # repeating changes nothing for the old one
    assert queue.get(leases[1].job_id).state == J.PENDING_CREDITS
    assert queue.retry(leases[1].job_id).state == J.QUEUED


def test_enqueue_survives_a_concurrent_insert(queue: J.JobQueue, owner: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    queue.enqueue_many("c", owner, [rf(1), rf(2)])
    # another poller inserted 1 and 2 after our look-up: make the look-up see nothing
    from renamerd.service.jobs import queue as queue_module
    monkeypatch.setattr(queue_module, "_seen", lambda *args: (set(), set()))
    new = queue.enqueue_many("c", owner, [rf(1), rf(2), rf(3)])
    assert [j.file_id for j in new] == ["id3"]
    assert sum(queue.counts().values()) == 3


def test_live_leases_and_fenced_updates_of_many(queue: J.JobQueue, owner: str,
                                                clock: Clock) -> None:
    queue.enqueue_many("c", owner, [rf(1), rf(2), rf(3)])
    claimed = queue.claim("w1", limit=3)
    clock.advance(31)
    ((_, taken),) = queue.claim("w2", limit=1)  # one of them goes to another worker
    leases = [lease for _, lease in claimed]
    with queue.db.write_session() as s:
        live = queue.live_leases(s, leases)
        assert live == {lease.job_id for lease in leases} - {taken.job_id}
        mine = [(lease, job, {"planned_name": f"n{lease.job_id}.pdf"})
                for job, lease in claimed if lease.job_id in live]
        queue.update_fenced_many(s, mine)
    assert all(queue.get(lease.job_id).planned_name == f"n{lease.job_id}.pdf"
               for lease, _, _ in mine)
    assert queue.get(taken.job_id).planned_name is None
    # without the check, a lost lease is refused
    with pytest.raises(J.LeaseLost), queue.db.write_session() as s:
        queue.update_fenced_many(s, [(lease, job, {"state": J.DONE}) for job, lease in claimed])
    assert all(queue.get(lease.job_id).state == J.RUNNING for _, lease in claimed)


def test_claim_takes_expired_leases_first_then_queued_jobs_in_order(
        queue: J.JobQueue, owner: str, clock: Clock) -> None:
    queue.enqueue_many("c", owner, [rf(1)])
    ((dead, _),) = queue.claim("w1")  # its worker dies: the lease runs out
    clock.advance(31)
    queue.enqueue_many("c", owner, [rf(2), rf(3)])
    clock.advance(1)
    got = queue.claim("w2", limit=2)
    assert [job.file_id for job, _ in got] == ["id1", "id2"]
    assert got[0][0].attempts == 2 and got[0][1].generation == 2  # a new lease generation
    assert all(job.state == J.RUNNING and job.lease_owner == "w2" for job, _ in got)
    assert [job.file_id for job, _ in queue.claim("w2", limit=5)] == ["id3"]
    assert queue.get(dead.id or 0).lease_owner == "w2"


def test_a_sharing_claim_leaves_half_of_a_short_queue_to_other_workers(
        queue: J.JobQueue, owner: str) -> None:
    queue.enqueue_many("c", owner, [rf(i) for i in range(12)])
    assert len(queue.claim("w1", limit=4, share=True)) == 4  # 12 due: a full batch
    assert len(queue.claim("w2", limit=4, share=True)) == 4  # 8 due: still two batches
    # 4 due, fewer than two batches, and w1 is at work: half, rounded up
    assert len(queue.claim("w2", limit=4, share=True)) == 2
    assert len(queue.claim("w1", limit=4, share=True)) == 1  # w2 is at work: half of 2
    assert len(queue.claim("w1", limit=4, share=True)) == 1  # the last one
    assert queue.claim("w1", limit=4, share=True) == []
    assert queue.counts()[J.RUNNING] == 12


def test_a_sharing_claim_alone_takes_the_whole_end_of_a_burst(
        queue: J.JobQueue, owner: str, clock: Clock) -> None:
    """No other claimer holds a live lease: nobody would take the half left behind."""
    queue.enqueue_many("c", owner, [rf(i) for i in range(7)])
    queue.claim("w2")  # w2 took one and died: its lease runs out
    clock.advance(31)
    assert len(queue.claim("w1", limit=4, share=True)) == 4  # the expired one first
    assert len(queue.claim("w1", limit=4, share=True)) == 3  # its own jobs do not count
