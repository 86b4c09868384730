"""One rename asked for by a person (the v1 API; the web app's "Try it" page): count it, reserve
its credit, run the engine, then charge, or refund when anything failed.

    RenameRequests(credits, limiter, engine).rename(user_id, ref, data, filename, options)

Accounts take turns at the engine (`engine_turns`): one account's queue of slow documents does
not hold up everyone else's. The engine is an `EnginePool` (worker processes with a deadline and
a memory ceiling), or, for tests, a plain function run in a worker thread. Callers check the
request (size, type, options, idempotency) before; this module does what costs: the daily
count, the credit and the engine.
Blocking work (database, Redis, the engine) never runs on the event loop.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import anyio

from renamerd.engine.types import RenameOptions, RenameResult
from renamerd.runtime.engine_pool import EnginePool
from renamerd.runtime.engine_turns import EngineTurns
from renamerd.service.credits import Credits, InsufficientCredits
from renamerd.service.limits import RateLimiter

EngineFn = Callable[[bytes, str, RenameOptions, Any], RenameResult]


class RenameRequests:
    """The paid part of a rename request. Safe to share between requests and threads."""

    def __init__(self, credits: Credits, limiter: RateLimiter, engine: EnginePool | EngineFn,
                 engine_config: Any, *, threads: int = 4) -> None:
        """`engine`: the pool, or a function (tests) run in at most `threads` threads."""
        self.credits = credits
        self.limiter = limiter
        self.engine = engine
        self.engine_config = engine_config
        self._threads = threads
        self._thread_limit: anyio.CapacityLimiter | None = None
        self.turns = EngineTurns(engine.workers if isinstance(engine, EnginePool) else threads)

    async def rename(self, user_id: str, ref: str, data: bytes, filename: str,
                     options: RenameOptions,
                     on_quota: Callable[[Any], None] | None = None,
                     check: Callable[[RenameResult], object] | None = None) -> RenameResult:
        """Count the rename against the user's daily limit, wait for the account's turn at the
        engine, reserve one credit under `ref`, run the engine, and charge the credit (refund
        it when the engine kept the document's name: `result.renamed` False); returns the
        engine's result.

        `check(result)`, when given, runs before the charge: raising there refunds too.
        `on_quota(quota)` is called with the daily count once it is known (rate-limit headers),
        before a 402. Raises LimitExceeded (nothing counted or taken), InsufficientCredits
        (counted, nothing taken: on arrival when no credit is left, or when its turn comes
        and the credits went to the account's other requests), or what the engine raised
        (EngineTimeout, EngineOutOfMemory, EngineCrashed, EngineStopped, UnsupportedDocument,
        ...): then the credit is refunded, also when the caller is cancelled. A `ref` already
        charged is not charged again (idempotent per ref, like `Credits.reserve`)."""
        def count_and_check() -> tuple[Any, bool]:
            # one thread hop for both; the count comes first (a 429 takes no credit)
            quota = self.limiter.hit_rename(user_id)
            return quota, self._may_pay(user_id, ref)

        quota, payable = await anyio.to_thread.run_sync(count_and_check)
        if on_quota is not None:
            on_quota(quota)
        if not payable:
            raise InsufficientCredits("insufficient credits: the account has no credit left")
        reserved = False
        try:
            async with self.turns.turn(user_id):
                # (reserved when the engine's turn comes, not while waiting for it: a
                # reservation older than the engine's deadline is a killed process's, and the
                # sweep refunds it; a request waiting its turn is alive)
                await anyio.to_thread.run_sync(self.credits.reserve, user_id, ref)
                reserved = True
                result = await self._run_engine(data, filename, options)
            if check is not None:
                check(result)
        except BaseException:
            if reserved:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(functools.partial(
                        self.credits.refund, user_id, ref, reason="rename failed"))
            raise
        with anyio.CancelScope(shield=True):
            if result.renamed:
                await anyio.to_thread.run_sync(self.credits.commit, user_id, ref)
            else:  # the name was kept (the confidence policy): nothing is charged for it
                await anyio.to_thread.run_sync(functools.partial(
                    self.credits.refund, user_id, ref, reason="name kept"))
        return result

    def _may_pay(self, user_id: str, ref: str) -> bool:
        """A credit is left, or `ref` already holds one (a repeated request)."""
        if not self.credits.enabled or self.credits.balance(user_id) >= 1:
            return True
        return self.credits.charge_state(user_id, ref) in ("reserved", "charged")

    async def _run_engine(self, data: bytes, filename: str, options: RenameOptions
                          ) -> RenameResult:
        if isinstance(self.engine, EnginePool):
            return await self.engine.rename_async(data, filename, options, self.engine_config)
        if self._thread_limit is None:
            self._thread_limit = anyio.CapacityLimiter(self._threads)
        return await anyio.to_thread.run_sync(
            functools.partial(self.engine, data, filename, options, self.engine_config),
            limiter=self._thread_limit)
