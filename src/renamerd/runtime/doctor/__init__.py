"""`renamerd doctor`: checks of a whole installation, one finding per check.

`run_checks(config_path)` reads the config the way every command does and checks, in order:
the config, the database (reachable, migrated to head), the secrets key (decrypts the stored
tokens), tesseract and the OCR languages asked for, the OCR backend, each connection's
credentials (one cheap provider call each), `server.public_url`, the mail server and the
webhook, and the free space and permissions of the state and database folders. Each check
is read-only and bounded in time; none creates a database.
"""

from renamerd.runtime.doctor.findings import ERROR, OK, WARNING, Finding
from renamerd.runtime.doctor.run import run_checks

__all__ = ["ERROR", "OK", "WARNING", "Finding", "run_checks"]
