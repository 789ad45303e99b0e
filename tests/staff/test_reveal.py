"""Reveals: a separate permission, a written reason, one person at a time, for a limited time (SPEC AD-2)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from apps.common.errors import CodedError
from apps.memory.services import fact_create
from apps.staff.models import AccessRecord
from apps.staff.selectors import revealed_person_id
from apps.staff.services import staff_access_record, staff_reveal
from tests.staff.planted import login

pytestmark = pytest.mark.django_db

REASON = "Checking a duplicated fact the person reported"


@pytest.fixture
def revealer(django_user_model):
    staff = django_user_model.objects.create_user("helper", "helper@example.com", "pw", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="reveal_personal_content"),
                               *Permission.objects.filter(codename__in=["view_fact", "change_fact"]))
    return staff


@pytest.fixture
def facts(user, other_user):
    return (fact_create(owner=user, category="health", label="Diagnosis", value="Qzvalicediagnosis"),
            fact_create(owner=other_user, category="health", label="Diagnosis", value="Qzvbobdiagnosis"))


def fact_page(client, fact) -> str:
    return client.get(reverse("admin:memory_fact_change", args=[fact.pk])).content.decode()


# SPEC AD-2: revealing needs the permission, an active staff account, and a written reason.
def test_reveal_refusals(user, revealer, django_user_model, frozen_clock):
    plain = django_user_model.objects.create_user("clerk", "", "pw", is_staff=True)
    with pytest.raises(CodedError) as refused:
        staff_reveal(staff=plain, person=user, reason=REASON)
    assert refused.value.code == "reveal_not_permitted"
    with pytest.raises(CodedError) as refused:
        staff_reveal(staff=revealer, person=user, reason="   because  ")
    assert (refused.value.code, refused.value.field) == ("reason_required", "reason")
    revealer.is_staff = False
    with pytest.raises(CodedError):
        staff_reveal(staff=revealer, person=user, reason=REASON)
    assert not AccessRecord.objects.exists()


# SPEC AD-2: the content of the one revealed person shows, nobody else's, until the reveal ends.
def test_reveal_shows_one_person_until_it_ends(user, other_user, revealer, facts, frozen_clock, settings):
    client = login(revealer)
    assert "Qzvalicediagnosis" not in fact_page(client, facts[0])
    record = staff_reveal(staff=revealer, person=user, reason=REASON, ticket=" T-1 ")
    assert (record.until - record.at, record.ticket, record.records) == (timedelta(minutes=15), "T-1", [])
    assert "Qzvalicediagnosis" in fact_page(client, facts[0])
    assert "Qzvbobdiagnosis" not in fact_page(client, facts[1])
    listing = client.get(reverse("admin:memory_fact_changelist")).content.decode()
    assert "Qzvalicediagnosis" in listing and "Qzvbobdiagnosis" not in listing
    # One person at a time: revealing bob masks alice again at once.
    staff_reveal(staff=revealer, person=other_user, reason=REASON)
    assert "Qzvalicediagnosis" not in fact_page(client, facts[0])
    assert "Qzvbobdiagnosis" in fact_page(client, facts[1])
    settings.STAFF_REVEAL_MINUTES = 5
    staff_reveal(staff=revealer, person=user, reason=REASON)
    frozen_clock.advance(timedelta(minutes=5) - timedelta(microseconds=1))
    assert revealed_person_id(staff=revealer) == user.pk
    frozen_clock.advance(timedelta(microseconds=1))
    assert revealed_person_id(staff=revealer) is None
    assert "Qzvalicediagnosis" not in fact_page(client, facts[0])


# SPEC AD-2: a reveal needs the permission still held; another staff member's reveal reveals nothing to you.
def test_reveal_is_the_staff_members_own_and_needs_the_permission(user, revealer, admin_user, facts, frozen_clock):
    staff_reveal(staff=revealer, person=user, reason=REASON)
    assert revealed_person_id(staff=admin_user) is None
    assert "Qzvalicediagnosis" not in fact_page(login(admin_user), facts[0])
    revealer.user_permissions.remove(Permission.objects.get(codename="reveal_personal_content"))
    revealer = type(revealer).objects.get(pk=revealer.pk)  # permissions are cached per instance
    assert revealed_person_id(staff=revealer) is None
    assert "Qzvalicediagnosis" not in fact_page(login(revealer), facts[0])


# SPEC AD-2: the reveal form in admin: a reason is required, the person found by login or id, the result recorded.
def test_reveal_form(user, revealer, frozen_clock):
    client = login(revealer)
    url = reverse("admin:staff_accessrecord_reveal")
    page = client.get(url, {"person": user.pk, "next": "/admin/memory/fact/"})
    assert page.status_code == 200 and f'value="{user.pk}"' in page.content.decode()
    assert client.post(url, {"person": "alice", "reason": ""}).status_code == 400
    assert client.post(url, {"person": "nobody", "reason": REASON}).status_code == 400
    assert not AccessRecord.objects.exists()
    response = client.post(url, {"person": str(user.pk), "reason": REASON, "next": "https://elsewhere.example/"})
    assert response.status_code == 302 and response.url == reverse("admin:index")
    record = AccessRecord.objects.get()
    assert (record.staff, record.staff_name, record.person, record.action, record.reason) == (
        revealer, "helper", user, "reveal", REASON)


# SPEC AD-2: the record is append-only: no add, change or delete through admin, whatever the permissions,
# and the model refuses to be changed or deleted.
def test_the_record_cannot_be_edited_or_deleted(user, admin_user, frozen_clock):
    record = staff_access_record(staff=admin_user, person=user, action="change", records=["fact:1"])
    client = login(admin_user)
    assert client.get(reverse("admin:staff_accessrecord_change", args=[record.pk])).status_code == 200
    assert client.post(reverse("admin:staff_accessrecord_change", args=[record.pk]),
                       {"reason": "tidied up"}).status_code == 403
    assert client.get(reverse("admin:staff_accessrecord_add")).status_code == 403
    assert client.post(reverse("admin:staff_accessrecord_delete", args=[record.pk]), {"post": "yes"}).status_code == 403
    client.post(reverse("admin:staff_accessrecord_changelist"),
                {"action": "delete_selected", "_selected_action": [record.pk], "post": "yes"})
    record.reason = "tidied up"
    with pytest.raises(ValueError):
        record.save()
    with pytest.raises(ValueError):
        record.delete()
    assert AccessRecord.objects.get().reason == ""


# SPEC AD-2: an operator's command (no staff account) is recorded too, and shown as such.
def test_an_operator_command_is_recorded(user, frozen_clock):
    staff_access_record(staff=None, person=user, action="factor_reset", reason="Lost phone, identity checked")
    page = login(user).get(reverse("consent:staff-access"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "An operator, at the command line" in page and "Reset a sign-in factor" in page
    assert "Lost phone, identity checked" in page
