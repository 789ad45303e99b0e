"""A fixed-window request counter in Django's cache, shared by every worker when the cache is Redis."""

from __future__ import annotations

from datetime import timedelta
from ipaddress import ip_address, ip_network

from django.conf import settings
from django.core.cache import cache

from apps.common import clock


def unlimited(address: str) -> bool:
    """An address in ``OAUTH_REGISTRATION_UNLIMITED_NETWORKS``: a broker's egress, serving many people at once."""
    try:
        ip = ip_address(address)
    except ValueError:
        return False
    return any(ip in ip_network(network) for network in settings.OAUTH_REGISTRATION_UNLIMITED_NETWORKS)


def throttle_hit(*, scope: str, key: str, limit: int, window: timedelta) -> int | None:
    """Count one request; return the seconds until the window ends when over ``limit``, else ``None``."""
    seconds = max(1, int(window.total_seconds()))
    now = int(clock.now().timestamp())
    cache_key = f"throttle:{scope}:{key}:{now // seconds}"
    cache.add(cache_key, 0, timeout=seconds)
    try:
        count = cache.incr(cache_key)
    except ValueError:  # the key expired between add() and incr()
        cache.add(cache_key, 1, timeout=seconds)
        count = 1
    if count <= limit:
        return None
    return seconds - now % seconds
