"""Dropbox's OAuth endpoints and the PKCE code flow `renamerd connect dropbox` runs.

The authorize page is on www.dropbox.com (`WEB_HOST`), the token endpoint on api.dropboxapi.com
(`API_HOST`); the `endpoint` option moves both. `token_access_type=offline` makes Dropbox return
a refresh token; the access tokens it refreshes into are short-lived (4 h) and the SDK renews
them itself (`client.DropboxClient.refresh_access_token`). The terminal flow has no redirect: the
person copies the code Dropbox shows after "Allow".
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import requests
from dropbox.oauth import DropboxOAuth2FlowNoRedirect
from dropbox.session import API_HOST, WEB_HOST

from renamerd.connectors import AuthError, TransientError

from .client import CaSession
from .options import DropboxOptions


class PkceFlow(DropboxOAuth2FlowNoRedirect):  # type: ignore[misc]
    """The SDK's no-redirect PKCE flow with the authorize page and token endpoint movable."""

    def __init__(self, *args: Any, host: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._host = host

    def build_url(self, target: str, params: Any = None, host: str = API_HOST) -> str:
        return super().build_url(target, params, self._host or host)  # type: ignore[no-any-return]


def start_flow(opts: DropboxOptions) -> PkceFlow:
    """A PKCE flow for an offline (refresh) token, trusting `ca_bundle`. No network I/O."""
    flow = PkceFlow(
        opts.app_key,
        use_pkce=True,
        token_access_type="offline",  # noqa: S106 (a mode, not a secret)
        ca_certs=opts.ca_bundle,
        timeout=opts.timeout,
        host=opts.host,
    )
    flow.requests_session = CaSession(opts.ca_bundle)
    return flow


def exchange_code(flow: PkceFlow, code: str) -> str:
    """Trade the authorization code for the refresh token at the token endpoint.

    Raises AuthError when Dropbox refuses the code (or returns no refresh token),
    TransientError when it cannot be reached. Each code works once.
    """
    try:
        result = flow.finish(code)
    except requests.HTTPError as err:
        detail = ""
        if err.response is not None:
            with contextlib.suppress(ValueError, AttributeError):
                detail = str(err.response.json().get("error_description") or "")
        raise AuthError(f"Dropbox refused the code: {detail or err}") from None
    except requests.RequestException as err:
        raise TransientError(f"cannot reach Dropbox: {type(err).__name__}") from None
    if not result.refresh_token:
        raise AuthError("Dropbox returned no refresh token (is the app set to offline?)")
    return str(result.refresh_token)


def connect_flow(
    options: dict[str, Any], *, echo: Callable[[str], None], prompt: Callable[[str], str]
) -> str:
    """Run Dropbox's PKCE code flow at a terminal and return the refresh token.

    Prints the authorize URL, asks for the code Dropbox shows after "Allow", exchanges it
    at the token endpoint (`endpoint` option, else api.dropboxapi.com). Raises ConfigError
    for bad options, AuthError when Dropbox refuses the code. Each run needs a new code.
    """
    opts = DropboxOptions.parse(dict(options), need_token=False)
    flow = start_flow(opts)
    url = flow.start()
    where = opts.host or WEB_HOST
    echo(f"1. Open this address in a browser and sign in to Dropbox ({where}):")
    echo(f"   {url}")
    echo('2. Click "Allow" (you might have to sign in first).')
    code = prompt("3. Paste the authorization code here").strip()
    if not code:
        raise AuthError("no authorization code given")
    return exchange_code(flow, code)
