"""The layer's search by meaning reuses the rows in scope it listed before only while the database's stamps
say the caller's current records are the same (SPEC S-4, R-5, R-6; docs/search.md "Speed and memory").

Every change here is made with plain SQL, as another worker, a bulk load or an operator would make it:
no code of this process sees it happen, so only the database's stamps can tell the search.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.memory import services
from apps.retrieval import hybrid, listing
from apps.retrieval.backends import get_search_backend
from apps.retrieval.backends.postgres import RECORD_STAMPS
from apps.retrieval.layer.access import views
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.searching import search_scopes
from tests.retrieval.layer.builders import access, call

pytestmark = pytest.mark.django_db

GROCERIES = "shopping for food"  # the todo's meaning, in none of its words
DOG = "用户养狗吗"  # "does the user have a dog": the fact's meaning, in none of its words
EVENTS = ("insert", "delete", "update", "truncate")


def groceries(user):
    return services.todo_create(owner=user, title="Grocery list", notes="oat milk, eggs, spinach")


def pet(user):
    return services.fact_create(owner=user, category="basic", label="Household",
                                value="Golden retriever named Mochi", sensitive=False)


def refs(user, query: str) -> list[str]:
    return [hit["ref"] for hit in call(access(user), "search", query=query)["hits"]]


def compared(user, query: str) -> set[tuple[str, int]]:
    """The records the layer's search matches by meaning, under the very scopes (and stamps) it passes."""
    caller, backend = access(user), get_search_backend()
    scopes = search_scopes(caller, [v for v in views(caller) if "search" in v.operations], backend)
    return {(hit.resource_type, hit.record_id)
            for hit in hybrid.meaning_hits(backend, owner_id=user.pk, query=query, scopes=scopes)}


def kept_lists() -> dict:
    """The vector scope lists kept under the records' stamp (a new object each time the scope is listed)."""
    return {key: value for key, value in listing._listed.entries.items()
            if any(isinstance(part, str) and RECORD_STAMPS in part for part in key) and "vector_model" in key[1]}


def elsewhere(sql: str, params: dict) -> None:
    with connection.cursor() as cursor:
        for statement in sql.split(";"):
            cursor.execute(statement, params)


def records_stamp(user) -> int | None:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT stamp FROM {RECORD_STAMPS} WHERE owner_id = %s", [user.pk])
        row = cursor.fetchone()
    return None if row is None else row[0]


# SPEC S-4, R-5: the second search finds the record from the list the first one made: it reads the stamps
# alone, and the statement that lists the rows in scope is not run (nor planned) again.
@pytest.mark.postgres_only
@pytest.mark.usefixtures("meaning")
def test_a_layer_search_by_meaning_reuses_its_list(user):
    todo = groceries(user)
    assert refs(user, GROCERIES) == [f"todo:{todo.pk}"]
    listed = kept_lists()
    assert len(listed) == 1, listed
    with CaptureQueriesContext(connection) as captured:
        assert refs(user, GROCERIES) == [f"todo:{todo.pk}"]
    kept = kept_lists()
    assert kept.keys() == listed.keys() and all(kept[key] is listed[key] for key in kept)  # not listed again
    stamps = [q["sql"] for q in captured.captured_queries if RECORD_STAMPS in q["sql"]]
    # The stamps alone, read once for the kept vectors and the kept texts (the keyword search's) alike.
    assert len(stamps) == 1 and "string_agg(int8send" not in stamps[0], stamps
    assert not [q["sql"] for q in captured.captured_queries if "string_agg(int8send" in q["sql"]]


# SPEC R-6, S-4, R-5: whatever takes a record out of the caller's current records, the next layer search no
# longer compares it by meaning; what brings it back is compared again.
@pytest.mark.usefixtures("meaning")
@pytest.mark.parametrize("build, query, change, restore", [
    (groceries, GROCERIES, "UPDATE memory_todo SET deleted_at = CURRENT_TIMESTAMP WHERE id = %(id)s",
     "UPDATE memory_todo SET deleted_at = NULL WHERE id = %(id)s"),
    (groceries, GROCERIES, "DELETE FROM memory_todo WHERE id = %(id)s", None),
    # The deferred key checks of the test's own writes first: TRUNCATE refuses a table with checks pending.
    pytest.param(groceries, GROCERIES, "SET CONSTRAINTS ALL IMMEDIATE; TRUNCATE memory_todo CASCADE", None,
                 marks=pytest.mark.postgres_only),
    (pet, DOG, "UPDATE memory_fact SET status = 'archived' WHERE id = %(id)s",
     "UPDATE memory_fact SET status = 'active' WHERE id = %(id)s"),
    (groceries, GROCERIES, "UPDATE memory_todo SET owner_id = %(other)s WHERE id = %(id)s",
     "UPDATE memory_todo SET owner_id = %(owner)s WHERE id = %(id)s"),
], ids=["soft-deleted", "hard-deleted", "truncated", "archived", "moved"])
def test_a_kept_scope_never_outlives_a_change_of_currency_made_elsewhere(user, other_user, build, query, change,
                                                                        restore):
    record = build(user)
    kind = "todo" if build is groceries else "user_profile"
    key, ref = (kind, record.pk), f"{kind}:{record.pk}"
    params = {"id": record.pk, "owner": user.pk, "other": other_user.pk}
    assert key in compared(user, query)  # the rows in scope are listed and kept
    assert ref in refs(user, query)  # … and reused
    elsewhere(change, params)
    assert key not in compared(user, query)
    assert ref not in refs(user, query)
    if restore is not None:
        elsewhere(restore, params)
        assert key in compared(user, query)
        assert ref in refs(user, query)


def _read_columns(adapter) -> set[str]:
    """The columns the WHERE of ``adapter``'s current records reads, each of the type's own table."""
    table = adapter.model._meta.db_table
    columns, nodes = set(), [adapter.current(adapter.records(1)).query.where]
    while nodes:
        node = nodes.pop()
        if hasattr(node, "children"):
            nodes += node.children
            continue
        assert node.lhs.alias == table, (table, node)  # a joined table would need a stamp of its own
        columns.add(node.lhs.target.column)
    return columns


# SPEC S-4, R-6: every table the layer searches keeps the records' stamp, its update trigger watching each
# column its type's current records are chosen by: a new type without them fails here.
@pytest.mark.postgres_only
def test_every_searched_table_moves_the_records_stamp():
    resources = registry.all()
    assert len(resources) >= 9
    for resource in resources:
        table = resource.adapter.model._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute("SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = %s::regclass"
                           " AND NOT tgisinternal AND tgenabled <> 'D'", [table])
            triggers = dict(cursor.fetchall())
        assert {f"{RECORD_STAMPS}_{event}" for event in EVENTS} <= triggers.keys(), (resource.type, triggers)
        when = triggers[f"{RECORD_STAMPS}_update"]  # "… WHEN ((old.deleted_at IS DISTINCT FROM new.deleted_at) …"
        watched = set(re.findall(r"\bold\.(\w+)", when))
        assert _read_columns(resource.adapter) | {"owner_id", "id"} <= watched, (resource.type, when)


# SPEC S-4: an ordinary edit leaves the records' stamp alone (the update trigger's WHEN clause); a change of
# currency moves it.
@pytest.mark.postgres_only
def test_only_a_change_of_currency_moves_the_records_stamp(user):
    todo, fact = groceries(user), pet(user)
    before = records_stamp(user)
    assert before is not None  # the inserts stamped the owner
    elsewhere("UPDATE memory_todo SET title = 'Grocery run', updated_at = now() WHERE id = %(id)s", {"id": todo.pk})
    elsewhere("UPDATE memory_fact SET value = 'A golden retriever', version = version + 1 WHERE id = %(id)s",
              {"id": fact.pk})
    services.todo_update(todo=type(todo).objects.get(pk=todo.pk), title="Weekly groceries", status="done")
    assert records_stamp(user) == before
    elsewhere("UPDATE memory_todo SET deleted_at = now() WHERE id = %(id)s", {"id": todo.pk})
    after = records_stamp(user)
    assert after != before
    elsewhere("UPDATE memory_fact SET status = 'archived' WHERE id = %(id)s", {"id": fact.pk})
    assert records_stamp(user) != after
