"""The memory resources in admin (SPEC AD-1), their content masked unless revealed (SPEC AD-2)."""

from datetime import UTC, date, datetime, timedelta

import pytest
from django.urls import reverse

from apps.memory import storage
from apps.memory.models import (
    CalendarEvent,
    Contact,
    Digest,
    Episode,
    Fact,
    Intent,
    Todo,
    Transcript,
    VoiceMemo,
)
from apps.memory.services import (
    calendar_event_create,
    contact_create,
    digest_create,
    episode_create,
    fact_create,
    intent_create,
    todo_create,
    transcript_create,
    voice_memo_create,
)
from apps.staff.services import staff_reveal

pytestmark = pytest.mark.django_db

WHEN = datetime(2026, 5, 25, 2, 0, tzinfo=UTC)


@pytest.fixture
def records(user):
    """One record of each of the nine types, Chinese and English, written through the services."""
    fact = fact_create(
        owner=user, category="preferences", label="咖啡", value="只喝美式，不加糖", evidence="聊天时提到"
    )
    transcript = transcript_create(owner=user, title="产品周会录音", recorded_at=WHEN, segments=[
        {"speaker": "林若溪", "start_ms": 0, "end_ms": 4000, "text": "今天讨论定价。"},
        {"speaker": "Alex", "start_ms": 4000, "end_ms": 9000, "text": "Survey results first."},
    ])
    event = calendar_event_create(owner=user, title="Weekly product sync", starts_at=WHEN,
                                  ends_at=WHEN + timedelta(hours=1), location="501 会议室", reminders=[15])
    todo = todo_create(owner=user, title="Send the pricing proposal", due_at=WHEN + timedelta(days=4))
    contact = contact_create(owner=user, display_name="王小明", aliases=["小明", "Xiaoming"], relation="同事")
    episode = episode_create(owner=user, title="产品周会：定价", occurred_at=WHEN, summary="决定了定价方案",
                             topics=["pricing", "定价"], participants=[{"display_name": "王小明"}],
                             transcript=transcript, calendar_event=event, todos=[todo])
    memo = voice_memo_create(owner=user, title="Grocery list", text="Eggs, tofu, 葱姜", recorded_at=WHEN)
    digest = digest_create(owner=user, period="week", period_start=date(2026, 5, 25), period_end=date(2026, 5, 31),
                           summary="本周定下了定价 and shipped the beta", episodes=[episode])
    intent = intent_create(owner=user, action="Move the proposal deadline to Thursday", target_ref=f"todo:{todo.pk}")
    return {Fact: fact, Transcript: transcript, CalendarEvent: event, Todo: todo, Contact: contact,
            Episode: episode, VoiceMemo: memo, Digest: digest, Intent: intent}


# What each record holds that only its owner reads: admin search never matches it (SPEC AD-2).
CONTENT_WORDS = {
    Fact: ["咖啡", "美式"],
    Transcript: ["周会"],
    CalendarEvent: ["product", "会议室"],
    Todo: ["pricing", "PROPOSAL"],
    Contact: ["小明", "Xiaoming", "同事"],
    Episode: ["定价", "pricing"],
    VoiceMemo: ["grocery", "葱姜"],
    Digest: ["定价", "beta"],
    Intent: ["deadline"],
}


def url(model, action, *args):
    return reverse(f"admin:memory_{model._meta.model_name}_{action}", args=args)


@pytest.fixture
def revealed(admin_user, user):
    """The staff member of ``admin_client`` reads alice's content, for a reason (SPEC AD-2)."""
    return staff_reveal(staff=admin_user, person=user, reason="Support ticket: the person asked us to fix a record")


# SPEC AD-1, AD-2: every memory model has a working list, search and detail page in admin; search finds a
# record by its id and its owner's login or e-mail, never by a word of its content.
@pytest.mark.parametrize("model", list(CONTENT_WORDS), ids=lambda m: m.__name__)
def test_changelist_search_and_change_page(admin_client, records, model, user):
    user.email = "alice@example.com"
    user.save()
    listing = admin_client.get(url(model, "changelist"))
    assert listing.status_code == 200
    assert listing.context["cl"].result_count == 1
    for query in ["alice", "alice@example.com", str(records[model].pk)]:
        found = admin_client.get(url(model, "changelist"), {"q": query})
        assert found.status_code == 200
        assert found.context["cl"].result_count == 1, query
    for query in [*CONTENT_WORDS[model], "nothing-like-this"]:
        missed = admin_client.get(url(model, "changelist"), {"q": query})
        assert missed.status_code == 200 and missed.context["cl"].result_count == 0, query
    assert admin_client.get(url(model, "change", records[model].pk)).status_code == 200


# SPEC AD-1: the list filters work too (the deleted filter on every resource, the fact filters).
@pytest.mark.parametrize("model", [m for m in CONTENT_WORDS if m is not Fact], ids=lambda m: m.__name__)
def test_deleted_filter(admin_client, records, model):
    response = admin_client.get(url(model, "changelist"), {"deleted": "yes"})
    assert response.status_code == 200 and response.context["cl"].result_count == 0


def test_fact_filters(admin_client, records):
    # SPEC AD-1, D-1: filter facts by category, certainty, sensitivity and status.
    for params, expected in [({"category__exact": "preferences"}, 1), ({"category__exact": "health"}, 0),
                             ({"certainty__exact": "guess"}, 0), ({"sensitive__exact": "0"}, 1),
                             ({"status__exact": "active"}, 1)]:
        response = admin_client.get(url(Fact, "changelist"), params)
        assert response.status_code == 200 and response.context["cl"].result_count == expected, params


# SPEC AD-2: without a reveal staff correct the structure (category, certainty, sensitive) and never the
# text they cannot see: the label, value and evidence are not form fields, and a posted value is ignored.
def test_masked_fact_edit_changes_only_structure(admin_client, records):
    fact = records[Fact]
    page = admin_client.get(url(Fact, "change", fact.pk))
    assert set(page.context["adminform"].form.fields) == {"category", "certainty", "sensitive"}
    assert "只喝美式" not in page.content.decode()
    form = {"category": "habits", "label": "x", "value": "overwritten", "certainty": "confirmed"}
    response = admin_client.post(url(Fact, "change", fact.pk), form)
    assert response.status_code == 302, response.context["adminform"].form.errors
    fact.refresh_from_db()
    assert (fact.category, fact.label, fact.value, fact.version) == ("habits", "咖啡", "只喝美式，不加糖", 2)


# SPEC AD-1, C-2: version is shown, never a form field; an admin edit goes through the service and bumps it.
def test_fact_edit_goes_through_the_service(admin_client, records, revealed):
    fact = records[Fact]
    page = admin_client.get(url(Fact, "change", fact.pk))
    assert "version" not in page.context["adminform"].form.fields
    form = {"category": "habits", "label": "咖啡", "value": "只喝手冲", "evidence": "聊天时提到",
            "certainty": "confirmed", "version": "99"}
    response = admin_client.post(url(Fact, "change", fact.pk), form)
    assert response.status_code == 302, response.context["adminform"].form.errors
    fact.refresh_from_db()
    assert (fact.category, fact.value, fact.version) == ("habits", "只喝手冲", 2)


# SPEC D-1: a fact added in admin is checked by the detector like any other.
def test_fact_added_in_admin_is_detected(admin_client, user):
    form = {"owner": user.pk, "category": "basic", "label": "手机", "value": "13812345678", "evidence": "",
            "certainty": "confirmed"}
    response = admin_client.post(url(Fact, "add"), form)
    assert response.status_code == 302
    fact = Fact.objects.get(owner=user)
    assert (fact.sensitive, fact.version) == (True, 1)


# SPEC D-1: limits hold in admin as in the services — a form error, never a server error.
def test_fact_admin_refuses_multiline_evidence(admin_client, records, revealed):
    fact = records[Fact]
    form = {"category": "preferences", "label": "咖啡", "value": "只喝美式，不加糖", "evidence": "one\ntwo",
            "certainty": "confirmed"}
    response = admin_client.post(url(Fact, "change", fact.pk), form)
    assert response.status_code == 200
    fact.refresh_from_db()
    assert fact.evidence == "聊天时提到"


# SPEC AD-1: archiving and marking sensitive are list actions that go through the services.
def test_fact_actions(admin_client, records):
    fact = records[Fact]
    admin_client.post(url(Fact, "changelist"), {"action": "mark_sensitive", "_selected_action": [fact.pk]})
    admin_client.post(url(Fact, "changelist"), {"action": "archive", "_selected_action": [fact.pk]})
    fact.refresh_from_db()
    assert (fact.sensitive, fact.status, fact.version) == (True, "archived", 1)


# SPEC AD-1, R-6: resources are soft-deleted from admin, through resource_delete.
def test_soft_delete_action(admin_client, records):
    memo = records[VoiceMemo]
    response = admin_client.post(url(VoiceMemo, "changelist"), {"action": "soft_delete", "_selected_action": [memo.pk]})
    assert response.status_code == 302
    memo.refresh_from_db()
    assert memo.deleted_at is not None
    listing = admin_client.get(url(VoiceMemo, "changelist"), {"deleted": "yes"})
    assert listing.context["cl"].result_count == 1


# SPEC AD-1, AD-2: product-written resources are view-only and cannot be added by hand; their content
# shows only to a staff member who revealed its owner's.
def test_resources_are_view_only(admin_client, records, admin_user, user):
    assert admin_client.get(url(Episode, "add")).status_code == 403
    page = admin_client.get(url(Episode, "change", records[Episode].pk))
    assert not page.context["has_change_permission"]
    assert "产品周会：定价" not in page.content.decode()
    staff_reveal(staff=admin_user, person=user, reason="The person reported a wrong meeting summary")
    assert "产品周会：定价" in admin_client.get(url(Episode, "change", records[Episode].pk)).content.decode()


# SPEC AD-1: a todo's status may be corrected in admin; completed_at follows (todo_update).
def test_todo_status_correction(admin_client, records):
    todo = records[Todo]
    response = admin_client.post(url(Todo, "change", todo.pk), {"status": "done", "due_at_0": "2026-05-29",
                                                                 "due_at_1": "02:00:00"})
    assert response.status_code == 302
    todo.refresh_from_db()
    assert todo.status == "done" and todo.completed_at is not None


# SPEC R-12: the transcript page shows the stored body, and says so plainly when it is gone.
def test_transcript_page_shows_body_or_its_absence(admin_client, records, revealed):
    transcript = records[Transcript]
    page = admin_client.get(url(Transcript, "change", transcript.pk)).content.decode()
    assert "今天讨论定价。" in page
    storage.body_delete(path=transcript.body_path)
    page = admin_client.get(url(Transcript, "change", transcript.pk), HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    assert "The body object is missing from storage." in page.content.decode()
