"""A person's page while the database cannot be reached is a 503 the person may retry, never a 500 (SPEC O-3;
the reliability run stops PostgreSQL under load, docs/reliability.md)."""

from __future__ import annotations

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.db import OperationalError
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(user):
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def _failing(error: Exception):
    def load(self):
        raise error

    return load


# The database gone at the first read a page makes (the session, in a middleware): 503, Retry-After, a page
# that reads nothing, in the person's language.
@pytest.mark.parametrize("language, words", [("en", "Temporarily unavailable"), ("zh-hans", "暂时无法访问")])
def test_the_database_gone_is_a_503_to_retry(signed_in, monkeypatch, django_assert_num_queries, language, words):
    monkeypatch.setattr(SessionStore, "load", _failing(OperationalError("could not connect to server")))
    with django_assert_num_queries(0):
        response = signed_in.get("/me/facts/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert words in response.content.decode()


# Any other failure is the product's: still a 500, with its own page.
def test_another_failure_is_still_a_500(signed_in, monkeypatch):
    monkeypatch.setattr(SessionStore, "load", _failing(RuntimeError("a bug")))
    response = signed_in.get("/me/facts/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 500 and "Retry-After" not in response
    assert "Something went wrong" in response.content.decode()
