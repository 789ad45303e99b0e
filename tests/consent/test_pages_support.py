"""Shared fixtures and helpers of the page tests (no tests here)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from apps.consent.models import Connection, FactShare
from apps.memory.models import Fact


@pytest.fixture(scope="session")
def compiled_catalogs():
    """Compile the catalogs from the .po files as `make setup` does, then drop cached ones."""
    import gettext

    from django.utils.translation import trans_real

    call_command("compiletranslations", verbosity=0)
    gettext._translations.clear()  # Python caches parsed .mo files too
    trans_real._translations = {}
    trans_real._default = None


def client_for(user, language: str | None = "en") -> Client:
    """A logged-in browser whose Accept-Language is ``language`` (None: send none)."""
    headers = {"HTTP_HOST": "127.0.0.1"}
    if language:
        headers["HTTP_ACCEPT_LANGUAGE"] = language
    client = Client(**headers)
    client.force_login(user)
    return client


def anonymous_client() -> Client:
    return Client(HTTP_HOST="127.0.0.1", HTTP_ACCEPT_LANGUAGE="en")


def visible_text(body: str) -> str:
    """What a reader sees: the page without its tags, classes and attributes."""
    import html
    import re

    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def snapshot() -> dict:
    """Everything an attack on the pages could try to change."""
    return {
        "facts": sorted(Fact.objects.values_list(
            "id", "owner_id", "category", "label", "value", "evidence", "certainty", "sensitive", "status", "version"
        )),
        "shares": sorted(FactShare.objects.values_list("connection_id", "fact_id", "fact_version")),
        "connections": sorted(
            (c.pk, c.user_id, tuple(c.scopes), tuple(c.categories), c.revoked_at)
            for c in Connection.objects.all()
        ),
    }
