"""Bodies that are not uploads are capped (api/body_limit.py): a large JSON body gets 413 with
the error body before it is parsed, whether its size is declared or it comes in chunks."""

from __future__ import annotations

from collections.abc import Iterator

from renamerd.api.body_limit import MAX_BODY_BYTES

from .conftest import Api


def test_a_json_body_over_the_cap_gets_413_unparsed(api: Api) -> None:
    body = b'{"url": "https://example.org/a.pdf", "pad": "' + b"x" * MAX_BODY_BYTES + b'"}'
    r = api.client.post("/api/v1/rename-from-url", content=body, headers={
        **api.auth, "content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "PAYLOAD_TOO_LARGE"
    assert "error" in r.json()
    assert api.balance() == 50


def test_a_chunked_json_body_over_the_cap_gets_413(api: Api) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"url": "https://example.org/a.pdf", "pad": "'
        for _ in range(MAX_BODY_BYTES // 65536 + 2):
            yield b"x" * 65536
        yield b'"}'

    r = api.client.post("/api/v1/rename-from-url", content=chunks(), headers={
        **api.auth, "content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "PAYLOAD_TOO_LARGE"


def test_a_small_json_body_still_reaches_the_app(api: Api) -> None:
    r = api.client.post("/api/v1/rename-from-url", json={"url": ""}, headers=api.auth)
    assert r.status_code == 400 and "error" in r.json()
