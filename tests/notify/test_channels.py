"""The two channels against real receivers: SMTP (aiosmtpd) and a webhook receiver that checks
the signature; each with an emulated failure to prove the retries."""

from __future__ import annotations

import pytest

from notify_servers import SmtpServer, WebhookReceiver
from renamerd.config import MailSettings, NotifySettings
from renamerd.service.notify.mail import check_mail_server, send_mail
from renamerd.service.notify.retry import PermanentFailure, TransientFailure
from renamerd.service.notify.webhook import check_webhook_address, deliver, sign

from .conftest import SECRET


def _mail(server: SmtpServer, **extra: object) -> MailSettings:
    values: dict[str, object] = {"host": server.host, "port": server.port, "starttls": False,
                                 "timeout_s": 5, "from": "renamerd@example.org", **extra}
    return MailSettings(**values)


def test_mail_arrives_and_a_451_is_retried(smtp: SmtpServer) -> None:
    smtp.fail_next = 1
    waits: list[float] = []
    send_mail(_mail(smtp), "ada@example.org", "renamerd: hello", "Body line\n", retries=3,
              backoff_s=0.5, sleep=waits.append)
    (message,) = smtp.messages
    assert smtp.failed == 1 and waits == [0.5]
    assert message["To"] == "ada@example.org" and message["Subject"] == "renamerd: hello"
    assert message["From"] == "renamerd@example.org" and "Body line" in message.get_payload()
    assert smtp.envelopes == [("renamerd@example.org", ["ada@example.org"])]


def test_mail_gives_up_after_its_retries(smtp: SmtpServer) -> None:
    smtp.fail_next = 5
    waits: list[float] = []
    with pytest.raises(TransientFailure, match="451"):
        send_mail(_mail(smtp), "ada@example.org", "s", "t", retries=2, backoff_s=1,
                  sleep=waits.append)
    assert waits == [1, 2] and smtp.failed == 3 and not smtp.messages


def test_mail_logs_in_with_a_password_from_the_environment(smtp_auth: SmtpServer,
                                                           monkeypatch) -> None:
    monkeypatch.setenv("SMTP_PW", "mail-pw")
    settings = _mail(smtp_auth, user="renamerd", password={"env": "SMTP_PW"})
    assert check_mail_server(settings) is None
    send_mail(settings, "ada@example.org", "s", "t")
    assert smtp_auth.logins == ["renamerd", "renamerd"] and len(smtp_auth.messages) == 1
    monkeypatch.setenv("SMTP_PW", "wrong")
    with pytest.raises(PermanentFailure, match="535"):
        send_mail(settings, "ada@example.org", "s", "t", sleep=lambda _s: None)
    assert "535" in (check_mail_server(settings) or "")


def test_mail_without_starttls_on_the_server_is_refused_clearly(smtp: SmtpServer) -> None:
    settings = _mail(smtp, starttls=True)
    with pytest.raises(PermanentFailure, match="STARTTLS"):
        send_mail(settings, "ada@example.org", "s", "t", sleep=lambda _s: None)
    assert "STARTTLS" in (check_mail_server(settings) or "")


def _hook(receiver: WebhookReceiver, **extra: object) -> NotifySettings:
    return NotifySettings(webhook_url=receiver.url, webhook_secret=SECRET,
                          webhook_allow_networks=["127.0.0.1/32"], **extra)


def test_webhook_is_signed_and_a_503_is_retried(webhook: WebhookReceiver) -> None:
    webhook.statuses = [503]
    waits: list[float] = []
    deliver(_hook(webhook, retry_backoff_s=0.25), {"id": "d1", "event": "digest", "n": "ü"},
            sleep=waits.append)
    assert webhook.attempts == 2 and waits == [0.25]
    assert webhook.deliveries == [{"id": "d1", "event": "digest", "n": "ü"}]
    (headers,) = webhook.headers
    assert headers["X-Renamerd-Event"] == "digest" and headers["X-Renamerd-Delivery"] == "d1"
    assert webhook.bad_signatures == 0


def test_webhook_signature_covers_timestamp_and_body() -> None:
    one = sign("k", "1700000000", b'{"a":1}')
    assert one.startswith("sha256=") and len(one) == 7 + 64
    assert one != sign("k", "1700000001", b'{"a":1}') != sign("k", "1700000000", b'{"a":2}')


def test_webhook_4xx_is_not_retried_and_a_wrong_secret_is_refused(
        webhook: WebhookReceiver) -> None:
    webhook.statuses = [400]
    with pytest.raises(PermanentFailure, match="400"):
        deliver(_hook(webhook), {"id": "d2"}, sleep=lambda _s: None)
    assert webhook.attempts == 1
    wrong = NotifySettings(webhook_url=webhook.url, webhook_secret="not-the-secret",
                           webhook_allow_networks=["127.0.0.1/32"])
    with pytest.raises(PermanentFailure, match="401"):
        deliver(wrong, {"id": "d3"}, sleep=lambda _s: None)
    assert webhook.bad_signatures == 1 and not webhook.deliveries


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:9/x", "http://169.254.169.254/latest", "http://[::ffff:127.0.0.1]/x",
    "http://0x7f.1/x", "http://10.1.2.3/x", "ftp://example.org/x",
])
def test_webhook_refuses_private_addresses_without_sending(url: str) -> None:
    settings = NotifySettings(webhook_url=url if url.startswith("http") else "http://x.invalid",
                              webhook_secret="s")
    if not url.startswith("http"):
        return  # the setting itself refuses other schemes (see test_config)
    with pytest.raises(PermanentFailure, match="blocked"):
        deliver(settings, {"id": "x"}, sleep=lambda _s: None)
    assert check_webhook_address(settings) is not None


def test_webhook_names_resolving_to_private_addresses_are_refused(webhook) -> None:
    settings = NotifySettings(webhook_url="http://hooks.example.org/x", webhook_secret="s")
    with pytest.raises(PermanentFailure, match="resolves to"):
        deliver(settings, {"id": "x"}, resolver=lambda _h, _p: ["192.168.1.5"],
                sleep=lambda _s: None)


def test_notify_settings_are_checked() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="webhook_secret"):
        NotifySettings(webhook_url="https://hooks.example.org/x")
    with pytest.raises(ValidationError, match="http"):
        NotifySettings(webhook_url="ftp://example.org", webhook_secret="s")
    with pytest.raises(ValidationError, match="env"):
        MailSettings(password={"vault": "x"})
