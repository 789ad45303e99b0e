"""The download's access history part, pinned (SPEC D-8, A-4): what each connection was sent, oldest first."""

from datetime import timedelta

import pytest
from django.db import connection as db

from apps.common import clock
from apps.consent import partitions
from apps.consent.models import AccessEvent
from apps.consent.services.export import export_for

from .factories import make_application, make_connection, make_fact

pytestmark = pytest.mark.django_db


def _event(connection, tool, facts, at):
    if partitions.partitioned(db):
        partitions.ensure(covering=[at])
    return AccessEvent.objects.create(connection=connection, tool=tool, facts=facts, created_at=at)


def test_export_history_is_each_connections_retained_events_oldest_first(user, other_user, frozen_clock):
    # SPEC D-8: the download's history: per connection, every retained event, its facts and records apart.
    now = clock.now()
    first = make_connection(user, application=make_application("First"))
    second = make_connection(user, application=make_application("Second"))
    theirs = make_connection(other_user, application=make_application("Theirs"))
    tea = make_fact(user)
    at = now - timedelta(days=3)
    _event(second, "search_user_context", [[tea.pk, 2], "note:7", "note:8"], at)
    _event(first, "get_user_context", [[tea.pk, 1], [tea.pk + 1, 4]], at)  # same moment: by id
    _event(first, "search_user_context", [], at)
    _event(first, "get_user_context", [[tea.pk, 3]], now - timedelta(minutes=5))
    _event(first, "get_user_context", [[tea.pk, 1]], now - timedelta(days=10))  # older, written later
    _event(first, "get_user_context", [[tea.pk, 9]], now - timedelta(days=401))  # past retention (J-1)
    _event(theirs, "get_user_context", [[tea.pk, 5]], now - timedelta(days=1))  # someone else's

    assistants = {a["name"]: a["access_history"] for a in export_for(user=user)["assistants"]}

    def moment(delta):
        return (now - delta).isoformat()

    assert assistants == {
        "First": [
            {"at": moment(timedelta(days=10)), "tool": "get_user_context",
             "facts": [{"fact_id": tea.pk, "version": 1}], "records": []},
            {"at": moment(timedelta(days=3)), "tool": "get_user_context",
             "facts": [{"fact_id": tea.pk, "version": 1}, {"fact_id": tea.pk + 1, "version": 4}], "records": []},
            {"at": moment(timedelta(days=3)), "tool": "search_user_context", "facts": [], "records": []},
            {"at": moment(timedelta(minutes=5)), "tool": "get_user_context",
             "facts": [{"fact_id": tea.pk, "version": 3}], "records": []},
        ],
        "Second": [
            {"at": moment(timedelta(days=3)), "tool": "search_user_context",
             "facts": [{"fact_id": tea.pk, "version": 2}], "records": ["note:7", "note:8"]},
        ],
    }
    # Key order is part of the download's text (json.dumps keeps it).
    assert list(assistants["Second"][0]) == ["at", "tool", "facts", "records"]


def test_export_history_reads_in_constant_statements(user, frozen_clock, django_assert_max_num_queries):
    # Two connections or ten, the download's statements stay the same: one read of the history.
    for n in range(10):
        connection = make_connection(user, application=make_application(f"Assistant {n}"))
        for minutes in range(3):
            _event(connection, "get_user_context", [[n, minutes]], clock.now() - timedelta(minutes=minutes))
    with django_assert_max_num_queries(8):
        document = export_for(user=user)
    assert sum(len(a["access_history"]) for a in document["assistants"]) == 30
