"""Talking to systemd: readiness, stopping and watchdog pings (Type=notify units)."""

from __future__ import annotations

import logging
import os
import socket

from renamerd.config import Settings

log = logging.getLogger("renamerd.daemon")


def sd_notify(message: str) -> bool:
    """Send `message` ("READY=1", "WATCHDOG=1", "STOPPING=1") to systemd's $NOTIFY_SOCKET.

    Returns False (and does nothing) when not run by systemd with Type=notify. Never raises.
    """
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
        return True
    except OSError:
        log.debug("sd_notify %s failed", message, exc_info=True)
        return False


def watchdog_interval(settings: Settings) -> float | None:
    """Seconds between WATCHDOG=1 pings: half of systemd's WatchdogSec (when it asks for
    pings of this process), at most `daemon.watchdog_s`; None when systemd does not ask."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return max(0.5, min(int(usec) / 2_000_000, settings.daemon.watchdog_s))
    except ValueError:
        return None
