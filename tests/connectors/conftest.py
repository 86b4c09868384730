"""Make `from contract import ConnectorContract, Harness` work in provider test modules."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
