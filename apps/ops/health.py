"""Readiness probes: can this worker reach what a request needs? (SPEC O-3)

Design notes: docs/design.md.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import connections

logger = logging.getLogger(__name__)

OK, UNAVAILABLE, NOT_CONFIGURED = "ok", "unavailable", "not configured"
PROBE_TIMEOUT_SECONDS = 2.0


def database() -> str:
    connection = connections["default"]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        logger.warning("readiness: database unavailable: %r", exc)
        connection.close()  # do not keep a broken connection for the next request
        return UNAVAILABLE
    return OK


def redis() -> str:
    url = getattr(settings, "REDIS_URL", None)
    if not url:
        return NOT_CONFIGURED
    import redis as redis_py

    client = redis_py.Redis.from_url(
        url, socket_connect_timeout=PROBE_TIMEOUT_SECONDS, socket_timeout=PROBE_TIMEOUT_SECONDS
    )
    try:
        client.ping()
    except Exception as exc:
        logger.warning("readiness: redis unavailable: %r", exc)
        return UNAVAILABLE
    finally:
        client.close()
    return OK


def storage() -> str:
    """The media storage: the S3 bucket answers, or the media directory is writable."""
    try:
        bucket = getattr(default_storage, "bucket_name", None)
        if bucket:
            default_storage.connection.meta.client.head_bucket(Bucket=bucket)  # type: ignore[attr-defined]  # S3
        elif getattr(default_storage, "location", None):
            location = Path(default_storage.location)  # type: ignore[attr-defined]  # on disk
            location.mkdir(parents=True, exist_ok=True)
            if not os.access(location, os.W_OK):
                raise PermissionError(f"{location} is not writable")
        else:
            default_storage.exists(".readyz")
    except Exception as exc:
        logger.warning("readiness: storage unavailable: %r", exc)
        return UNAVAILABLE
    return OK


PROBES = {"database": database, "redis": redis, "storage": storage}


def readiness() -> dict[str, str]:
    return {name: probe() for name, probe in PROBES.items()}


def is_ready(checks: dict[str, str]) -> bool:
    return all(result in (OK, NOT_CONFIGURED) for result in checks.values())
