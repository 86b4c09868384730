"""`Worker.run_batch`: several claimed jobs share their two transactions, and each keeps the
guarantees of `run_job` (names, credits, leases, crashes), on both databases."""

from __future__ import annotations

import pytest

from renamerd.runtime.worker_threads import BatchPace
from renamerd.service import jobs as J
from renamerd.service.credits import Credits
from renamerd.service.journal import Journal

from .conftest import Rig
from .fakes import doc
from .test_worker import Crash, charge


def _leave_credits(rig: Rig, n: int) -> None:
    lot = Credits(rig.db).lots(rig.owner.id)[0]
    with rig.db.write_session() as s:
        lot.remaining = n
        s.add(lot)


def test_a_batch_renames_charges_and_journals_each_job(rig: Rig) -> None:
    for i in range(5):
        rig.drive.put(f"/inbox/{i}.pdf", doc("2024-03-01", "Acme"))  # all want one name
    rig.drive.put("/inbox/broken.pdf", b"BROKEN")
    assert rig.poll() == 6
    claimed = rig.queue.claim("w1", limit=10)
    assert len(claimed) == 6
    outcomes = rig.worker.run_batch(claimed)
    assert sorted(outcomes) == [J.DONE] * 5 + [J.SKIPPED]
    assert rig.drive.listing("/library/2024/invoice") == [
        "2024-03-01_Acme (2).pdf", "2024-03-01_Acme (3).pdf", "2024-03-01_Acme (4).pdf",
        "2024-03-01_Acme (5).pdf", "2024-03-01_Acme.pdf"]
    assert rig.drive.listing("/inbox") == ["broken.pdf"]
    done = rig.queue.find(state=J.DONE)
    assert all(charge(rig, j.id or 0) == "charged" for j in done)
    assert Credits(rig.db).balance(rig.owner.id) == 95
    journal = Journal(rig.db)
    assert all((e := journal.for_job(j.id or 0)) is not None and e.new_path == j.dest_path
               for j in done)
    assert rig.poll() == 0


def test_an_owner_running_out_mid_batch_parks_only_the_rest(rig: Rig) -> None:
    _leave_credits(rig, 3)
    for i in range(5):
        rig.drive.put(f"/inbox/{i}.pdf", doc(f"2024-01-0{i + 1}", "Acme"))
    rig.poll()
    outcomes = rig.worker.run_batch(rig.queue.claim("w1", limit=5))
    assert outcomes == [J.DONE] * 3 + [J.PENDING_CREDITS] * 2
    assert Credits(rig.db).balance(rig.owner.id) == 0
    pending = rig.queue.find(state=J.PENDING_CREDITS)
    assert len(pending) == 2 and all(charge(rig, j.id or 0) is None for j in pending)
    assert len(rig.drive.listing("/inbox")) == 2


def test_a_lost_lease_in_a_batch_drops_that_job_only(rig: Rig) -> None:
    for i in range(3):
        rig.drive.put(f"/inbox/{i}.pdf", doc(f"2024-02-0{i + 1}", "Acme"))
    rig.poll()
    claimed = rig.queue.claim("w1", limit=3)
    rig.clock.advance(31)  # every lease runs out; another worker takes the second job
    job_id = claimed[1][1].job_id
    for _, lease in (claimed[0], claimed[2]):  # w1's other two leases are extended (beats)
        assert rig.queue.heartbeat(lease)
    ((_, other),) = rig.queue.claim("w2", limit=1)
    assert other.job_id == job_id
    assert rig.worker.run_batch(claimed) == [J.DONE, "lost", J.DONE]
    assert rig.queue.get(job_id).state == J.RUNNING  # w2's to finish
    assert charge(rig, job_id) is None


def test_a_crash_between_moves_is_reconciled_job_by_job(rig: Rig) -> None:
    for i in range(3):
        rig.drive.put(f"/inbox/{i}.pdf", doc(f"2024-04-0{i + 1}", "Acme"))
    rig.poll()
    rig.drive.inject("move", Crash(), after=1)  # the second move dies with the process
    claimed = rig.queue.claim("w1", limit=3)
    with pytest.raises(Crash):
        rig.worker.run_batch(claimed)
    assert all(charge(rig, lease.job_id) == "reserved" for _, lease in claimed)
    rig.clock.advance(31)
    assert sorted(rig.run_all("w2")) == [J.DONE] * 3
    assert len(rig.drive.listing("/library/2024/invoice")) == 3
    assert rig.drive.listing("/inbox") == []
    assert all(charge(rig, lease.job_id) == "charged" for _, lease in claimed)
    assert Credits(rig.db).balance(rig.owner.id) == 97


def test_batch_pace_sizes_batches_by_job_time() -> None:
    pace = BatchPace(target_s=0.1, most=16)
    assert pace.size() == 1  # nothing known yet
    pace.learn(0.005, 1)
    assert pace.size() == 16  # 5 ms jobs: the cap
    for _ in range(20):
        pace.learn(2.0, 1)  # OCR: seconds per job
    assert pace.size() == 1
    for _ in range(60):
        pace.learn(0.2, 10)  # 20 ms per job
    assert pace.size() == 5


def test_batch_pace_trusts_a_big_batch_more_than_one_slow_first_job() -> None:
    """A process's first document is slow (cold caches); the batches after it weigh by their
    number of jobs, so a stream of quick documents reaches full batches within a few claims."""
    pace = BatchPace(target_s=0.5, most=64)
    pace.learn(0.05, 1)  # the first document: 50 ms
    sizes = [pace.size()]
    for _ in range(4):
        pace.learn(sizes[-1] * 0.008, sizes[-1])  # then 8 ms each
        sizes.append(pace.size())
    assert sizes[0] == 10 and sizes[-1] == 62
    assert sizes == sorted(sizes)


def test_heartbeats_extend_every_tracked_lease_from_one_thread() -> None:
    """One thread beats for every running job; a job due sooner than the thread's next wake-up
    wakes it, a later one does not need to."""
    import threading
    import time

    from renamerd.runtime.worker import Heartbeats
    from renamerd.service import jobs as J

    beats: list[int] = []
    lock = threading.Lock()

    class Queue:
        def heartbeat(self, lease: J.Lease) -> bool:
            with lock:
                beats.append(lease.job_id)
            return lease.job_id != 3  # job 3's lease was taken over

    hb, queue = Heartbeats(), Queue()
    with hb.track(queue, J.Lease(1, "w", 1), 30.0):  # type: ignore[arg-type]
        time.sleep(0.2)  # the thread now sleeps until job 1 is due, 30 s away
        with hb.track(queue, J.Lease(2, "w", 1), 0.1), \
                hb.track(queue, J.Lease(3, "w", 1), 0.1) as lost:  # type: ignore[arg-type]
            deadline = time.monotonic() + 10
            while not ({2, 3} <= set(beats) and lost.lost) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert {2, 3} <= set(beats)
            with pytest.raises(J.LeaseLost):
                lost.check()
        assert 1 not in beats  # not due yet
    settled = len(beats)
    time.sleep(0.3)
    assert len(beats) == settled  # no beats once untracked
