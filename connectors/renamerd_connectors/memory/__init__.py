"""An in-memory connector: cloud-drive semantics without a network, for tests of the daemon.

Drives live in a process-wide registry, selected by the option ``drive`` (any name); every
connector opened on the same name sees the same files, like two clients of one account. A drive
behaves like the cloud providers: stable ids that survive a move, a change feed with an integer
cursor ("mem:<seq>") that also reports files moved into the watched folder, optional
case-insensitive names (option ``case_insensitive``), pages of ``page_size`` entries, each page
one "API call".

Tests reach behind the connector through the drive itself (`drive(name)`):

    d = memory.drive("t1", case_insensitive=True)
    d.put("/inbox/a.pdf", b"...")       # create or overwrite, parents made
    d.read("/lib/x.pdf"); d.listing("/lib"); d.delete("/inbox/a.pdf")
    d.faults.rate = 0.2                 # 20% of API calls raise TransientError (retried inside)
    d.inject("move", AuthError("revoked"), times=1)   # the next move fails so
    d.faults.total_calls                # API calls seen
    d.auth_required = True              # connectors then need a valid refresh_token option
    code = d.issue_code(); d.revoke(token)   # for `renamerd connect memory` and revocation tests

Modules: `drive.py` (the files, the change log, the registry of drives), `auth.py` (codes and
refresh tokens), `faults.py` (fault injection, call counts), `connector.py` (the protocol).

Changes: the drive logs every id it touches with a sequence number; the cursor "mem:<seq>" reads
the log after it, page by page. A cursor from elsewhere (or from a later sequence: a drive made
afresh) gives a full listing with `Changes.reset`.

Errors: the drive raises the protocol's own: `Conflict` for a taken name (in any case when the
drive is case-insensitive; never an overwrite), `NotFound`, and whatever a test injects
(`inject`, or `faults.rate` for `TransientError`s, retried by the connector's Pacer). With
`auth_required`, an unknown or revoked refresh token is `AuthError` on every call.

Options: ``drive`` (required), ``case_insensitive`` (bool, default false; fixed when the drive is
first created), ``page_size`` (default 500), ``min_sleep`` (pacer seconds between calls, default 0),
``refresh_token`` (checked only when the drive has ``auth_required``).
"""

from .connector import MemoryConnector
from .drive import MemoryDrive, drive, forget_drive
from .faults import MemoryFaults

__all__ = ["MemoryConnector", "MemoryDrive", "MemoryFaults", "drive", "forget_drive"]
