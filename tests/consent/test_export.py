"""The person's download: their own facts, shares, proposals and access history — never a token."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from oauth2_provider.models import get_access_token_model, get_refresh_token_model

from apps.common import clock
from apps.consent.services import access_event_record
from apps.consent.services.export import export_for
from apps.memory.services import fact_update
from tests.consent.factories import make_application, make_connection, make_fact, share
from tests.consent.test_pages_support import anonymous_client, client_for

pytestmark = pytest.mark.django_db

ACCESS_SECRET = "access-token-that-must-never-leave-0123456789"
REFRESH_SECRET = "refresh-token-that-must-never-leave-0123456789"


@pytest.fixture
def setup(user, other_user):
    connection = make_connection(user)
    tea, job = make_fact(user, evidence="said at lunch"), make_fact(user, category="work_study", label="Job")
    share(connection, tea, job)
    fact_update(fact=job, value="Architect")
    access_event_record(connection=connection, tool="get_user_context", facts=[(tea.pk, 1), (job.pk, 1)])
    access = get_access_token_model().objects.create(
        user=user, application=connection.application, token=ACCESS_SECRET,
        expires=clock.now() + timedelta(minutes=10), scope="profile:read",
    )
    get_refresh_token_model().objects.create(
        user=user, application=connection.application, token=REFRESH_SECRET, access_token=access,
    )
    make_fact(other_user, label="Bob's own")
    make_connection(other_user, application=make_application("Bob's assistant"))
    return {"connection": connection, "tea": tea, "job": job}


def test_export_contains_facts_shares_and_history(user, setup):
    data = export_for(user=user)
    assert data["format"] == "lifeos-memory-export" and data["user"] == {"username": "alice"}
    facts = {fact["id"]: fact for fact in data["facts"]}
    assert set(facts) == {setup["tea"].pk, setup["job"].pk}
    assert facts[setup["tea"].pk]["evidence"] == "said at lunch"
    assert facts[setup["job"].pk]["version"] == 2
    [assistant] = data["assistants"]
    assert assistant["name"] == "Helpful Assistant" and assistant["name_verified"] is False
    shares = {(s["fact_id"], s["fact_version"]) for s in assistant["shares"]}
    assert shares == {(setup["tea"].pk, 1), (setup["job"].pk, 1)}
    assert assistant["access_history"][0]["tool"] == "get_user_context"
    assert assistant["access_history"][0]["facts"] == [
        {"fact_id": setup["tea"].pk, "version": 1}, {"fact_id": setup["job"].pk, "version": 1},
    ]


def test_export_never_contains_tokens_or_other_people(user, setup):
    text = json.dumps(export_for(user=user))
    assert ACCESS_SECRET not in text and REFRESH_SECRET not in text
    assert "token" not in text.lower() and "secret" not in text.lower() and "client_id" not in text
    assert "Bob" not in text


def test_export_download(user, setup):
    response = client_for(user).get("/me/export/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response["Content-Disposition"].startswith('attachment; filename="lifeos-memory-')
    assert "no-store" in response["Cache-Control"]
    assert json.loads(response.content)["facts"][0]["label"] == "Tea"


def test_export_needs_login():
    response = anonymous_client().get("/me/export/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


# SPEC J-2, P-5: a pending proposal past its 30 days is expired in the download even before the
# hourly sweep has recorded it (the local default schedules no sweep at all).
def test_export_shows_proposals_past_expiry_as_expired_before_the_sweep(user, frozen_clock):
    from apps.consent.services import proposal_submit

    connection = make_connection(user)
    arguments = {"op": "add", "category": "preferences", "label": "Coffee", "value": "Flat white"}
    old = proposal_submit(connection=connection, arguments=arguments)
    frozen_clock.advance(timedelta(days=29))
    fresh = proposal_submit(connection=connection, arguments={**arguments, "label": "Tea"})
    frozen_clock.advance(timedelta(days=1))  # old: exactly 30 days, fresh: 1 day

    proposals = {p["id"]: p["status"] for p in export_for(user=user)["assistants"][0]["proposals"]}
    assert proposals == {old.pk: "expired", fresh.pk: "pending"}
