from __future__ import annotations

from collections.abc import Iterator

import pytest

from notify_servers import SmtpServer, WebhookReceiver, start_smtp, start_webhook

SECRET = "whsec-test-0123456789"


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server, controller = start_smtp()
    yield server
    controller.stop()


@pytest.fixture
def smtp_auth() -> Iterator[SmtpServer]:
    server, controller = start_smtp(password="mail-pw")
    yield server
    controller.stop()


@pytest.fixture
def webhook() -> Iterator[WebhookReceiver]:
    receiver, httpd = start_webhook(SECRET)
    yield receiver
    httpd.shutdown()
    httpd.server_close()
