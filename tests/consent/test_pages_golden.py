"""Personal info and a connection page, pinned byte for byte for one fixed seeded person (SPEC W-6, W-3).

Any change made to render these pages faster must leave their HTML as it is: this test renders both
pages, in English and Chinese, for a ``seed_demo`` person at a fixed moment with fixed ids, and compares
them with the files in ``golden/``. Only what differs on every request is normalised: the CSRF token and
the add form's one-time submission value. When a page is meant to change, rewrite the files with
``UPDATE_GOLDEN=1`` and review their diff.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import call_command

from apps.common import clock
from apps.consent.models import Connection
from apps.consent.services import access_event_record
from tests.consent.test_pages_support import client_for, compiled_catalogs  # noqa: F401  (fixture)

GOLDEN = Path(__file__).parent / "golden"
VOLATILE = [
    (re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]+'), r"\1CSRF"),
    (re.compile(r'(name="submission" value=")[^"]+'), r"\1SUBMISSION"),
]

pytestmark = [pytest.mark.django_db(transaction=True, reset_sequences=True),
              pytest.mark.usefixtures("compiled_catalogs")]


def _normalised(body: str) -> str:
    for pattern, replacement in VOLATILE:
        body = pattern.sub(replacement, body)
    return body


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_personal_info_and_connection_pages_are_unchanged(django_user_model, language, capsys):
    with clock.frozen_at(datetime(2026, 6, 1, 9, 0, tzinfo=UTC)):
        call_command("seed_demo", "--username", "golden", "--password", "golden-password-2026", "--facts", "45",
                     "--assistants", "3", "--suggestions", "14")
        capsys.readouterr()
        user = django_user_model.objects.get(username="golden")
        for _ in range(3):  # the history a connection page shows
            clock.advance(timedelta(minutes=7))
            connection = Connection.objects.filter(user=user).order_by("id").first()
            access_event_record(connection=connection, tool="get_user_context", facts=[(1, 1), (2, 1)],
                                refs=["note:3"])
        client = client_for(user, language)
        pages = {"facts": "/me/facts/", "facts-page-2": "/me/facts/?page=2&q=&state=",
                 "assistant": f"/me/assistants/{connection.pk}/",
                 "assistant-listed": f"/me/assistants/{connection.pk}/?state=not_shared&suggestions=2&earlier=1"}
        for name, path in pages.items():
            response = client.get(path)
            assert response.status_code == 200, path
            body = _normalised(response.content.decode())
            golden = GOLDEN / f"{name}.{language}.html"
            if os.environ.get("UPDATE_GOLDEN"):
                GOLDEN.mkdir(exist_ok=True)
                golden.write_text(body, encoding="utf-8")
            assert body == golden.read_text(encoding="utf-8"), f"{path} ({language}) differs from {golden.name}"
