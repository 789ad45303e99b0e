"""The address a request came from, as the product's rate limits and login throttling count it."""

from __future__ import annotations

from ipaddress import ip_address
from typing import TYPE_CHECKING

from django.conf import settings

if TYPE_CHECKING:
    from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """The caller's address: ``REMOTE_ADDR``, or the entry our own proxies added to X-Forwarded-For.

    Only the last ``TRUSTED_PROXY_COUNT`` entries are trusted; ``"unknown"`` when there is none.
    """
    trusted = settings.TRUSTED_PROXY_COUNT
    if trusted > 0:
        hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
        if len(hops) >= trusted:
            return hops[-trusted]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def client_ip_address(request: HttpRequest) -> str | None:
    """``client_ip`` when it is an IP address, else ``None`` (django-axes' ``AXES_CLIENT_IP_CALLABLE``).

    Login attempts store it in an IP column: anything else must not make a login a database error.
    """
    address = client_ip(request)
    try:
        return str(ip_address(address))
    except ValueError:
        return None
