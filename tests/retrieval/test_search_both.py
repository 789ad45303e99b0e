"""Words and meaning side by side: the statements on the caller's thread, the arithmetic on another while the
keyword statement runs (SPEC S-4; docs/search.md "Speed and memory")."""

from __future__ import annotations

import threading

import pytest
from django.db import DatabaseError
from django.db import connection as db_connection

from apps.consent.selectors.visibility import visible_facts
from apps.consent.selectors.visible_set import visible_set_stamp
from apps.retrieval import hybrid, vectors
from apps.retrieval.backends import SearchScope, get_search_backend
from apps.retrieval.searchable import USER_PROFILE
from apps.retrieval.selectors import EXTERNAL_FACT_FIELDS
from tests.retrieval.test_embeddings import connect  # noqa: F401 - a fixture
from tests.retrieval.test_kept_scopes import DOG, matched, profile  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db


def scopes_of(connection) -> list[SearchScope]:
    return [SearchScope(USER_PROFILE, EXTERNAL_FACT_FIELDS, visible_facts(connection=connection),
                        stamp=visible_set_stamp(connection=connection))]


@pytest.fixture
def threads(monkeypatch):
    """The threads that ran statements and that compared vectors, in this test."""
    seen = {"statements": set(), "products": set()}
    products = vectors.products

    def recorded(*args):
        seen["products"].add(threading.get_ident())
        return products(*args)

    def execute(run, sql, params, many, context):
        seen["statements"].add(threading.get_ident())
        return run(sql, params, many, context)

    monkeypatch.setattr(vectors, "products", recorded)
    with db_connection.execute_wrapper(execute):
        yield seen


# SPEC S-4: the database is asked on the caller's thread only (its connection and transaction), and the
# comparisons run beside the keyword statement, not after it.
def test_statements_stay_on_the_callers_thread_and_the_products_run_beside_them(profile, threads):  # noqa: F811 - the fixture imported above
    connection, pet = profile
    assert pet.pk in matched(connection)  # found by meaning alone
    assert threads["statements"] == {threading.get_ident()}
    assert threads["products"] and threading.get_ident() not in threads["products"]


# SPEC S-4: the same answer as asking one after the other, for words, meaning and both.
@pytest.mark.parametrize("query", [DOG, "Berlin", "golden retriever", "no such words anywhere"])
def test_both_at_once_answer_as_one_after_the_other(profile, query):  # noqa: F811 - the fixture imported above
    connection, _ = profile
    backend, scopes = get_search_backend(), scopes_of(connection)
    keyword = backend.search(owner_id=connection.user_id, query=query, scopes=scopes, offset=0, limit=20)
    meaning = hybrid.meaning_hits(backend, owner_id=connection.user_id, query=query, scopes=scopes)
    both = hybrid.search_both(backend, owner_id=connection.user_id, query=query, scopes=scopes, keyword_limit=20)
    assert both == (keyword, meaning)


# SPEC S-4: a keyword statement that fails is reported as it is, after the comparisons have ended: no thread
# is left reading a person's vectors for a search that is over.
def test_a_failed_keyword_statement_waits_for_the_comparisons(profile, monkeypatch):  # noqa: F811 - the fixture imported above
    connection, _ = profile
    backend, scopes = get_search_backend(), scopes_of(connection)
    started, ended = threading.Event(), threading.Event()
    best = hybrid._best

    def slow_best(scored, limit):
        started.set()
        threading.Event().wait(0.2)  # still comparing when the statement fails
        found = best(scored, limit)
        ended.set()
        return found

    def failing(**_):
        assert started.wait(5)
        raise DatabaseError("the keyword statement failed")

    monkeypatch.setattr(hybrid, "_best", slow_best)
    monkeypatch.setattr(backend, "search", failing)
    with pytest.raises(DatabaseError, match="keyword statement failed"):
        hybrid.search_both(backend, owner_id=connection.user_id, query=DOG, scopes=scopes, keyword_limit=20)
    assert ended.is_set()
