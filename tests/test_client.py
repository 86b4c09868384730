"""renamerd.client: the description's retry rules, idempotency keys, and end to end on the app."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from api.conftest import make_api, pdf_bytes  # noqa: F401  (fixtures)
from renamerd.client import ClientError, RenamerdClient, api_options, rename_files
from renamerd.engine.types import RenameOptions

Handler = Callable[[httpx.Request], httpx.Response]


class Script:
    """A fake server answering from a list of (status, headers) and recording requests."""

    def __init__(self, answers: list[tuple[int, dict[str, str]]]) -> None:
        self.answers = answers
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        status, headers = self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]
        body = {"credits": 7} if status == 200 else {"error": f"status {status}", "code": "X"}
        return httpx.Response(status, headers=headers, json=body)


def client_for(script: Handler, now: float = 1_000_000.0) -> RenamerdClient:
    slept: list[float] = []
    return RenamerdClient("https://api.example", "rt_x", transport=httpx.MockTransport(script),
                          sleep=slept.append, clock=lambda: now)


@pytest.mark.parametrize("status", [500, 502])
def test_5xx_backoff_1_2_4_8_16(status: int) -> None:
    script = Script([(status, {})] * 5 + [(200, {})])
    c = client_for(script)
    assert c.credits() == {"credits": 7}
    assert c.waits == [1, 2, 4, 8, 16]
    script = Script([(status, {})])
    c = client_for(script)
    with pytest.raises(ClientError) as info:
        c.credits()
    assert info.value.status == status and c.waits == [1, 2, 4, 8, 16]
    assert len(script.requests) == 6


def test_429_waits_retry_after_then_backs_off() -> None:
    script = Script([(429, {"Retry-After": "3"}), (429, {"Retry-After": "1"}),
                     (429, {"Retry-After": "1"}), (429, {"Retry-After": "0"}), (200, {})])
    c = client_for(script)
    assert c.credits() == {"credits": 7}
    assert c.waits == [3, 1, 2, 4]


def test_429_without_retry_after_waits_until_reset() -> None:
    now = 1_700_000_000.0
    script = Script([(429, {"X-RateLimit-Reset": str(int((now + 5) * 1000))}), (200, {})])
    c = client_for(script, now)
    c.credits()
    assert c.waits == [pytest.approx(5)]


def test_429_gives_up_after_the_allowed_retries() -> None:
    c = client_for(Script([(429, {"Retry-After": "1"})]))
    with pytest.raises(ClientError) as info:
        c.credits()
    assert info.value.status == 429 and len(c.waits) == c.max_rate_limit_retries


@pytest.mark.parametrize("status", [400, 401, 402, 404, 413, 415])
def test_other_4xx_are_never_retried(status: int) -> None:
    script = Script([(status, {}), (200, {})])
    c = client_for(script)
    with pytest.raises(ClientError) as info:
        c.credits()
    assert info.value.status == status and info.value.code == "X"
    assert c.waits == [] and len(script.requests) == 1


def test_connection_errors_are_retried() -> None:
    calls = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) < 3:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json={"credits": 1})

    c = client_for(flaky)
    assert c.credits() == {"credits": 1} and c.waits == [1, 2]


def test_rename_sends_one_idempotency_key_across_retries(tmp_path) -> None:
    doc = tmp_path / "scan.pdf"
    doc.write_bytes(b"%PDF-1.4 x")
    script = Script([(502, {}), (200, {})])
    c = client_for(script)
    c.rename(doc, strategy="by_date", options={"language": "de"})
    keys = [r.headers["idempotency-key"] for r in script.requests]
    assert len(keys) == 2 and keys[0] == keys[1] and len(keys[0]) >= 16
    body = script.requests[0].content
    assert b'name="strategy"' in body and b"by_date" in body and b'name="language"' in body
    assert b'filename="scan.pdf"' in body and b"Content-Type: application/pdf" in body
    c.rename(doc)
    assert script.requests[-1].headers["idempotency-key"] != keys[0]


def test_api_options_accepts_both_spellings() -> None:
    assert api_options(RenameOptions(strategy="by_all", template_id="standard")) == {
        "strategy": "by_all", "templateMode": "auto", "templateId": "standard", "language": "auto"
    }
    assert api_options({"templateMode": "custom", "custom_template": "x"}) == {
        "templateMode": "custom", "customTemplate": "x"
    }
    with pytest.raises(ValueError):
        api_options({"colour": "red"})


# --- end to end against the app -------------------------------------------------------------

class DropFirstAnswer(httpx.BaseTransport):
    """Lets the first rename reach the server, then loses its answer (as a dropped connection)."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner
        self.dropped = False

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.url.path.endswith("/rename") and not self.dropped:
            self.dropped = True
            response.read()
            raise httpx.ReadError("connection lost", request=request)
        return response


def test_end_to_end_retry_after_a_lost_answer_costs_one_credit(
    make_api, pdf_bytes, tmp_path  # noqa: F811
) -> None:
    api = make_api()
    doc = tmp_path / "invoice.pdf"
    doc.write_bytes(pdf_bytes)
    transport = DropFirstAnswer(api.client._transport)
    with RenamerdClient("http://testserver", api.token, transport=transport, sleep=lambda s: None) as c:
        assert c.user()["email"] == "user0@example.org"
        assert c.team() is None
        result = c.rename(doc, strategy="by_issuer")
        assert result["originalFilename"] == "invoice.pdf"
        assert c.credits() == {"credits": 49}
    assert transport.dropped and len(api.engine.calls) == 1


def test_rename_files_reports_each_file(make_api, pdf_bytes, tmp_path) -> None:  # noqa: F811
    api = make_api()
    good = tmp_path / "a.pdf"
    good.write_bytes(pdf_bytes)
    bad = tmp_path / "b.txt"
    bad.write_text("not a document")
    missing = tmp_path / "missing.pdf"
    client = RenamerdClient("http://testserver", api.token, transport=api.client._transport)
    results = rename_files("http://testserver", api.token, [good, bad, missing],
                           {"strategy": "by_type"}, client=client)
    assert results[0]["path"] == str(good) and results[0]["organizationStrategy"] == "by_type"
    assert results[1]["status"] == 415 and results[1]["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert results[2]["status"] == 0 and "missing.pdf" in results[2]["error"]
    assert json.dumps(results)  # printable as JSON
    assert api.balance() == 49


def test_the_client_sends_the_confidence_policy(make_api, pdf_bytes) -> None:  # noqa: F811
    api = make_api()
    with RenamerdClient("http://testserver", api.token, transport=api.client._transport,
                        sleep=lambda s: None) as c:
        c.rename(pdf_bytes, "scan.pdf", below_confidence="keep", confidence_threshold=0.6)
        _, options = api.engine.calls[-1]
        assert (options.below_confidence, options.confidence_threshold) == ("keep", 0.6)
        c.rename(pdf_bytes, "scan.pdf",
                 options=RenameOptions(below_confidence="rename", confidence_threshold=0.25))
        _, options = api.engine.calls[-1]
        assert (options.below_confidence, options.confidence_threshold) == ("rename", 0.25)
        with pytest.raises(ClientError) as err:
            c.rename(pdf_bytes, "scan.pdf", belowConfidence="sometimes")
        assert err.value.status == 400 and "belowConfidence" in err.value.message
