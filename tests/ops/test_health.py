"""/healthz and /readyz for load balancers (SPEC O-3)."""

from __future__ import annotations

import json

import pytest
from django.db import OperationalError

from apps.ops import health
from tests.services import free_port


def _dead_redis_url() -> str:
    return f"redis://127.0.0.1:{free_port()}/0"


@pytest.fixture
def local_media(settings, tmp_path):
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"}}
    settings.MEDIA_ROOT = tmp_path / "media"


# SPEC O-3: liveness says only that the process is up; it never touches the database
# (pytest-django refuses database access in this test, so any query would fail it).
def test_healthz_is_up_without_the_database(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-store" in response["Cache-Control"]


# SPEC O-3: ready when the database, Redis and storage all answer.
@pytest.mark.django_db
def test_readyz_ok_with_every_dependency(client, settings, redis_url, local_media):
    settings.REDIS_URL = redis_url
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


# SPEC O-3: without Redis configured (the local default), Redis is not required.
@pytest.mark.django_db
def test_readyz_without_redis_configured(client, settings, local_media):
    settings.REDIS_URL = None
    assert client.get("/readyz").json() == {"status": "ok"}


# SPEC O-3: Redis configured but unreachable: 503, and an anonymous caller learns nothing more.
@pytest.mark.django_db
def test_readyz_unavailable_tells_anonymous_callers_nothing(client, settings, local_media, caplog):
    settings.REDIS_URL = _dead_redis_url()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert json.loads(response.content) == {"status": "unavailable"}
    assert "redis unavailable" in caplog.text  # the reason is in the logs


# SPEC O-3: a signed-in user who is not staff gets the same answer as anyone.
@pytest.mark.django_db
def test_readyz_details_not_for_ordinary_users(client, user, settings, local_media):
    settings.REDIS_URL = _dead_redis_url()
    client.force_login(user)
    assert json.loads(client.get("/readyz").content) == {"status": "unavailable"}


# SPEC O-3: staff see which dependency failed.
@pytest.mark.django_db
def test_readyz_details_for_staff(admin_client, settings, local_media):
    settings.REDIS_URL = _dead_redis_url()
    response = admin_client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "checks": {"database": "ok", "redis": "unavailable", "storage": "ok"},
    }


# SPEC O-3: a database that does not answer makes the worker unready, even for a caller with a
# session cookie (whose staff status cannot be looked up then).
@pytest.mark.django_db
def test_readyz_database_down(client, settings, local_media, monkeypatch):
    settings.REDIS_URL = None

    class Down:
        def cursor(self):
            raise OperationalError("connection refused")

        def close(self):
            pass

    monkeypatch.setattr(health, "connections", {"default": Down()})
    client.cookies[settings.SESSION_COOKIE_NAME] = "whatever"
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable"}


# SPEC O-3: unwritable local media storage is not ready.
@pytest.mark.django_db
def test_readyz_storage_unwritable(client, settings, local_media, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    settings.MEDIA_ROOT = blocker / "media"
    settings.REDIS_URL = None
    assert client.get("/readyz").status_code == 503


# SPEC O-2, O-3: with production's HTTPS redirect on, load-balancer probes over plain HTTP
# are answered, not redirected; every other page still is.
@pytest.mark.django_db
def test_probes_are_exempt_from_the_https_redirect(client, settings, settings_for, local_media):
    from tests.ops.conftest import PRODUCTION_ENV

    production = settings_for(PRODUCTION_ENV)
    assert production["SECURE_SSL_REDIRECT"] is True
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_REDIRECT_EXEMPT = production["SECURE_REDIRECT_EXEMPT"]
    settings.REDIS_URL = None
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 200
    assert client.get("/me/facts/").status_code == 301
