"""One registry of resource types: the search projection indexes what the declarations say (SPEC R-1, R-6)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from apps.memory.services import fact_archive
from apps.retrieval.models import SearchProjection
from apps.retrieval.registry import indexed_type, indexed_types, registry
from tests.consent.factories import make_fact

pytestmark = pytest.mark.django_db


# SPEC R-1, C-8: a fact's searchable fields come from its one declaration — label (its title, weighing
# twice) and value, never evidence.
def test_the_projection_reads_the_facts_declaration():
    fields = {field.path: field.weight for field in indexed_type("user_profile").fields}
    assert fields == {"/label": 2.0, "/value": 1.0}


# SPEC R-1: every declared type with searchable fields and a model is indexed, and no other.
def test_every_declared_searchable_type_is_indexed():
    declared = {r.type for r in registry.all() if r.declaration.searchable and r.adapter.model is not None}
    assert {indexed.resource_type for indexed in indexed_types()} == declared
    for indexed in indexed_types():
        assert {f.path for f in indexed.fields} == set(registry.get(indexed.resource_type).declaration.searchable)


# SPEC R-6: what the layer calls current decides what is indexed: an archived fact leaves the projection
# in its own write, and a rebuild then finds nothing to repair.
def test_an_archived_fact_leaves_the_projection(user, capsys):
    fact = make_fact(user, label="Pet", value="Corgi named Mochi")
    assert set(SearchProjection.objects.filter(record_id=fact.pk, resource_type="user_profile")
               .values_list("field", flat=True)) == {"/label", "/value"}
    fact_archive(fact=fact)
    assert not SearchProjection.objects.filter(record_id=fact.pk, resource_type="user_profile").exists()
    call_command("rebuild_search_projection", "--dry-run")
    assert "drift: 0 (in step)" in capsys.readouterr().out
