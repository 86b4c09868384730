"""Fair turns at the engine's workers between accounts, for API renames.

Without it, the engine pool serves renames first come, first served: an account that keeps six
slow documents queued (issue 14's attack) makes everybody else's one-page invoice wait behind
them. `EngineTurns` hands out at most `capacity` turns at once (the pool's workers), at most
`per_user` (all but one worker) to one account, and, when a turn frees, gives it to the waiting
account holding the fewest (first come first within an account). With one account attacking,
an honest client's rename finds a worker free; with several, it waits for at most one document.
The price: one account alone uses `engine.workers - 1` workers for its API renames.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass(order=True)
class _Waiter:
    held: int
    arrival: int
    user: str = field(compare=False)
    future: asyncio.Future[None] = field(compare=False)


class EngineTurns:
    """`async with turns.turn(user_id): ...` around each engine call. One event loop."""

    def __init__(self, capacity: int, per_user: int | None = None) -> None:
        self.capacity = max(1, capacity)
        #: every worker but one: whoever comes next finds one free
        self.per_user = per_user if per_user is not None else max(1, self.capacity - 1)
        self._held: dict[str, int] = {}
        self._busy = 0
        self._waiting: list[_Waiter] = []
        self._arrivals = itertools.count()

    @asynccontextmanager
    async def turn(self, user: str) -> AsyncIterator[None]:
        """Wait for a turn for `user`, hold it for the block. Cancelling while waiting is safe."""
        if not self._may_start(user):
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            waiter = _Waiter(self._held.get(user, 0), next(self._arrivals), user, future)
            self._waiting.append(waiter)
            try:
                await future
            except BaseException:
                if waiter in self._waiting:
                    self._waiting.remove(waiter)
                elif future.done() and not future.cancelled():
                    self._release(user)  # granted as we were cancelled: give it back
                raise
        else:
            self._take(user)
        try:
            yield
        finally:
            self._release(user)

    def _may_start(self, user: str) -> bool:
        if self._busy >= self.capacity:
            return False
        return self._held.get(user, 0) < self.per_user

    def _take(self, user: str) -> None:
        self._busy += 1
        self._held[user] = self._held.get(user, 0) + 1

    def _release(self, user: str) -> None:
        self._busy -= 1
        self._held[user] -= 1
        if not self._held[user]:
            del self._held[user]
        self._grant()

    def _grant(self) -> None:
        """Give free turns to waiters: fewest turns held first, then first come."""
        self._waiting = [w for w in self._waiting if not w.future.done()]  # cancelled
        while self._waiting and self._busy < self.capacity:
            for w in self._waiting:
                w.held = self._held.get(w.user, 0)
            self._waiting.sort()
            chosen = next((w for w in self._waiting if w.held < self.per_user), None)
            if chosen is None:
                return
            self._waiting.remove(chosen)
            self._take(chosen.user)
            chosen.future.set_result(None)
