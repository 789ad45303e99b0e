"""Suggestions on a connection's page: edit, confirm, ignore, conflicts, expiry (SPEC P-5, P-6, P-7)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.common import clock
from apps.consent.models import Proposal
from apps.consent.selectors.visibility import visible_facts
from apps.consent.services import proposal_submit
from apps.memory.models import Fact
from apps.memory.services import fact_update
from tests.consent.factories import make_application, make_connection, make_fact, share
from tests.consent.test_pages_support import client_for, compiled_catalogs, snapshot  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]


@pytest.fixture
def connection(user):
    return make_connection(user)


def propose(connection, **arguments):
    defaults = {"op": "add", "category": "preferences", "label": "Coffee", "value": "Flat white, no sugar",
                "evidence": "Mentioned it twice this week"}
    return proposal_submit(connection=connection, arguments={**defaults, **arguments})


def page(user, connection, query=""):
    return client_for(user).get(f"/me/assistants/{connection.pk}/{query}").content.decode()


def test_pending_proposal_is_shown_with_its_evidence(user, connection):
    proposal = propose(connection)
    body = page(user, connection)
    assert f'id="proposal-{proposal.pk}"' in body
    assert "Flat white, no sugar" in body and "Mentioned it twice this week" in body
    for action in ("confirm", "edit", "ignore"):
        assert f'action="/me/proposals/{proposal.pk}/{action}/"' in body


def test_confirm_add_without_sharing(user, connection):
    proposal = propose(connection)
    response = client_for(user).post(f"/me/proposals/{proposal.pk}/confirm/", follow=True)
    fact = Fact.objects.get(owner=user, label="Coffee")
    assert fact.certainty == "confirmed"
    assert not visible_facts(connection=connection).exists()
    assert "It is not shared with Helpful Assistant." in response.content.decode()
    proposal.refresh_from_db()
    assert proposal.status == "confirmed" and proposal.result_fact == fact


def test_confirm_add_and_share(user, connection):
    proposal = propose(connection)
    client_for(user).post(f"/me/proposals/{proposal.pk}/confirm/", {"share": "on"})
    assert list(visible_facts(connection=connection).values_list("label", flat=True)) == ["Coffee"]


def test_edit_then_confirm(user, connection):
    proposal = propose(connection)
    client_for(user).post(f"/me/proposals/{proposal.pk}/edit/", {
        "category": "habits", "label": "Coffee", "value": "One flat white a day", "evidence": "", "action": "confirm",
    })
    fact = Fact.objects.get(owner=user)
    assert (fact.category, fact.value) == ("habits", "One flat white a day")


def test_edit_only_keeps_it_pending(user, connection):
    proposal = propose(connection)
    client_for(user).post(f"/me/proposals/{proposal.pk}/edit/", {
        "category": "preferences", "label": "Coffee", "value": "Oat flat white", "action": "save",
    })
    proposal.refresh_from_db()
    assert (proposal.status, proposal.value) == ("pending", "Oat flat white")
    assert not Fact.objects.exists()


def test_edit_with_a_secret_is_refused(user, connection):
    proposal = propose(connection)
    before = snapshot()
    response = client_for(user).post(f"/me/proposals/{proposal.pk}/edit/", {
        "category": "preferences", "label": "Wifi", "value": "password: hunter2-Secret!", "action": "confirm",
    })
    assert response.status_code == 400
    assert snapshot() == before
    proposal.refresh_from_db()
    assert (proposal.status, proposal.value) == ("pending", "Flat white, no sugar")


def test_ignore(user, connection):
    proposal = propose(connection)
    client_for(user).post(f"/me/proposals/{proposal.pk}/ignore/")
    proposal.refresh_from_db()
    assert proposal.status == "ignored" and not Fact.objects.exists()
    assert "Earlier suggestion (1)" in page(user, connection)


def test_confirm_update_applies_and_keeps_sharing(user, connection):
    tea = make_fact(user)
    share(connection, tea)
    proposal = propose(connection, op="update", target_fact_id=str(tea.pk), label="", category="",
                       value="Jasmine tea in the afternoon")
    body = page(user, connection)
    assert "Now saved (version 1)" in body and "Suggested, based on version 1" in body
    client_for(user).post(f"/me/proposals/{proposal.pk}/confirm/", {"share": "on"})
    tea.refresh_from_db()
    assert (tea.value, tea.version) == ("Jasmine tea in the afternoon", 2)
    assert list(visible_facts(connection=connection)) == [tea]


# SPEC P-6: a target changed since the proposal: conflict, the newer content stays, both are shown.
def test_conflict_shows_both_versions_and_overwrites_nothing(user, connection):
    tea = make_fact(user)
    share(connection, tea)
    proposal = propose(connection, op="update", target_fact_id=str(tea.pk), value="Jasmine tea")
    fact_update(fact=tea, value="Rooibos in the evening")
    response = client_for(user).post(f"/me/proposals/{proposal.pk}/confirm/", follow=True)
    tea.refresh_from_db()
    assert (tea.value, tea.version) == ("Rooibos in the evening", 2)
    proposal.refresh_from_db()
    assert proposal.status == "conflict"
    body = response.content.decode()
    assert "Nothing was overwritten" in body
    assert "Rooibos in the evening" in body and "Jasmine tea" in body
    assert "Now saved (version 2)" in body and "based on version 1" in body


# SPEC P-5, J-2: expired on read, even before any sweep; it cannot be confirmed.
def test_expired_proposal_is_shown_as_expired_and_cannot_be_confirmed(user, connection, frozen_clock):
    proposal = propose(connection)
    clock.advance(timedelta(days=30, seconds=1))
    body = page(user, connection)
    assert "No suggestions waiting for you." in body and 'href="?earlier=1#earlier">Earlier suggestion (1)' in body
    assert "Expired" in page(user, connection, "?earlier=1")  # SPEC W-6: decided ones are listed when asked for
    response = client_for(user).post(f"/me/proposals/{proposal.pk}/confirm/")
    assert response.status_code == 409
    assert not Fact.objects.exists()
    assert "can no longer be" in response.content.decode()


def test_already_handled_proposal_answers_conflict(user, connection):
    proposal = propose(connection)
    client = client_for(user)
    client.post(f"/me/proposals/{proposal.pk}/ignore/")
    assert client.post(f"/me/proposals/{proposal.pk}/confirm/").status_code == 409
    assert not Fact.objects.exists()


# SPEC P-6, W-5: the same decision sent twice (a double click on a slow network) is answered as the first
# one was — not with "already handled, nothing was changed", which the person would take for a failure.
@pytest.mark.parametrize("action,data,status", [
    ("confirm", {"share": "on"}, "confirmed"),
    ("edit", {"category": "habits", "label": "Coffee", "value": "One a day", "action": "confirm"}, "confirmed"),
    ("ignore", {}, "ignored"),
])
def test_the_same_decision_sent_twice_is_answered_as_the_first(user, connection, action, data, status):
    proposal = propose(connection)
    client = client_for(user)
    first, second = (client.post(f"/me/proposals/{proposal.pk}/{action}/", data) for _ in range(2))
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] == f"/me/assistants/{connection.pk}/#proposal-{proposal.pk}"
    proposal.refresh_from_db()
    assert proposal.status == status and Fact.objects.count() == (status == "confirmed")
    shown = client.get(second["Location"]).content.decode()
    assert "already handled" not in shown
    assert ("Helpful Assistant sees this version." if action == "confirm" else
            "It is not shared with Helpful Assistant." if action == "edit" else "Ignored. Nothing was saved.") in shown


@pytest.mark.parametrize("action,data", [
    ("confirm", {"share": "on"}),
    ("ignore", {}),
    ("edit", {"category": "basic", "label": "Hijacked", "value": "x", "action": "confirm"}),
])
def test_another_persons_proposal_is_not_found(user, other_user, action, data):
    theirs = make_connection(other_user, application=make_application("Bob's assistant"))
    proposal = propose(theirs)
    before = snapshot()
    response = client_for(user).post(f"/me/proposals/{proposal.pk}/{action}/", data)
    assert response.status_code == 404
    assert snapshot() == before
    assert Proposal.objects.get(pk=proposal.pk).status == "pending"


def test_proposals_are_never_on_another_persons_page(user, other_user, connection):
    theirs = make_connection(other_user, application=make_application("Bob's assistant"))
    propose(theirs, label="Bob's coffee")
    assert "Bob&#x27;s coffee" not in page(user, connection)
