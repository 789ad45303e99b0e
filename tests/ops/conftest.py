"""Fixtures for the operations tests: real Redis, S3 and settings read from a given environment."""

from __future__ import annotations

import os
import runpy
import secrets
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from tests.services import redis_server

BASE_DIR = Path(__file__).resolve().parents[2]

# The production environment docs/deploy.md documents (hosts are never contacted by these tests).
PRODUCTION_ENV = {
    "PUBLIC_BASE_URL": "https://memory.example.com",
    "SECRET_KEY": "k" + secrets.token_urlsafe(60),
    "ALLOWED_HOSTS": "memory.example.com",
    "DATABASE_URL": "postgres://lifeos:db-password@db.internal:5432/lifeos",
    "REDIS_URL": "redis://redis.internal:6379/0",
    "AWS_STORAGE_BUCKET_NAME": "lifeos-media",
    "AWS_S3_REGION_NAME": "eu-central-1",
    "AWS_ACCESS_KEY_ID": "AKIAEXAMPLEEXAMPLE",
    "AWS_SECRET_ACCESS_KEY": "example-secret-access-key",
}

# Everything settings.py reads; cleared before a settings module is built from a given environment.
SETTINGS_VARIABLES = (
    "PUBLIC_BASE_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "DATABASE_URL", "DATABASE_CONN_MAX_AGE",
    "REDIS_URL", "AWS_STORAGE_BUCKET_NAME", "AWS_S3_ENDPOINT_URL", "AWS_S3_REGION_NAME", "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY", "AWS_LOCATION", "AWS_S3_ADDRESSING_STYLE", "STATIC_ROOT", "MEDIA_ROOT",
    "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "ACCESS_EVENT_RETENTION_DAYS", "LOG_LEVEL",
    "SEARCH_EMBEDDINGS", "SEARCH_EMBEDDINGS_URL", "SEARCH_EMBEDDINGS_MODEL", "SEARCH_EMBEDDINGS_DIM",
    "SEARCH_EMBEDDINGS_API_KEY", "SEARCH_VECTORS_INLINE",
    "OAUTH_REGISTRATION_TOKEN_LIFETIME", "PROPOSAL_PENDING_LIMIT", "LOGIN_FAILURE_LIMIT", "LOGIN_COOLOFF_MINUTES",
    "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD", "EMAIL_USE_TLS", "EMAIL_USE_SSL",
    "EMAIL_TIMEOUT", "EMAIL_FILE_PATH", "DEFAULT_FROM_EMAIL",
    "DATABASE_REPLICA_URLS", "REPLICA_MAX_LAG_SECONDS",
)


@pytest.fixture
def settings_for(monkeypatch):
    """Build the settings module from exactly the given environment; return its names."""

    def build(environ: dict[str, str]) -> dict:
        with monkeypatch.context() as patch:
            for name in SETTINGS_VARIABLES:
                patch.delenv(name, raising=False)
            for name, value in environ.items():
                patch.setenv(name, value)
            return runpy.run_path(str(BASE_DIR / "config" / "settings.py"))

    return build


def subprocess_env(environ: dict[str, str]) -> dict[str, str]:
    """A child's environment: this one without any settings variable, plus ``environ``."""
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    env.update(environ)
    env["PYTHONPATH"] = str(BASE_DIR)
    return env


@pytest.fixture(scope="session")
def redis_url():
    """The test run's Redis (TEST_REDIS_URL), or a throwaway one when run outside tests.run."""
    given = os.environ.get("TEST_REDIS_URL")
    if given:
        yield given
        return
    with redis_server() as url:
        yield url


def make_connection(user, *, name="Assistant"):
    """A connected assistant, written directly: these tests are about its access events."""
    from oauth2_provider.models import get_application_model

    from apps.common import clock
    from apps.consent.models import Connection

    application = get_application_model().objects.create(
        name=name, client_type="public", authorization_grant_type="authorization-code",
        redirect_uris="https://assistant.example/callback", skip_authorization=False,
    )
    now = clock.now()
    return Connection.objects.create(
        user=user, application=application, scopes=["profile:read"], categories=["basic"],
        created_at=now, consented_at=now,
    )


def make_events(connection, *, ages_in_days, now):
    """Access events of these ages, written as they stand (on PostgreSQL into their weeks' partitions)."""
    from apps.consent import partitions
    from apps.consent.models import AccessEvent

    if partitions.partitioned():
        partitions.ensure(covering=[now - timedelta(days=age) for age in ages_in_days])
    return [
        AccessEvent.objects.create(
            connection=connection, tool="get_user_context", facts=[[1, 1]], created_at=now - timedelta(days=age)
        )
        for age in ages_in_days
    ]


PYTHON = sys.executable
