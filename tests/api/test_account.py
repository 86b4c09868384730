"""GET /api/v1/user, /credits, /team; authentication failures; rate-limit headers everywhere."""

from __future__ import annotations

import pytest

from api.conftest import Api, MakeApi

HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset")


def assert_error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert isinstance(body["error"], str) and body["error"]
    assert set(body) <= {"error", "code"}
    if code:
        assert body["code"] == code
    for h in HEADERS:
        assert h in response.headers, h
    return body


def test_user_credits_team(api: Api) -> None:
    r = api.client.get("/api/v1/user", headers=api.auth)
    assert r.status_code == 200
    assert r.json() == {"id": api.user_id, "email": "user0@example.org", "name": "User 0"}
    r = api.client.get("/api/v1/credits", headers=api.auth)
    assert r.json() == {"credits": 50}
    r = api.client.get("/api/v1/team", headers=api.auth)
    assert r.status_code == 200 and r.json() is None


def test_team_with_members(make_api: MakeApi) -> None:
    a = make_api()
    b = make_api()
    a.accounts.create_team("Finance")
    a.accounts.add_member("Finance", "user0@example.org")
    a.accounts.add_member("Finance", "user1@example.org")
    body = b.client.get("/api/v1/team", headers=b.auth).json()
    assert body["name"] == "Finance" and body["id"].startswith("team_")
    emails = [m["user"]["email"] for m in body["teamMembers"]]
    assert emails == ["user0@example.org", "user1@example.org"]
    assert set(body["teamMembers"][0]["user"]) == {"id", "name", "email"}


def test_401_variants(api: Api) -> None:
    tok = api.token
    for headers in (
        {},
        {"Authorization": tok},  # not Bearer
        {"Authorization": f"Basic {tok}"},
        {"Authorization": "Bearer "},
        {"Authorization": f"Bearer {tok} extra"},
        {"Authorization": "Bearer rt_" + "A" * 38},  # bad checksum
        {"Authorization": "Bearer not-a-token"},
    ):
        for path in ("/api/v1/user", "/api/v1/credits", "/api/v1/team"):
            r = api.client.get(path, headers=headers)
            assert_error(r, 401, "UNAUTHORIZED")
            assert r.headers["www-authenticate"] == "Bearer"


def test_revoked_token_is_401(api: Api) -> None:
    token_row = api.accounts.list_tokens("user0@example.org")[0]
    api.accounts.revoke_token(token_row.id)
    assert_error(api.client.get("/api/v1/user", headers=api.auth), 401)


def test_disabled_user_is_401(api: Api) -> None:
    from renamerd.storage.models import User

    with api.db.write_session() as s:
        u = s.get(User, api.user_id)
        u.disabled = True
        s.add(u)
    body = assert_error(api.client.get("/api/v1/credits", headers=api.auth), 401)
    assert body["error"] == "this account is disabled; ask your admin"
    # a revoked token of the disabled user says what it says to anyone
    api.accounts.revoke_token(api.accounts.list_tokens("user0@example.org")[0].id)
    body = assert_error(api.client.get("/api/v1/credits", headers=api.auth), 401)
    assert body["error"] == "invalid, revoked or expired API token"


def test_404_and_405_have_the_error_shape(api: Api) -> None:
    assert_error(api.client.get("/api/v1/nothing", headers=api.auth), 404, "NOT_FOUND")
    assert_error(api.client.delete("/api/v1/credits", headers=api.auth), 405)


def test_headers_count_down_and_reset_is_unix_ms(api: Api) -> None:
    import time

    first = api.client.get("/api/v1/credits", headers=api.auth)
    second = api.client.get("/api/v1/user", headers=api.auth)
    assert first.headers["x-ratelimit-limit"] == "200"
    assert int(first.headers["x-ratelimit-remaining"]) == 199
    assert int(second.headers["x-ratelimit-remaining"]) == 198
    reset = int(second.headers["x-ratelimit-reset"])
    assert time.time() * 1000 < reset <= (time.time() + 61) * 1000
    assert "retry-after" not in second.headers


def test_burst_limit_gives_429_with_retry_after(make_api: MakeApi) -> None:
    api = make_api(limits={"burst_per_minute": 3})
    for _ in range(3):
        assert api.client.get("/api/v1/credits", headers=api.auth).status_code == 200
    r = api.client.get("/api/v1/credits", headers=api.auth)
    assert_error(r, 429, "RATE_LIMITED")
    assert 1 <= int(r.headers["retry-after"]) <= 60
    assert r.headers["x-ratelimit-remaining"] == "0"


def test_unauthenticated_requests_are_limited_per_address(make_api: MakeApi) -> None:
    api = make_api(limits={"burst_per_minute": 2})
    assert_error(api.client.get("/api/v1/user"), 401)
    r = api.client.get("/api/v1/user")
    assert_error(r, 401)
    assert r.headers["x-ratelimit-remaining"] == "0"
    r = api.client.get("/api/v1/user")
    assert_error(r, 429)
    assert "retry-after" in r.headers
    # the account's own window is separate
    assert api.client.get("/api/v1/user", headers=api.auth).status_code == 200


def test_credits_after_grant(api: Api) -> None:
    api.accounts.credits.grant(api.user_id, 25)
    assert api.client.get("/api/v1/credits", headers=api.auth).json() == {"credits": 75}


@pytest.mark.redis
def test_limits_on_redis_are_shared_by_two_apps(make_api: MakeApi, redis_url: str) -> None:
    from fastapi.testclient import TestClient

    from renamerd.api.app import create_app

    api = make_api(limits={"storage_url": redis_url, "burst_per_minute": 3})
    second = TestClient(create_app(api.settings, api.db))
    assert api.client.get("/api/v1/user", headers=api.auth).status_code == 200
    assert second.get("/api/v1/user", headers=api.auth).status_code == 200
    r = second.get("/api/v1/user", headers=api.auth)
    assert r.status_code == 200 and r.headers["x-ratelimit-remaining"] == "0"
    assert api.client.get("/api/v1/user", headers=api.auth).status_code == 429
