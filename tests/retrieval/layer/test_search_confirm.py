"""How a search hit is confirmed against the readable text of its record (SPEC R-5, R-6)."""

import pytest

from apps.memory import services
from tests.retrieval.layer.builders import OPS, T0, access, call

pytestmark = pytest.mark.django_db


# SPEC R-5: a nested field is matched only where it exists: a participant without a name neither
# matches nor breaks the search for the named one beside it.
def test_a_participant_without_the_granted_field_is_passed_over(user):
    episode = services.episode_create(
        owner=user, title="Quarterly planning", occurred_at=T0, summary="Budget agreed.",
        participants=[{"role": "guest"}, {"display_name": "Mirela Voss", "role": "host"}],
    )
    names_only = access(user, {"episode": {"operations": OPS, "fields": ["/participants/*/display_name"]}})
    hits = call(names_only, "search", query="Mirela")["hits"]
    assert [hit["ref"] for hit in hits] == [f"episode:{episode.pk}"]
    assert hits[0]["snippet"] == {"path": "/participants/1/display_name", "text": "Mirela Voss"}


# SPEC R-6: the snippet proving a hit is taken around the query's first term, in the field that holds it.
def test_the_snippet_is_taken_around_the_first_term(user):
    notes = "Quokka sightings at the start. " + "Nothing of note happened here. " * 20 + "Late wombat visit."
    todo = services.todo_create(owner=user, title="Write up the field trip", notes=notes)
    hit = call(access(user), "search", query="quokka wombat", resource="todo")["hits"][0]
    assert hit["ref"] == f"todo:{todo.pk}"
    assert hit["snippet"]["path"] == "/notes"
    assert hit["snippet"]["text"].startswith("Quokka sightings")


# SPEC R-6: terms in different fields: the snippet comes from the field holding the first term.
def test_the_snippet_comes_from_the_field_of_the_first_term(user):
    todo = services.todo_create(owner=user, title="Renew the passport", notes="Ask at the consulate desk")
    hit = call(access(user), "search", query="passport consulate", resource="todo")["hits"][0]
    assert hit["ref"] == f"todo:{todo.pk}"
    assert hit["snippet"] == {"path": "/title", "text": "Renew the passport"}
