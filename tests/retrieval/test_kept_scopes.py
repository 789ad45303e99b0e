"""A search by meaning reuses the rows in scope it listed before only while the database's stamps say
nothing they depend on changed (SPEC S-4, C-1, R-5; docs/search.md "Speed and memory").

Every change here is made with plain SQL, as another web worker, a bulk load or an operator would
make it: no code of this process sees it happen, so only the database's stamps can tell the search.
"""

from __future__ import annotations

import pytest
from django.db import connection as db_connection
from django.test.utils import CaptureQueriesContext

from apps.consent.selectors.visibility import visible_facts
from apps.consent.selectors.visible_set import visible_set_stamp
from apps.consent.services import shares_set
from apps.retrieval import hybrid
from apps.retrieval.backends import SearchScope, get_search_backend
from apps.retrieval.searchable import USER_PROFILE
from apps.retrieval.selectors import search_visible_matches
from tests.mcp_server.conftest import make_fact
from tests.retrieval.test_embeddings import connect  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db
DOG = "用户养狗吗"  # "does the user have a dog": matches the pet by meaning only, never by words


def matched(connection, query: str = DOG) -> list[int]:
    """The ids the MCP search tool is given, with the visible set's stamps as the tool passes them."""
    return list(search_visible_matches(
        owner_id=connection.user_id, visible=visible_facts(connection=connection),
        visible_stamp=visible_set_stamp(connection=connection), query=query, offset=0, limit=10).ids)


def elsewhere(sql: str, params: list) -> None:
    with db_connection.cursor() as cursor:
        cursor.execute(sql, params)


@pytest.fixture
def profile(meaning, user, connect):  # noqa: F811 - the fixture imported above
    city = make_fact(user, 1, label="City", value="Lives in Berlin")
    pet = make_fact(user, 2, label="Household", value="Golden retriever named Mochi")  # the value is the dog
    connection = connect(("profile:read", "context:search"))
    shares_set(connection=connection, fact_ids={city.pk, pet.pk})
    return connection, pet


# SPEC C-1, S-4: whatever leaves the visible set, the next search by meaning no longer compares it; what
# comes back is compared again.
@pytest.mark.parametrize("hide, show", [
    ("UPDATE memory_fact SET sensitive = TRUE WHERE id = %(fact)s",
     "UPDATE memory_fact SET sensitive = FALSE WHERE id = %(fact)s"),
    # changed since it was shared: visible again only at the version it was shared at
    ("UPDATE memory_fact SET version = version + 1 WHERE id = %(fact)s",
     "UPDATE memory_fact SET version = version - 1 WHERE id = %(fact)s"),
    ("UPDATE consent_factshare SET fact_version = fact_version + 7 WHERE fact_id = %(fact)s",
     "UPDATE consent_factshare SET fact_version = fact_version - 7 WHERE fact_id = %(fact)s"),
    ("DELETE FROM consent_factshare WHERE fact_id = %(fact)s", None),  # the share ended; shared again below
])
def test_a_kept_scope_never_outlives_a_change_made_elsewhere(profile, hide, show):
    connection, pet = profile
    assert pet.pk in matched(connection)  # the rows in scope are listed and kept
    assert pet.pk in matched(connection)  # … and reused
    elsewhere(hide, {"fact": pet.pk})
    assert pet.pk not in matched(connection)
    if show is None:
        shares_set(connection=connection, fact_ids={pet.pk})
    else:
        elsewhere(show, {"fact": pet.pk})
    assert pet.pk in matched(connection)


# SPEC S-4, R-5: a vector another worker dropped (its text changed there) is not compared by the one kept here.
def test_a_vector_dropped_elsewhere_is_not_compared(profile):
    connection, pet = profile
    assert pet.pk in matched(connection)
    elsewhere("UPDATE retrieval_searchprojection SET vector = NULL, vector_model = NULL"
              " WHERE resource_type = %s AND record_id = %s", [USER_PROFILE, pet.pk])
    assert pet.pk not in matched(connection)


# SPEC R-5, S-4: under the same stamps, a scope of fewer readable fields never gets the wider scope's rows.
def test_a_narrower_field_scope_never_reuses_a_wider_list(profile):
    connection, pet = profile
    backend, visible = get_search_backend(), visible_facts(connection=connection)
    stamp = visible_set_stamp(connection=connection)

    def fields_matched(fields):
        scopes = [SearchScope(USER_PROFILE, fields, visible, stamp=stamp)]
        return {(hit.record_id, hit.field) for hit in hybrid.meaning_hits(
            backend, owner_id=connection.user_id, query=DOG, scopes=scopes)}

    assert (pet.pk, "/value") in fields_matched(("/label", "/value"))
    assert all(field == "/label" for _, field in fields_matched(("/label",)))


# SPEC S-4: a search that reuses its list runs the same statements as the one that listed it.
def test_reusing_the_list_costs_no_extra_statement(profile):
    connection, pet = profile

    def statements():
        with CaptureQueriesContext(db_connection) as queries:
            assert pet.pk in matched(connection)
        return len(queries.captured_queries)

    matched(connection)  # the vectors are read once
    # The keyword statement and the rows in scope (or their stamps, read once for the vectors and the texts),
    # inside one savepoint; then the texts the meaning matches were made from and the matched facts, for their
    # proof (SPEC R-6).
    assert statements() == statements() == (5 if db_connection.vendor == "postgresql" else 6)
