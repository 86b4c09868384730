"""E-mail through the configured SMTP server (`[mail]`): one message, retried with backoff on
transient failures (connection trouble, 4xx replies)."""

from __future__ import annotations

import smtplib
import socket
import ssl
import time
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from renamerd.config import MailSettings
from renamerd.connectors import ConfigError, resolve_secret
from renamerd.service.notify.retry import PermanentFailure, TransientFailure, with_retries


def sender(settings: MailSettings) -> str:
    return settings.from_ or f"renamerd@{socket.getfqdn()}"


def send_mail(settings: MailSettings, to: str, subject: str, text: str, *, retries: int = 3,
              backoff_s: float = 2.0, sleep: Callable[[float], None] = time.sleep) -> None:
    """Send one plain-text message to `to`. Raises PermanentFailure (refused, bad settings) or
    TransientFailure (still failing after `retries`). Not idempotent: each call sends."""
    message = EmailMessage()
    message["From"] = sender(settings)
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=False, usegmt=True)
    message["Message-ID"] = make_msgid(domain=sender(settings).rsplit("@", 1)[-1])
    message.set_content(text)
    with_retries(lambda: _send_once(settings, message), retries=retries, backoff_s=backoff_s,
                 what=f"mail to {settings.host}", sleep=sleep)


def _send_once(settings: MailSettings, message: EmailMessage) -> None:
    try:
        with _session(settings) as smtp:
            smtp.send_message(message)
    except smtplib.SMTPRecipientsRefused as err:
        codes = [code for code, _msg in err.recipients.values()]
        raise (TransientFailure if all(400 <= c < 500 for c in codes) else PermanentFailure)(
            f"recipient refused: {err.recipients}") from err
    except smtplib.SMTPResponseException as err:
        text = f"the server answered {err.smtp_code} {_decode(err.smtp_error)}"
        raise (TransientFailure if 400 <= err.smtp_code < 500 else PermanentFailure)(text) \
            from err
    except ssl.SSLCertVerificationError as err:
        raise PermanentFailure(f"the server's certificate is not trusted: {err}") from err
    except (smtplib.SMTPServerDisconnected, smtplib.SMTPConnectError) as err:
        raise TransientFailure(f"{type(err).__name__}: {err}") from err
    except smtplib.SMTPException as err:  # STARTTLS missing, no AUTH offered, ...
        raise PermanentFailure(f"{type(err).__name__}: {err}") from err
    except OSError as err:  # refused, unreachable, timed out (SMTPException is one too)
        raise TransientFailure(f"{type(err).__name__}: {err}") from err


def _session(settings: MailSettings) -> smtplib.SMTP:
    """A connected, (STARTTLS-)encrypted and logged-in SMTP session, per the settings."""
    context = ssl.create_default_context()
    smtp: smtplib.SMTP
    if settings.ssl:
        smtp = smtplib.SMTP_SSL(settings.host, settings.port, timeout=settings.timeout_s,
                                context=context)
    else:
        smtp = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout_s)
    try:
        smtp.ehlo()
        if settings.starttls and not settings.ssl:
            smtp.starttls(context=context)
            smtp.ehlo()
        if settings.user:
            smtp.login(settings.user, _password(settings))
    except BaseException:
        smtp.close()
        raise
    return smtp


def _password(settings: MailSettings) -> str:
    try:
        return str(resolve_secret(settings.password, key="mail.password"))
    except ConfigError as err:
        raise PermanentFailure(str(err)) from err


def _decode(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def check_mail_server(settings: MailSettings) -> str | None:
    """Why the mail server cannot be used (no session, STARTTLS, login), or None. Sends no
    message."""
    try:
        with _session(settings) as smtp:
            smtp.noop()
    except (smtplib.SMTPException, OSError) as err:
        return f"{type(err).__name__}: {err}"
    except PermanentFailure as err:
        return str(err)
    return None
