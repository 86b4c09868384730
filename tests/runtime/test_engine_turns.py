"""Fair turns at the engine: an account with many renames queued does not hold up another's."""

from __future__ import annotations

import asyncio

import pytest

from renamerd.runtime.engine_turns import EngineTurns


def run(coro: object) -> None:
    asyncio.run(coro)  # type: ignore[arg-type]


def test_a_newcomer_gets_the_next_free_turn_before_an_attackers_queue() -> None:
    async def main() -> None:
        turns = EngineTurns(capacity=3)
        order: list[str] = []
        release = asyncio.Event()

        async def rename(user: str, tag: str) -> None:
            async with turns.turn(user):
                order.append(tag)
                await release.wait()

        attack = [asyncio.create_task(rename("attacker", f"a{i}")) for i in range(6)]
        await asyncio.sleep(0.01)
        assert order == ["a0", "a1"]  # all workers but one...
        honest = asyncio.create_task(rename("honest", "h"))
        await asyncio.sleep(0.01)
        assert order == ["a0", "a1", "h"]  # ...the last one is free for the honest client
        release.set()
        await asyncio.gather(*attack, honest)
        assert sorted(order) == ["a0", "a1", "a2", "a3", "a4", "a5", "h"]
        assert turns._busy == 0

    run(main())


def test_one_account_alone_leaves_one_worker_free() -> None:
    async def main() -> None:
        turns = EngineTurns(capacity=3)
        inside = 0
        most = 0

        async def rename() -> None:
            nonlocal inside, most
            async with turns.turn("only"):
                inside += 1
                most = max(most, inside)
                await asyncio.sleep(0.02)
                inside -= 1

        await asyncio.gather(*(rename() for _ in range(9)))
        assert most == 2  # capacity - 1: one turn is kept for whoever comes next

    run(main())


def test_a_cancelled_waiter_gives_its_turn_back() -> None:
    async def main() -> None:
        turns = EngineTurns(capacity=1)
        gate = asyncio.Event()

        async def hold() -> None:
            async with turns.turn("a"):
                await gate.wait()

        holder = asyncio.create_task(hold())
        await asyncio.sleep(0)
        waiter = asyncio.create_task(hold())
        await asyncio.sleep(0.01)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        gate.set()
        await holder
        async with turns.turn("b"):  # nothing leaked
            assert turns._busy == 1

    run(main())
