"""Staff read none of a person's content anywhere in admin until they reveal it, with a reason (SPEC AD-2).

The proof of item 6 of the staff-privacy issue: every admin URL Django registers, walked as a staff member
without the reveal permission and as a superuser without a reveal, shows none of the planted markers;
a reveal with a reason shows them, leaves exactly one entry on the person's page, and ends on time.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib import admin
from django.urls import reverse

from apps.staff.masking import PersonalAdmin
from tests.staff.planted import (
    MARKERS,
    change_pages,
    found,
    login,
    plant,
    staff_without_reveal,
    submitted,
    walk,
)

pytestmark = pytest.mark.django_db

REASON = "The person asked support to check why a fact shows twice (ticket attached)"


@pytest.fixture
def planted(frozen_clock, user, other_user):
    user.email = "alice@example.com"
    user.save()
    return plant(user, other_user)


def _staff_edits(client, planted) -> None:
    """Changes staff make without seeing text, so that history, log entries and messages exist to walk.

    Each form is sent back as the browser would: every field it shows, with the value it shows."""
    for url, changes in [
        (reverse("admin:memory_fact_change", args=[planted.records["fact"].pk]), {"sensitive": "on"}),
        (reverse("admin:memory_todo_change", args=[planted.records["todo"].pk]), {"status": "done"}),
    ]:
        form = client.get(url).context["adminform"].form
        response = client.post(url, {**submitted(form), **changes})
        assert response.status_code == 302, response.context["adminform"].form.errors


def _entries(planted) -> int:
    page = login(planted.person).get(reverse("consent:staff-access"), HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    return page.content.decode().count('class="history-event staff-access-record"')


# SPEC AD-2: a staff member with every permission but the reveal one reads nothing of the person's, anywhere.
def test_staff_without_the_permission_see_no_content_on_any_admin_page(planted, django_user_model):
    staff = staff_without_reveal(django_user_model)
    client = login(staff)
    _staff_edits(client, planted)
    seen = walk(client, staff)
    assert seen.leaks == []
    assert seen.refused == []  # every filter choice, change page and history opens: structure stays useful
    assert seen.pages > 150  # every model's list, filters, searches, pages, history, deletions, actions
    assert {model for model in admin.site._registry} >= {type(r) for r in planted.records.values()}
    assert [s for s in seen.searches if s[2]] == []  # search never matched hidden content
    assert client.get(reverse("admin:staff_accessrecord_reveal")).status_code == 403
    refused = client.post(reverse("admin:staff_accessrecord_reveal"), {"person": "alice", "reason": REASON})
    assert refused.status_code == 403


# SPEC AD-2: superusers are not exempt — the permission alone shows nothing; then a reveal with a reason shows
# everything of that one person, is the one new entry on their page, and is over after STAFF_REVEAL_MINUTES.
def test_superuser_sees_content_only_during_a_reveal_with_a_reason(planted, admin_user, frozen_clock, settings):
    client = login(admin_user)
    _staff_edits(client, planted)
    seen = walk(client, admin_user, search=False)  # search as the first test: the same code answers it
    assert seen.leaks == []

    before = _entries(planted)
    assert before >= 2  # the edits and actions of the walk are there already, as the person sees them
    response = client.post(reverse("admin:staff_accessrecord_reveal"), {
        "person": "alice", "reason": REASON, "ticket": "SUP-4711", "next": "/admin/memory/fact/",
    })
    assert response.status_code == 302 and response.url == "/admin/memory/fact/"
    shown = change_pages(client, planted)
    assert set(found(shown)) == set(MARKERS)  # every kind of content, the transcript body in storage included
    assert "Bob" not in change_pages(client, planted).split("result_list")[-1]  # the other person stays masked
    assert _entries(planted) == before + 1  # one entry for the reveal; reading during it adds none
    page = login(planted.person).get(reverse("consent:staff-access"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    newest = page.split('class="history-event staff-access-record"')[1]
    assert REASON in newest and "SUP-4711" in newest and "admin" in newest and "Revealed your content" in newest

    frozen_clock.advance(timedelta(minutes=settings.STAFF_REVEAL_MINUTES) - timedelta(seconds=1))
    assert found(change_pages(client, planted), {"factvalue": MARKERS["factvalue"]}) == ["factvalue"]
    frozen_clock.advance(timedelta(seconds=1))
    assert found(change_pages(client, planted)) == []  # masked again, on the minute


# SPEC AD-2: the walk fails when any single admin field is unmasked. Each content column or field of every
# admin is declared structure in turn (the fault), and the walk of that model's pages must find its marker.
def _content_names():
    for model, model_admin in admin.site._registry.items():
        if not isinstance(model_admin, PersonalAdmin):
            continue
        names = [*model_admin.list_display, *(model_admin.fields or ()), *model_admin.readonly_fields]
        for name in dict.fromkeys(n for n in names if isinstance(n, str) and model_admin.hides(n)):
            if name != "fingerprint":  # a hash of the normalised content: no marker to find, masked all the same
                yield pytest.param(model, name, id=f"{model._meta.model_name}.{name}")


@pytest.mark.parametrize("model, name", list(_content_names()))
def test_the_walk_finds_any_single_unmasked_field(planted, admin_user, model, name, monkeypatch):
    model_admin = admin.site._registry[model]
    monkeypatch.setattr(model_admin, "shown", (*model_admin.shown, name))
    seen = walk(login(admin_user), admin_user, models={model}, actions=False, search=False)
    assert seen.leaks, f"{model.__name__}.{name} unmasked, and the walk did not notice"
