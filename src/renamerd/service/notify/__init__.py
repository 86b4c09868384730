"""Notifications: telling users, without them looking, that their jobs wait for credits, that a
connection needs new consent or keeps failing, and (weekly, optionally) what was renamed.

By e-mail through the configured SMTP server (`[mail]`) and by a signed webhook
(`[notify] webhook_url`); each delivery is retried with backoff. At most one message per kind,
user and UTC day: the `notifications_sent` row is claimed before sending, so processes and
restarts never repeat one. Each kind has its `[notify]` switch; a user can opt out of a kind
(`set_opt_out`).

Modules: `notifier` (who gets what, once a day), `messages` (the words), `mail` and `webhook`
(the channels), `ledger` (the day's claims and the opt-outs), `retry` (the backoff).
"""

from renamerd.service.notify.ledger import opted_out, set_opt_out
from renamerd.service.notify.messages import KINDS
from renamerd.service.notify.notifier import Notifier

__all__ = ["KINDS", "Notifier", "opted_out", "set_opt_out"]
