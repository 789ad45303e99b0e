"""SPEC R-7, S-3, R-6 on PostgreSQL: the keyword search's first pass from the texts kept in the process answers
exactly as the statement does, reads a text again only when its row changed, and sees every write at once."""

from __future__ import annotations

import random

import pytest
from django.db import connection as db_connection

from apps.common import clock
from apps.consent.models import FactShare
from apps.consent.selectors.visible_set import visible_ids, visible_set_stamp
from apps.consent.services import shares_set
from apps.memory.models import Fact
from apps.memory.services import fact_update
from apps.retrieval.backends import SearchScope, get_search_backend, kept_texts
from apps.retrieval.backends.base import RELEVANCE_DEPTH
from apps.retrieval.searchable import USER_PROFILE, USER_PROFILE_FIELDS
from apps.retrieval.services import projection_rebuild
from tests.consent.factories import make_connection, make_fact, share

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db]

WORDS = ["tea", "green tea", "morning", "run", "reading", "music", "travel", "project", "a", "on",
         "喝茶", "咖啡", "早上喝茶", "跑步", "读书", "项目", "会议", "茶"]
FIRST_PASS = "HAVING"  # only the statement's first pass groups every match by record


@pytest.fixture(autouse=True)
def _nothing_kept():
    kept_texts.forget()
    yield
    kept_texts.forget()


def scope(conn) -> SearchScope:
    return SearchScope(USER_PROFILE, USER_PROFILE_FIELDS, visible_ids(connection=conn),
                       stamp=visible_set_stamp(connection=conn))


class Statements:
    """The statements a block runs, with their parameters."""

    def __init__(self):
        self.seen: list[tuple[str, object]] = []

    def __call__(self, execute, sql, params, many, context):
        self.seen.append((sql, params))
        return execute(sql, params, many, context)

    def with_text(self, part: str) -> list[tuple[str, object]]:
        return [(sql, params) for sql, params in self.seen if part in sql]


def search(conn, query, *, offset=0, limit=10, statements=None):
    statements = statements if statements is not None else Statements()
    with db_connection.execute_wrapper(statements):
        return get_search_backend().search(owner_id=conn.user_id, query=query, scopes=[scope(conn)],
                                           offset=offset, limit=limit)


@pytest.fixture
def many_facts(user):
    """400 shared facts of a few words each (more matches than the relevance pass ranks), many alike."""
    rng = random.Random(11)
    now = clock.now()
    conn = make_connection(user)
    facts = Fact.objects.bulk_create(
        Fact(owner=user, category="preferences", label=" ".join(rng.sample(WORDS, rng.choice((1, 2)))),
             value=" ".join(rng.sample(WORDS, rng.choice((1, 3, 5)))), created_at=now, updated_at=now)
        for _ in range(400))
    FactShare.objects.bulk_create(FactShare(connection=conn, fact=f, fact_version=1, shared_at=now) for f in facts)
    projection_rebuild()
    return conn


# SPEC R-7, S-3: which records, in which order, with which scores — the same from the kept texts as from the
# statement, for one word and several, English and Chinese, a CJK pair, a single character, a word in both
# fields, a word in none; on the first page, across the relevance pass's edge and past it.
@pytest.mark.parametrize("query", ["tea", "green tea", "tea morning", "茶", "喝茶", "早上喝茶 咖啡", "a", "on a",
                                   "project 会议", "reading nothing", "zzz"])
def test_the_kept_texts_answer_as_the_statement_does(many_facts, monkeypatch, query):
    pages = [(0, 10), (0, 50), (RELEVANCE_DEPTH - 5, 10), (RELEVANCE_DEPTH + 20, 50)]
    search(many_facts, query)  # the texts are kept
    kept = Statements()
    from_kept = [search(many_facts, query, offset=offset, limit=limit, statements=kept) for offset, limit in pages]
    assert not kept.with_text(FIRST_PASS)
    monkeypatch.setattr(kept_texts, "MAX_CHARS", 0)  # no scope is kept: every search asks the statement
    kept_texts.forget()
    asked = Statements()
    from_statement = [search(many_facts, query, offset=offset, limit=limit, statements=asked)
                      for offset, limit in pages]
    assert asked.with_text(FIRST_PASS)
    assert from_kept == from_statement
    if query == "a":
        assert from_kept[3], "the query must match past the relevance pass"


# SPEC: across types too — field weights of each type, ties broken by the type's name, then the
# record, on the first page and past the relevance pass — the layer's scopes (under the records' stamp) answer
# the same both ways.
def test_the_kept_texts_answer_as_the_statement_does_across_types(user, monkeypatch):
    from datetime import timedelta

    from apps.memory import services
    from apps.retrieval.layer.access import views
    from apps.retrieval.layer.searching import search_scopes
    from tests.retrieval.layer.builders import T0, access

    # More tied todos than the relevance pass ranks, so the order past it runs from one type into the next.
    for number in range(RELEVANCE_DEPTH + 5):
        services.todo_create(owner=user, title="Quokka hotel", notes=f"quokka island 岛 {number % 3}")
    for number in range(15):
        services.voice_memo_create(owner=user, title="Quokka hotel", text=f"quokka island 岛 {number % 2}",
                                   recorded_at=T0)
        services.calendar_event_create(owner=user, title="Quokka hotel", starts_at=T0, ends_at=T0 + timedelta(hours=1),
                                       location="quokka island 岛")
        services.contact_create(owner=user, display_name="Quokka hotel", notes="on quokka island 岛")
    caller, backend = access(user), get_search_backend()
    queries, pages = ["quokka", "quokka island", "hotel", "岛"], [(0, 50), (RELEVANCE_DEPTH - 10, 70)]

    def answers(statements):
        scopes = search_scopes(caller, [v for v in views(caller) if "search" in v.operations], backend)
        with db_connection.execute_wrapper(statements):
            return [backend.search(owner_id=user.pk, query=query, scopes=scopes, offset=offset, limit=limit)
                    for query in queries for offset, limit in pages]

    answers(Statements())  # the texts are kept
    kept, asked = Statements(), Statements()
    from_kept = answers(kept)
    monkeypatch.setattr(kept_texts, "MAX_CHARS", 0)
    kept_texts.forget()
    from_statement = answers(asked)
    assert not kept.with_text(FIRST_PASS) and asked.with_text(FIRST_PASS)
    assert from_kept == from_statement
    past_the_pass = [hit.resource_type for hit in from_kept[5][10:]]  # "hotel" from the 200th match on
    assert "todo" in past_the_pass and "voice_memo" in past_the_pass, past_the_pass


# SPEC R-6: a kept text is never an old one — a new fact, an edited one and an unshared one are seen by the
# very next search, and only the rows that changed are read again.
def test_every_write_is_seen_and_only_changed_rows_are_read_again(user):
    conn = make_connection(user)
    facts = [make_fact(user, label=f"Sport {n}", value=f"sailing on day {n}") for n in range(30)]
    share(conn, *facts)

    def found(query="sailing"):
        return sorted(hit.record_id for hit in search(conn, query, limit=50))

    assert found() == sorted(f.pk for f in facts)
    statements = Statements()
    search(conn, "sailing", statements=statements)
    assert not statements.with_text("p.text FROM"), "nothing changed: no text is read"

    fact_update(fact=facts[0], value="rowing on a lake")
    share(conn, *facts)  # its new version, confirmed again
    statements = Statements()
    assert facts[0].pk not in sorted(hit.record_id for hit in search(conn, "sailing", limit=50,
                                                                       statements=statements))
    read = statements.with_text("p.text FROM")
    assert len(read) == 1 and len(read[0][1][0]) <= 2, read  # the changed fact's rows alone
    assert found("rowing") == [facts[0].pk]

    late = make_fact(user, label="Sport late", value="sailing at dawn")
    share(conn, *facts[1:], late)
    assert late.pk in found()
    shares_set(connection=conn, fact_ids={late.pk})
    assert found() == [late.pk]


# SPEC R-7: a scope too large to keep is answered by the statement, and its texts are not read again on every
# search (only once it has shrunk to half its rows).
def test_a_scope_too_large_to_keep_is_read_once(user, monkeypatch):
    conn = make_connection(user)
    share(conn, *[make_fact(user, label=f"Sport {n}", value=f"sailing on day {n}") for n in range(4)])
    monkeypatch.setattr(kept_texts, "MAX_CHARS", 10)
    first, again = Statements(), Statements()
    assert len(search(conn, "sailing", statements=first)) == 4
    assert len(search(conn, "sailing", statements=again)) == 4
    assert first.with_text("p.text FROM") and first.with_text(FIRST_PASS)
    assert not again.with_text("p.text FROM") and again.with_text(FIRST_PASS)
