"""Restore an archived fact from its page, in both languages and without JavaScript (SPEC W-2, W-4, W-5)."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.memory.models import Fact, FactStatus
from apps.memory.services import fact_archive
from tests.consent.factories import make_connection, make_fact, share
from tests.consent.test_pages_support import (  # noqa: F401  (fixtures)
    anonymous_client,
    client_for,
    compiled_catalogs,
    visible_text,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]


# SPEC W-2: archived facts are found through the "Archived" link and filter, each with a Restore button (a form).
@pytest.mark.parametrize("language,words", [("en", ["Archived (1)", "Restore"]), ("zh-hans", ["已归档", "恢复"])])
def test_archived_facts_are_listed_with_a_restore_form(user, language, words):
    fact = fact_archive(fact=make_fact(user, label="Old job", value="Baker", category="work_study"))
    client = client_for(user, language)
    assert '?state=archived"' in client.get("/me/facts/").content.decode()  # the way to them
    body = client.get("/me/facts/?state=archived").content.decode()
    assert "Old job" in body and f'action="/me/facts/{fact.pk}/restore/" method="post"' not in body
    assert f'<form method="post" action="/me/facts/{fact.pk}/restore/"' in body
    for word in words:
        assert word in visible_text(body), word


# SPEC W-2: the archive form no longer says archiving cannot be undone.
def test_archive_hint_says_it_can_be_restored(user):
    make_fact(user)
    body = visible_text(client_for(user).get("/me/facts/").content.decode())
    assert "cannot be undone" not in body
    assert "You can restore it from the archived facts" in body


# SPEC W-2, C-2: restoring makes a new version, lands on the fact, and says sharing must be confirmed again.
def test_restore_from_the_page(user):
    fact = make_fact(user)
    connection = make_connection(user)
    share(connection, fact)
    fact_archive(fact=fact)
    client = client_for(user)
    response = client.post(f"/me/facts/{fact.pk}/restore/")
    assert response.status_code == 302 and response["Location"] == f"/me/facts/#fact-{fact.pk}"
    stored = Fact.objects.get(pk=fact.pk)
    assert (stored.status, stored.version) == (FactStatus.ACTIVE, 2)
    body = visible_text(client.get(response["Location"]).content.decode())
    assert "Restored “Tea” as version 2" in body and "until you share it again" in body
    assert "Changed since shared with 1 assistant" in body  # its old share holds version 1
    again = client.post(f"/me/facts/{fact.pk}/restore/")  # sent twice: restored once
    assert again.status_code == 302 and Fact.objects.get(pk=fact.pk).version == 2


# SPEC W-5, I-3: a POST with CSRF; another person's fact does not exist here; anonymous visitors log in first.
def test_restore_needs_the_owner_csrf_and_login(user, other_user):
    fact = fact_archive(fact=make_fact(user))
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.post(f"/me/facts/{fact.pk}/restore/").status_code == 403
    assert client_for(other_user).post(f"/me/facts/{fact.pk}/restore/").status_code == 404
    assert client_for(user).get(f"/me/facts/{fact.pk}/restore/").status_code == 405
    assert anonymous_client().post(f"/me/facts/{fact.pk}/restore/").status_code == 302
    assert Fact.objects.get(pk=fact.pk).status == FactStatus.ARCHIVED
