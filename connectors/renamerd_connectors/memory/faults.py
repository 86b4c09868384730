"""Fault injection and API-call counting for a memory drive."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class MemoryFaults:
    """Fault injection and call counting, shaped like `tests/emulators/base.Faults`."""

    rate: float = 0.0
    seed: int = 1234
    retry_after: float = 0.0
    calls: Counter[str] = field(default_factory=Counter)
    injected: Counter[str] = field(default_factory=Counter)
    _rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    def reset_counts(self) -> None:
        self.calls.clear()
        self.injected.clear()

    def decide(self, op: str) -> bool:
        """Count the call; True when it should fail."""
        self.calls[op] += 1
        if self.rate > 0 and self._rng.random() < self.rate:
            self.injected[op] += 1
            return True
        return False
