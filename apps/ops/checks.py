"""System checks for a production deployment (SPEC O-2, O-3).

Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.checks import Tags, Warning, register
from django.db import connections

if TYPE_CHECKING:
    from django.apps import AppConfig
    from django.core.checks import CheckMessage


@register(Tags.security, deploy=True)
def production_services(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> Sequence[CheckMessage]:
    if getattr(settings, "LOCAL", False):
        return []
    problems = []
    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        problems.append(Warning(
            "DATABASE_URL is not set: production runs on SQLite.",
            hint="Set DATABASE_URL=postgres://… (PostgreSQL with pg_trgm and a UTF-8 LC_CTYPE). See docs/deploy.md.",
            id="ops.W001",
        ))
    if not getattr(settings, "REDIS_URL", None):
        problems.append(Warning(
            "REDIS_URL is not set: every worker keeps its own cache and background tasks run inline, unscheduled.",
            hint="Set REDIS_URL=redis://… and run Celery workers and one beat. See docs/deploy.md.",
            id="ops.W002",
        ))
    if "S3" not in settings.STORAGES["default"]["BACKEND"]:
        problems.append(Warning(
            "AWS_STORAGE_BUCKET_NAME is not set: transcript bodies are written to this host's disk.",
            hint="Configure S3-compatible object storage (AWS_STORAGE_BUCKET_NAME and friends). See docs/deploy.md.",
            id="ops.W003",
        ))
    if not settings.PUBLIC_BASE_URL.startswith("https://"):
        problems.append(Warning(
            "PUBLIC_BASE_URL is not https: OAuth tokens and session cookies would travel in clear text.",
            hint="Serve the product over TLS and set PUBLIC_BASE_URL=https://….",
            id="ops.W004",
        ))
    return problems


@register(Tags.database)
def postgres_text_search(
    app_configs: Sequence[AppConfig] | None, databases: Sequence[str] | None = None, **kwargs: Any
) -> Sequence[CheckMessage]:
    """pg_trgm extracts no trigrams from Chinese under a C/POSIX LC_CTYPE (SPEC S-3, R-7)."""
    problems = []
    for alias in databases or []:
        connection = connections[alias]
        if connection.vendor != "postgresql":
            continue
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT datctype FROM pg_database WHERE datname = current_database()")
                ctype = cursor.fetchone()[0]
        except Exception:  # an unreachable database is reported by Django's own checks
            continue
        if ctype.upper() in {"C", "POSIX"}:
            problems.append(Warning(
                f"Database {alias!r} has LC_CTYPE={ctype}: trigram search will not match Chinese text.",
                hint="Create the cluster or database with a UTF-8 ctype, e.g. initdb --locale=C.UTF-8 "
                "(or CREATE DATABASE … LC_CTYPE 'C.UTF-8' TEMPLATE template0).",
                id="ops.W010",
            ))
    return problems
