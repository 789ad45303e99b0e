import os
from datetime import UTC
from pathlib import Path

import pytest

from apps.common import clock

DATABASE_LABEL = os.environ.get(
    "TEST_DATABASE_LABEL", "sqlite" if "postgres" not in os.environ.get("DATABASE_URL", "") else "postgresql"
)


def pytest_configure(config):
    from django.conf import settings

    # Password hashing is not what the suite measures.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Search by words alone unless a test asks for meaning (the ``meaning`` fixture): embedding every
    # record the suite writes would cost minutes, and most tests are about something else.
    settings.SEARCH_EMBEDDINGS = {}
    # The suite runs with DEBUG off, so whitenoise indexes STATIC_ROOT (what collectstatic fills before
    # `make serve`) whenever a request handler is built, and warns when it is missing. The suite serves
    # no collected file, so an empty directory stands in for what collectstatic would write.
    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)


LOCAL_EMBEDDINGS = {"BACKEND": "apps.retrieval.embeddings.local.LocalEmbedder", "INLINE": True}


@pytest.fixture(scope="session")
def _local_model():
    """The shipped model, loaded once for the whole run and shared by every test that searches by meaning."""
    from django.conf import settings

    from apps.retrieval.embeddings import get_embedder

    saved, settings.SEARCH_EMBEDDINGS = settings.SEARCH_EMBEDDINGS, LOCAL_EMBEDDINGS
    try:
        get_embedder().embed(["warm"])
    finally:
        settings.SEARCH_EMBEDDINGS = saved


@pytest.fixture
def meaning(settings, _local_model):
    """Search by meaning as the local default does: the shipped model, vectors written with the record."""
    from apps.retrieval import vectors

    settings.SEARCH_EMBEDDINGS = dict(LOCAL_EMBEDDINGS)
    vectors.forget()  # rolled-back tests reuse row ids and, under a frozen clock, their times
    yield
    vectors.forget()


def pytest_collection_modifyitems(config, items):
    replicas = pytest.mark.skip(reason="a streaming replica: runs in the replica pass (tests/run.py)")
    for item in items:
        if "replica" in item.keywords and not os.environ.get("DATABASE_REPLICA_URLS"):
            item.add_marker(replicas)
    if DATABASE_LABEL.startswith("postgresql"):
        return
    skip = pytest.mark.skip(reason="PostgreSQL only: runs in the PostgreSQL pass")
    production = pytest.mark.skip(reason="the production configuration: runs in the PostgreSQL pass")
    for item in items:
        if "postgres_only" in item.keywords:
            item.add_marker(skip)
        elif "production" in item.keywords:
            item.add_marker(production)


@pytest.fixture
def frozen_clock():
    """The product clock, frozen at a fixed instant; ``clock.advance`` moves it."""
    from datetime import datetime

    with clock.frozen_at(datetime(2026, 6, 1, 9, 0, tzinfo=UTC)):
        yield clock


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user(username="alice", password="alice-password")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user(username="bob", password="bob-password")


@pytest.fixture
def admin_client(client, admin_user):
    """pytest-django's ``admin_client``, logged in as staff must be: with a second factor given (SPEC AD-3)."""
    from tests.accounts.factors import verified_login

    return verified_login(client, admin_user)
