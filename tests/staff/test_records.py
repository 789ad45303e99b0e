"""Every staff change to a person's data is recorded for them, and they see it (SPEC AD-2)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib import admin
from django.urls import reverse

from apps.common import clock
from apps.consent.admin import FactShareAdmin
from apps.consent.models import FactShare, Proposal
from apps.consent.services import proposal_submit, shares_set
from apps.memory.admin import EpisodeAdmin, FactAdmin
from apps.memory.models import Episode, Fact
from apps.memory.services import fact_create, todo_create
from apps.staff.models import AccessRecord
from apps.staff.services import staff_access_record, staff_reveal
from tests.consent.factories import make_application, make_connection
from tests.staff.planted import login

pytestmark = pytest.mark.django_db


def records(person) -> list[tuple[str, str, list[str]]]:
    return [(r.staff_name, r.action, r.records)
            for r in AccessRecord.objects.filter(person=person).order_by("at", "id")]


# SPEC AD-2: an admin action is recorded once per person it touched, with the records, in its transaction.
def test_actions_are_recorded_per_person(admin_client, user, other_user, frozen_clock):
    mine = [fact_create(owner=user, category="basic", label=f"L{i}", value="v") for i in range(2)]
    theirs = fact_create(owner=other_user, category="basic", label="L", value="v")
    response = admin_client.post(reverse("admin:memory_fact_changelist"), {
        "action": "archive", "_selected_action": [f.pk for f in [*mine, theirs]],
    })
    assert response.status_code == 302
    assert records(user) == [("admin", "archive", [f"fact:{mine[0].pk}", f"fact:{mine[1].pk}"])]
    assert records(other_user) == [("admin", "archive", [f"fact:{theirs.pk}"])]


# SPEC AD-2: adding, changing and deleting in admin are recorded; a save that changes nothing is not.
def test_saves_and_deletions_are_recorded(admin_client, user, frozen_clock):
    response = admin_client.post(reverse("admin:memory_fact_add"), {
        "owner": user.pk, "category": "basic", "label": "Name", "value": "Alice", "evidence": "",
        "certainty": "confirmed",
    })
    assert response.status_code == 302
    fact = Fact.objects.get(owner=user)
    url = reverse("admin:memory_fact_change", args=[fact.pk])
    admin_client.post(url, {"category": "basic", "certainty": "confirmed"})  # nothing changed
    admin_client.post(url, {"category": "basic", "certainty": "guess"})
    admin_client.post(reverse("admin:memory_fact_delete", args=[fact.pk]), {"post": "yes"})
    assert not Fact.objects.exists()
    ref = f"fact:{fact.pk}"
    assert records(user) == [("admin", "add", [ref]), ("admin", "change", [ref]), ("admin", "delete", [ref])]


# SPEC AD-2: "expire every due proposal" touches other rows than those selected: each person whose proposals
# it expired gets the record, nobody else.
def test_expiring_due_proposals_is_recorded_for_their_owners(admin_client, user, other_user, frozen_clock):
    def propose(person, label):
        return proposal_submit(connection=make_connection(person, application=make_application(f"A {label}")),
                               arguments={"op": "add", "category": "basic", "label": label, "value": "v"})

    due = propose(user, "old")
    clock.advance(timedelta(days=31))
    fresh = propose(other_user, "new")
    response = admin_client.post(reverse("admin:consent_proposal_changelist"),
                                 {"action": "expire_due", "_selected_action": [fresh.pk]})
    assert response.status_code == 302
    assert Proposal.objects.get(pk=due.pk).status == "expired"
    assert records(user) == [("admin", "expire_due", [f"proposal:{due.pk}"])]
    assert records(other_user) == []


# SPEC AD-2: lists are never filtered by content through the query string either.
@pytest.mark.parametrize("query, allowed", [
    ("value__icontains=x", False),
    ("label=x", False),
    ("evidence__startswith=x", False),
    ("owner__id__exact=1", True),
    ("owner__exact=1", True),
    ("owner__first_name=x", False),
    ("category__exact=health", True),
    ("sensitive__exact=1", True),
])
def test_query_string_filters_are_held_to_structure(admin_client, user, query, allowed):
    response = admin_client.get(reverse("admin:memory_fact_changelist") + "?" + query)
    assert response.status_code == (200 if allowed else 400), response.status_code  # refused, not tried


def test_related_content_is_not_a_filter_either(admin_client, user):
    url = reverse("admin:memory_episode_changelist")
    assert admin_client.get(url + "?transcript__title__icontains=x").status_code == 400
    assert admin_client.get(url + "?transcript__id__exact=1").status_code == 200


# SPEC AD-2: rows reached through a relation are filtered by structure — a fact by its id — never by the content of
# the row the relation leads to, nor by anything of the person's past their id.
@pytest.mark.parametrize("query, allowed", [
    ("fact__id__exact={fact}", True),
    ("fact__exact={fact}", True),
    ("fact__value=x", False),
    ("fact__label__icontains=x", False),
    ("connection__user__username=alice", False),
    ("nothing_of_the_row=1", False),  # names no field: refused, not tried
    ("tool=search_user_context", None),  # a filter written in code
])
def test_rows_of_a_relation_are_filtered_by_structure(admin_client, user, query, allowed):
    fact = fact_create(owner=user, category="habits", label="Coffee", value="Two cups")
    shares_set(connection=make_connection(user), fact_ids={fact.pk})
    if allowed is None:  # the access history's own filter, on its list
        response = admin_client.get(reverse("admin:consent_accessevent_changelist") + "?" + query)
        assert response.status_code == 200
        assert "tool" in {spec.parameter_name for spec in response.context["cl"].filter_specs
                          if hasattr(spec, "parameter_name")}
        return
    response = admin_client.get(reverse("admin:consent_factshare_changelist") + "?" + query.format(fact=fact.pk))
    assert response.status_code == (200 if allowed else 400), response.status_code  # refused, not tried


# SPEC AD-2: whose rows a row is, through every step of the path to the person — the reveal and the records name
# that person.
def test_the_person_of_a_row_is_found_through_its_relations(user):
    fact = fact_create(owner=user, category="habits", label="Coffee", value="Two cups")
    connection = make_connection(user)
    shares_set(connection=connection, fact_ids={fact.pk})
    share = connection.shares.get()
    assert FactShareAdmin(FactShare, admin.site).person_id(share) == user.pk
    assert FactAdmin(Fact, admin.site).person_id(fact) == user.pk


class _OwnerUnlisted(FactAdmin):
    """An admin that does not list whose rows they are."""

    shown = tuple(name for name in FactAdmin.shown if name != "owner")
    list_display_links = ("value",)  # a content column: hidden, so the link must move
    list_filter = (*FactAdmin.list_filter, "label", "owner__username",  # content, and past the person's id
                   ("certainty", admin.ChoicesFieldListFilter))  # structure, with its filter class


# SPEC AD-2: filtering by whose rows they are is structure even where the person is not a column; past the
# person's id it is not.
def test_whose_rows_is_a_filter_even_unlisted(admin_user, rf):
    model_admin = _OwnerUnlisted(Fact, admin.site)
    request = rf.get("/")
    request.user = admin_user
    assert model_admin.lookup_allowed("owner__id__exact", "1", request)
    assert model_admin.lookup_allowed("owner", "1", request)
    assert not model_admin.lookup_allowed("owner__first_name", "x", request)
    kept = model_admin.get_list_filter(request)
    assert "category" in kept and "label" not in kept and "owner__username" not in kept
    assert ("certainty", admin.ChoicesFieldListFilter) in kept


class _TranscriptUnlisted(EpisodeAdmin):
    """An admin that does not list the transcript an episode came from."""

    shown = tuple(name for name in EpisodeAdmin.shown if name != "transcript")


# SPEC AD-2: a relation that is not structure of this list is no filter, not even by its id.
def test_an_unlisted_relation_is_no_filter(admin_user, rf):
    model_admin = _TranscriptUnlisted(Episode, admin.site)
    request = rf.get("/")
    request.user = admin_user
    assert not model_admin.lookup_allowed("transcript__id__exact", "1", request)
    assert EpisodeAdmin(Episode, admin.site).lookup_allowed("transcript__id__exact", "1", request)


# SPEC AD-2: a staff save that changes a person's record is recorded for them; a save that changes nothing is not.
def test_a_staff_save_is_recorded_only_when_it_changes_something(admin_client, user, frozen_clock):
    todo = todo_create(owner=user, title="Renew passport", notes="", status="open", due_at=None)
    url = reverse("admin:memory_todo_change", args=[todo.pk])
    unchanged = {"status": "open", "due_at_0": "", "due_at_1": "", "_save": "Save"}
    assert admin_client.post(url, unchanged).status_code == 302
    assert records(user) == []
    assert admin_client.post(url, {**unchanged, "status": "done"}).status_code == 302
    assert records(user) == [("admin", "change", [f"todo:{todo.pk}"])]


# SPEC AD-2: a list whose link column is masked still links every row to its change form, from its first column.
def test_a_masked_link_column_moves_the_link(admin_user, rf):
    model_admin = _OwnerUnlisted(Fact, admin.site)
    request = rf.get("/")
    request.user = admin_user
    shown = model_admin.get_list_display(request)
    assert model_admin.get_list_display_links(request, shown) == shown[:1]


# SPEC AD-2: the person's page lists what staff did, in both languages, only theirs, and is never cached.
def test_the_persons_page(user, other_user, admin_user, frozen_clock, django_assert_max_num_queries):
    staff_reveal(staff=admin_user, person=user, reason="Looking into a reported problem", ticket="SUP-1")
    staff_access_record(staff=admin_user, person=user, action="archive", records=["fact:3"])
    staff_access_record(staff=admin_user, person=other_user, action="change", records=["fact:9"],
                        reason="bob's own")
    client = login(user)
    with django_assert_max_num_queries(6):
        page = client.get(reverse("consent:staff-access"), HTTP_ACCEPT_LANGUAGE="en")
    assert "no-store" in page["Cache-Control"]
    html = page.content.decode()
    assert html.count('class="history-event staff-access-record"') == 2
    assert "Looking into a reported problem" in html and "SUP-1" in html and "fact:3" in html
    assert "bob's own" not in html and "fact:9" not in html
    assert html.index("Archived facts") < html.index("Revealed your content")  # newest first
    assert reverse("consent:staff-access") in client.get(reverse("consent:facts")).content.decode()
    chinese = client.get(reverse("consent:staff-access"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "LifeOS 工作人员的访问" in chinese and "查看了你的内容" in chinese
    anonymous = login(other_user).get(reverse("consent:staff-access")).content.decode()
    assert "Looking into a reported problem" not in anonymous


# SPEC AD-2: the person's download carries every staff access entry.
def test_the_export_has_the_staff_access(user, admin_user, frozen_clock):
    record = staff_reveal(staff=admin_user, person=user, reason="Looking into a reported problem", ticket="SUP-1")
    staff_access_record(staff=admin_user, person=user, action="archive", records=["fact:3"])
    data = json.loads(login(user).get(reverse("consent:export")).content)
    assert data["staff_access"] == [
        {"at": record.at.isoformat(), "staff": "admin", "action": "reveal", "records": [],
         "reason": "Looking into a reported problem", "ticket": "SUP-1", "revealed_until": record.until.isoformat()},
        {"at": record.at.isoformat(), "staff": "admin", "action": "archive", "records": ["fact:3"], "reason": "",
         "ticket": "", "revealed_until": None},
    ]


# SPEC AD-2: admin log entries written before masking named records by their text; the migration renames them.
def test_older_log_entries_are_renamed(user, admin_user):
    import importlib

    from django.apps import apps
    from django.contrib.admin.models import CHANGE, LogEntry
    from django.contrib.contenttypes.models import ContentType

    fact = fact_create(owner=user, category="health", label="Diagnosis", value="v")
    entry = LogEntry.objects.create(user=admin_user, content_type=ContentType.objects.get_for_model(Fact),
                                    object_id=str(fact.pk), object_repr="Health: Diagnosis", action_flag=CHANGE)
    importlib.import_module("apps.staff.migrations.0002_mask_admin_log_names").mask_names(apps, None)
    entry.refresh_from_db()
    assert entry.object_repr == f"fact #{fact.pk}"


# SPEC AD-2: a staff account that goes leaves its records, named by its login; a person who goes takes theirs.
def test_records_outlive_the_staff_account_not_the_person(user, other_user, django_user_model, frozen_clock):
    helper = django_user_model.objects.create_user("helper", "", "pw", is_staff=True)
    staff_access_record(staff=helper, person=user, action="change", records=["fact:1"])
    staff_access_record(staff=helper, person=other_user, action="change", records=["fact:2"])
    helper.delete()
    assert [(r.staff_id, r.staff_name) for r in AccessRecord.objects.filter(person=user)] == [(None, "helper")]
    other_user.delete()
    assert list(AccessRecord.objects.values_list("person__username", flat=True)) == ["alice"]
