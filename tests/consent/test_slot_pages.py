"""One fact per slot on the connection's page (SPEC P-9, W-5, W-6): a change side by side, plain forms."""

from __future__ import annotations

import pytest
from django.db import connection as db_connection
from django.test.utils import CaptureQueriesContext

from tests.consent.factories import make_connection, make_fact
from tests.consent.test_pages_support import client_for, compiled_catalogs  # noqa: F401  (fixtures)
from tests.consent.test_slots import cities, propose

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]


@pytest.fixture
def connection(user):
    return make_connection(user)


@pytest.fixture
def city(user):
    return make_fact(user, category="basic", label="City", value="Shanghai", evidence="")


# --- The page ---------------------------------------------------------------------------------------

def _page(user, connection):
    return client_for(user).get(f"/me/assistants/{connection.pk}/").content.decode()


def test_the_page_shows_the_change_side_by_side_with_replace_and_keep_both(user, connection, city):
    proposal = propose(connection, label="常住城市", value="北京")
    body = _page(user, connection)
    card = body[body.index(f'id="proposal-{proposal.pk}"'):]
    card = card[:card.index("</article>")]
    assert "Now saved (version 1)" in card and "Shanghai" in card and "北京" in card
    assert 'name="resolution" value="replace"' in card and 'name="resolution" value="keep"' in card
    assert card.index("Replace") < card.index("Keep both")


def test_the_page_marks_what_is_already_known(user, connection, city):
    proposal = propose(connection, label="Lives in", value="Shanghai")
    body = _page(user, connection)
    card = body[body.index(f'id="proposal-{proposal.pk}"'):]
    assert "Already known" in card[:card.index("</article>")]


def test_replace_and_keep_both_work_as_plain_forms(user, connection, city):
    # SPEC W-5: no JavaScript, a POST with the form's fields.
    replace = propose(connection)
    response = client_for(user).post(f"/me/proposals/{replace.pk}/confirm/", {"resolution": "replace"}, follow=True)
    assert "Replaced" in response.content.decode() and cities(user) == ["Beijing"]
    keep = propose(connection, value="Hangzhou")
    client_for(user).post(f"/me/proposals/{keep.pk}/confirm/", {"resolution": "keep"})
    assert sorted(cities(user)) == ["Beijing", "Hangzhou"]


def test_a_slot_changed_since_shown_is_refused_with_a_clear_message(user, connection):
    proposal = propose(connection)
    make_fact(user, category="basic", label="City", value="Shanghai")
    response = client_for(user).post(f"/me/proposals/{proposal.pk}/confirm/")
    assert response.status_code == 409 and "look at it again" in response.content.decode()


def test_the_page_with_changes_costs_the_same_queries_as_without(user, connection):
    # SPEC W-6: what each suggestion is comes with its row; no query per suggestion.
    for number in range(3):
        make_fact(user, category="basic", label=f"Slot {number}", value="old")
        propose(connection, label=f"Slot {number}", value="new")
    client = client_for(user)
    client.get(f"/me/assistants/{connection.pk}/")
    with CaptureQueriesContext(db_connection) as few:
        client.get(f"/me/assistants/{connection.pk}/")
    for number in range(3, 12):
        make_fact(user, category="basic", label=f"Slot {number}", value="old")
        propose(connection, label=f"Slot {number}", value="new")
    with CaptureQueriesContext(db_connection) as many:
        client.get(f"/me/assistants/{connection.pk}/")
    assert len(many) == len(few)


def test_bulk_confirm_from_the_page(user, connection, city):
    first, second = propose(connection), propose(connection, category="preferences", label="Tea", value="Oolong")
    response = client_for(user).post(f"/me/assistants/{connection.pk}/suggestions/confirm/",
                                     {"proposals": [first.pk, second.pk], "action": "selected"}, follow=True)
    assert "Confirmed 2 suggestions." in response.content.decode()
    assert cities(user) == ["Beijing"]
