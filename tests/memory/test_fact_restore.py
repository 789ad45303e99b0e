"""Restoring an archived fact (SPEC W-2): a new version, so no earlier share counts (SPEC C-2, C-1)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.common import clock
from apps.consent.selectors.visibility import visible_facts
from apps.memory.models import Fact, FactStatus
from apps.memory.services import fact_archive, fact_create, fact_restore, fact_update
from apps.retrieval.models import SearchProjection
from apps.retrieval.services import projection_rebuild
from tests.consent.factories import make_connection, share

pytestmark = pytest.mark.django_db


def make_fact(owner):
    return fact_create(owner=owner, category="preferences", label="Coffee", value="Flat white", evidence="said so")


# SPEC W-2, C-2: the fact is active again, one version up, with its content and note as they were.
def test_restore_brings_the_fact_back_as_a_new_version(user, frozen_clock):
    fact = fact_archive(fact=make_fact(user))
    clock.advance(timedelta(minutes=5))
    restored = fact_restore(fact=fact)
    stored = Fact.objects.get(pk=fact.pk)
    assert (stored.status, stored.version) == (FactStatus.ACTIVE, 2)
    assert (stored.label, stored.value, stored.evidence) == ("Coffee", "Flat white", "said so")
    assert stored.updated_at == clock.now() and restored.version == 2


# SPEC W-2, C-1: sharing is not restored: the assistant that held it sees it only once shared again.
def test_restore_does_not_restore_sharing(user):
    fact = make_fact(user)
    connection = make_connection(user)
    share(connection, fact)
    assert list(visible_facts(connection=connection)) == [fact]
    fact_archive(fact=fact)
    fact_restore(fact=fact)
    assert list(visible_facts(connection=connection)) == []
    share(connection, Fact.objects.get(pk=fact.pk))
    assert list(visible_facts(connection=connection)) == [Fact.objects.get(pk=fact.pk)]


# SPEC W-2: restoring an active fact changes nothing (the same form sent twice restores once).
def test_restoring_an_active_fact_changes_nothing(user):
    fact = fact_archive(fact=make_fact(user))
    fact_restore(fact=fact)
    again = fact_restore(fact=fact)
    assert again.version == 2 and Fact.objects.get(pk=fact.pk).version == 2
    assert fact_restore(fact=make_fact(user)).version == 1


# SPEC W-2, C-2: archive, restore, archive, restore: each restore is a change of its own.
def test_each_restore_is_a_new_version(user):
    fact = make_fact(user)
    fact_update(fact=fact, value="Espresso")
    for expected in (3, 4):
        fact_archive(fact=fact)
        assert fact_restore(fact=fact).version == expected


# SPEC R-6: the restore writes the search projection in its own transaction: nothing for a rebuild to repair.
def test_restore_keeps_the_projection_true(user):
    fact = fact_archive(fact=make_fact(user))
    SearchProjection.objects.filter(record_id=fact.pk).delete()  # as if it had been lost
    fact_restore(fact=fact)
    assert SearchProjection.objects.filter(record_id=fact.pk).exists()
    assert sum(drift.missing for drift in projection_rebuild(dry_run=True).types.values()) == 0
