"""Where renamerd may send requests on someone's behalf: the address checks shared by
`rename-from-url` (api/fetch.py) and notification webhooks, and a connection pinned to the
address that was checked.

* `parse_ip_literal` reads a host as an address first, with inet_aton semantics (`0x7f.1`,
  `2130706433`, `017700000001`, `127.1` are 127.0.0.1);
* `blocked_reason` refuses anything not global (loopback, private, link-local, cloud metadata,
  CGNAT, unspecified, multicast, reserved, documentation, ULA) and every IPv6 form embedding an
  IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo); allowed networks are exempt;
* `checked_address` resolves a URL's host once and checks every address; `PinnedBackend` then
  connects to that address only, while the URL (Host header, TLS SNI and certificate) keeps the
  name: a DNS answer that changes between check and connect cannot matter.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpcore

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: (host, port) -> the addresses it resolves to; blocking
Resolver = Callable[[str, int], Sequence[str]]

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network
#: explicit checks, first match wins (is_global catches the rest)
_BLOCKED_V4: list[tuple[ipaddress.IPv4Network, str]] = [
    (_V4("169.254.169.254/32"), "cloud metadata address"),
    (_V4("0.0.0.0/8"), "unspecified address (0.0.0.0/8)"),
    (_V4("127.0.0.0/8"), "loopback address"),
    (_V4("10.0.0.0/8"), "private address"),
    (_V4("172.16.0.0/12"), "private address"),
    (_V4("192.168.0.0/16"), "private address"),
    (_V4("100.64.0.0/10"), "carrier-grade NAT address (100.64.0.0/10)"),
    (_V4("169.254.0.0/16"), "link-local address"),
    (_V4("192.0.0.0/24"), "IETF protocol assignment"),
    (_V4("192.0.2.0/24"), "documentation address"),
    (_V4("198.51.100.0/24"), "documentation address"),
    (_V4("203.0.113.0/24"), "documentation address"),
    (_V4("198.18.0.0/15"), "benchmarking address"),
    (_V4("224.0.0.0/4"), "multicast address"),
    (_V4("240.0.0.0/4"), "reserved address"),
]
_BLOCKED_V6: list[tuple[ipaddress.IPv6Network, str]] = [
    (_V6("::/128"), "unspecified address"),
    (_V6("::1/128"), "loopback address"),
    (_V6("::ffff:0:0/96"), "IPv4-mapped IPv6 address"),
    (_V6("::/96"), "IPv4-compatible IPv6 address"),
    (_V6("64:ff9b::/96"), "NAT64 address (embeds an IPv4 address)"),
    (_V6("64:ff9b:1::/48"), "NAT64 address (embeds an IPv4 address)"),
    (_V6("2002::/16"), "6to4 address (embeds an IPv4 address)"),
    (_V6("2001::/32"), "Teredo address (embeds an IPv4 address)"),
    (_V6("fc00::/7"), "unique local address (ULA)"),
    (_V6("fe80::/10"), "link-local address"),
    (_V6("fec0::/10"), "site-local address"),
    (_V6("ff00::/8"), "multicast address"),
    (_V6("2001:db8::/32"), "documentation address"),
    (_V6("100::/64"), "discard-only address"),
]


_NUM = re.compile(r"^(0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*)$")


def parse_ipv4_loose(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address `host` denotes under inet_aton rules (1 to 4 parts, each decimal, octal
    with a leading 0, or hex with 0x; the last part fills the remaining bytes), else None."""
    host = host.rstrip(".")
    parts = host.split(".")
    if not 1 <= len(parts) <= 4 or any(not _NUM.match(p) for p in parts):
        return None
    values = []
    for p in parts:
        if p[:2].lower() == "0x":
            values.append(int(p[2:] or "0", 16))
        elif p.startswith("0") and len(p) > 1:
            values.append(int(p, 8))
        else:
            values.append(int(p))
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (4 - len(head)):
        return None
    number = 0
    for v in head:
        number = number * 256 + v
    number = number * 256 ** (4 - len(head)) + last
    return ipaddress.IPv4Address(number)


def parse_ip_literal(host: str) -> IPAddress | None:
    """`host` as an address when it is one (IPv6 with or without brackets and zone, loose IPv4)."""
    h = host.strip()
    if h.startswith("[") and h.endswith("]"):
        h = h[1:-1]
    if ":" in h:
        try:
            return ipaddress.IPv6Address(h.split("%", 1)[0])
        except ValueError:
            return None
    return parse_ipv4_loose(h)


def blocked_reason(
    ip: IPAddress, allow: Sequence[ipaddress.IPv4Network | ipaddress.IPv6Network] = ()
) -> str | None:
    """Why `ip` may not be fetched from, or None when it may. Networks in `allow` are exempt."""
    if any(ip.version == net.version and ip in net for net in allow):
        return None
    table: Sequence[tuple[Any, str]] = _BLOCKED_V4 if ip.version == 4 else _BLOCKED_V6
    for net, reason in table:
        if ip in net:
            return f"{reason} {ip}"
    if not ip.is_global:
        return f"non-global address {ip}"
    return None


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `getaddrinfo` gives for host:port (TCP), in its order, without repeats."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: list[str] = []
    for info in infos:
        addr = str(info[4][0])
        if addr not in seen:
            seen.append(addr)
    return seen




class BlockedDestination(Exception):
    """The URL may not be requested: the message says why."""


def checked_address(url: str, allow: Sequence[ipaddress.IPv4Network | ipaddress.IPv6Network] = (),
                    resolver: Resolver | None = None) -> str:
    """The one address `url` is requested at: its host parsed or resolved once, every address
    checked. Raises BlockedDestination (not http(s), no host, unresolvable, or an address
    `blocked_reason` refuses)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise BlockedDestination(f"only http and https URLs (got {parts.scheme or 'none'!r})")
    host = parts.hostname or ""
    if not host:
        raise BlockedDestination("the URL has no host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as err:
        raise BlockedDestination(f"bad port: {err}") from err
    literal = parse_ip_literal(host)
    try:
        addresses = [str(literal)] if literal is not None else list(
            (resolver or system_resolver)(host, port))
    except (OSError, UnicodeError) as err:
        raise BlockedDestination(f"cannot resolve host {host!r}") from err
    if not addresses:
        raise BlockedDestination(f"cannot resolve host {host!r}")
    for text in addresses:
        ip = parse_ip_literal(text)
        reason = "an unparseable address" if ip is None else blocked_reason(ip, allow)
        if reason:
            raise BlockedDestination(f"{host} is {reason}" if literal is not None else
                                     f"{host!r} resolves to {reason}")
    return addresses[0]


class PinnedBackend(httpcore.NetworkBackend):
    """Opens every TCP connection to one checked address, whatever host httpcore asks for."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None,
                    ) -> httpcore.NetworkStream:
        return self.inner.connect_tcp(self.address, port, timeout=timeout,
                                      local_address=local_address, socket_options=socket_options)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not used here")

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)
