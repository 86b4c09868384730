"""The device-code sign-in `renamerd connect onedrive` runs for a person at a terminal.

msal asks the authority for a device code, the person enters it at microsoft.com/devicelogin
(or the authority's own page), and msal polls the token endpoint until the sign-in completes.
The app must allow public client flows (a confidential app's secret is not used here).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from renamerd.connectors import AuthError

from .auth import msal_application
from .options import authority_url, scopes_option, text_option


def device_code_flow(options: dict[str, Any], *, echo: Callable[[str], None]) -> str:
    """Device-code sign-in: print the address and code, wait for the person, return the refresh
    token. Raises AuthError when sign-in is refused or the code expires."""
    name = "new connection"
    client_id = text_option(options, "client_id", name, required=True)
    verify: str | bool = text_option(options, "ca_bundle", name) or True
    if text_option(options, "client_secret", name):
        echo("Note: the device-code sign-in uses the app as a public client "
             "(enable 'Allow public client flows' in its registration).")
    try:
        app = msal_application(client_id, None, authority=authority_url(options, name),
                               verify=verify, timeout=60.0)
        flow = app.initiate_device_flow(scopes=scopes_option(options, name))
    except (ValueError, httpx.HTTPError) as err:
        raise AuthError(f"onedrive: cannot start the device sign-in ({err})") from err
    try:
        if "user_code" not in flow:
            raise AuthError(f"onedrive: device sign-in refused: {flow.get('error')} "
                            f"{str(flow.get('error_description', ''))[:120]}")
        echo(f"To connect OneDrive, open {flow['verification_uri']} and enter the code "
             f"{flow['user_code']}")
        echo("Waiting for you to finish signing in...")
        result = app.acquire_token_by_device_flow(flow)
        if "refresh_token" not in result:
            raise AuthError(f"onedrive: sign-in did not complete: {result.get('error')} "
                            f"{str(result.get('error_description', ''))[:120]}")
        echo("Signed in.")
        return str(result["refresh_token"])
    finally:
        app.http_client.close()
