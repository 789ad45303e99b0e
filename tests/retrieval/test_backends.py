"""SPEC S-1 … S-3, R-6, R-7, C-1, C-8: one set of search tests that every backend runs.

``BackendTests`` is run by one subclass per database; each runs in the pass
of its own database (the SQLite pass tests SQLite, the PostgreSQL pass tests
PostgreSQL), so both backends are held to exactly the same expectations.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import DatabaseError, transaction
from django.db import connection as db_connection
from django.test.utils import CaptureQueriesContext

from apps.consent.models import Proposal
from apps.consent.selectors.visibility import visible_facts
from apps.consent.services import connection_narrow
from apps.memory.services import fact_archive, fact_update
from apps.retrieval import selectors
from apps.retrieval.backends import SearchScope
from apps.retrieval.backends.postgres import PostgresSearchBackend
from apps.retrieval.backends.sqlite import SQLiteSearchBackend
from apps.retrieval.models import SearchProjection
from apps.retrieval.selectors import SearchError, search_visible_matches
from tests.consent.factories import make_application, make_connection, make_fact, share

pytestmark = pytest.mark.django_db


def search(connection, **paging):
    """The search as the MCP tool runs it: over the connection's visible set."""
    return search_visible_matches(owner_id=connection.user_id, visible=visible_facts(connection=connection), **paging)


def shared_fact(connection, **fields):
    fact = make_fact(connection.user, **fields)
    share(connection, *connection.user.facts.filter(shares__connection=connection), fact)
    return fact


class BackendTests:
    backend_class: type

    @pytest.fixture(autouse=True)
    def _backend(self, monkeypatch):
        if db_connection.vendor != self.backend_class.vendor:
            pytest.skip(f"{self.backend_class.vendor} backend: runs in its own database's pass")
        self.backend = self.backend_class()
        monkeypatch.setattr(selectors, "get_search_backend", lambda using="default": self.backend)

    @pytest.fixture
    def conn(self, user):
        return make_connection(user)

    def ids(self, conn, query, **paging):
        page = search(conn, query=query, offset=paging.get("offset", 0), limit=paging.get("limit", 10))
        return list(page.ids)

    # --- SPEC S-3: English and Chinese both match ------------------------------------------------

    def test_english_word(self, conn):
        tea = shared_fact(conn, label="Tea", value="Green tea in the afternoon")
        shared_fact(conn, label="Sport", value="Swims on Mondays")
        assert self.ids(conn, "afternoon") == [tea.pk]
        assert self.ids(conn, "GREEN") == [tea.pk]  # case-blind

    def test_english_substring(self, conn):
        tea = shared_fact(conn, label="Tea", value="Green tea in the afternoon")
        assert self.ids(conn, "ernoo") == [tea.pk]
        assert self.ids(conn, "te") == [tea.pk]  # two characters: the owner-only substring scan

    def test_chinese_two_characters(self, conn):
        coffee = shared_fact(conn, label="饮品", value="我每天早上喝咖啡")
        shared_fact(conn, label="运动", value="周末去游泳")
        assert self.ids(conn, "咖啡") == [coffee.pk]
        assert self.ids(conn, "游") != [coffee.pk]

    def test_chinese_four_or_more_characters(self, conn):
        coffee = shared_fact(conn, label="饮品", value="我每天早上喝咖啡")
        assert self.ids(conn, "早上喝咖啡") == [coffee.pk]
        assert self.ids(conn, "晚上喝咖啡") == []

    def test_mixed_chinese_and_english(self, conn):
        phone = shared_fact(conn, label="手机", value="用的是iPhone手机，蓝色的壳")
        shared_fact(conn, label="Laptop", value="A ThinkPad for work")
        assert self.ids(conn, "iphone手机") == [phone.pk]
        assert self.ids(conn, "iPhone 蓝色") == [phone.pk]  # every term must match, across words and scripts
        assert self.ids(conn, "iPhone 红色") == []

    def test_terms_may_match_in_different_fields(self, conn):
        fact = shared_fact(conn, label="Coffee", value="每天两杯")
        assert self.ids(conn, "coffee 两杯") == [fact.pk]

    # SPEC S-3: a record answers only when it holds every term, those an index bounds the search by (the two
    # longest, on PostgreSQL) and the rest: a short term, a third long one.
    def test_every_term_is_required_whichever_bounds_the_search(self, conn):
        facts = {value: shared_fact(conn, label="Note", value=value) for value in (
            "alpha gamma", "alpha gamma zz", "alpha beta gamma", "alpha beta gamma zz", "alpha beta zz")}
        assert self.ids(conn, "alpha gamma zz") == [facts["alpha gamma zz"].pk, facts["alpha beta gamma zz"].pk]
        assert self.ids(conn, "alpha beta gamma") == [facts["alpha beta gamma"].pk, facts["alpha beta gamma zz"].pk]
        assert self.ids(conn, "gamma zz alpha beta") == [facts["alpha beta gamma zz"].pk]

    def test_full_width_input_matches(self, conn):
        fact = shared_fact(conn, label="Tea", value="Green tea")
        assert self.ids(conn, "ＴＥＡ") == [fact.pk]

    def test_no_match(self, conn):
        shared_fact(conn, label="Tea", value="Green tea in the afternoon")
        page = search(conn, query="zebra", offset=0, limit=10)
        assert (page.ids, page.has_more, page.next_offset, page.window_exhausted) == ((), False, None, False)

    def test_like_wildcards_are_literal(self, conn):
        shared_fact(conn, label="Tea", value="Green tea in the afternoon")
        percent = shared_fact(conn, label="Discount", value="Saves 20% on books")
        assert self.ids(conn, "%") == [percent.pk]
        assert self.ids(conn, "0% o") == [percent.pk]
        assert self.ids(conn, "t_a") == []

    # --- SPEC S-3: deterministic ranking -----------------------------------------------------------

    def test_ranking_is_deterministic_with_ties_by_id(self, conn):
        facts = [shared_fact(conn, label=f"Note {n}", value="likes jasmine tea") for n in range(5)]
        first = self.ids(conn, "jasmine")
        assert first == sorted(f.pk for f in facts)
        assert all(self.ids(conn, "jasmine") == first for _ in range(3))

    def test_label_match_ranks_above_value_match(self, conn):
        in_value = shared_fact(conn, label="Drinks", value="Black tea in the morning")
        in_label = shared_fact(conn, label="Tea", value="Most days")
        assert self.ids(conn, "tea") == [in_label.pk, in_value.pk]

    def test_whole_field_match_ranks_first(self, conn):
        loose = shared_fact(conn, label="Hobby", value="Reading science fiction and poetry")
        exact = shared_fact(conn, label="Genre", value="Poetry")
        assert self.ids(conn, "poetry")[0] == exact.pk
        assert set(self.ids(conn, "poetry")) == {loose.pk, exact.pk}

    # A field that does not hold the term adds nothing: neither to the first order nor to the relevance the
    # best records get on PostgreSQL.
    def test_only_the_fields_holding_the_term_score(self, conn):
        facts = [shared_fact(conn, label=label, value="likes jasmine tea") for label in ("A much longer label", "B")]
        scopes = [SearchScope("user_profile", ("/label", "/value"), visible_facts(connection=conn))]
        hits = self.backend.search(owner_id=conn.user_id, query="jasmine", scopes=scopes, offset=0, limit=10)
        assert [(hit.record_id, hit.score) for hit in hits] == [(fact.pk, hits[0].score) for fact in facts]

    # SPEC S-1, R-5, C-8: the order of the matches comes from their own text alone. Text the caller
    # cannot read — another person's facts, the person's unshared ones — never moves it, so the
    # ranking tells nothing about that text.
    @pytest.mark.parametrize("hidden_owner", ["other person", "same person, not shared"])
    def test_ranking_never_depends_on_text_the_caller_cannot_read(self, conn, other_user, hidden_owner):
        heavy_alpha = shared_fact(conn, label="Note A", value="alpha alpha alpha beta padding")
        heavy_beta = shared_fact(conn, label="Note B", value="alpha beta beta beta padding")
        before = self.ids(conn, "alpha beta")
        assert set(before) == {heavy_alpha.pk, heavy_beta.pk}
        owner = other_user if hidden_owner == "other person" else conn.user
        for n in range(100):
            make_fact(owner, label=f"Other {n}", value="beta beta beta and more")
        assert self.ids(conn, "alpha beta") == before

    # --- SPEC C-1, C-8, S-1: only visible facts, only label and value ----------------------------

    def test_owner_isolation(self, conn, other_user):
        mine = shared_fact(conn, label="Tea", value="Oolong")
        theirs_conn = make_connection(other_user, application=conn.application)
        theirs = shared_fact(theirs_conn, label="Tea", value="Oolong")
        assert self.ids(conn, "oolong") == [mine.pk]
        assert self.ids(theirs_conn, "oolong") == [theirs.pk]
        assert self.ids(theirs_conn, "oo") == [theirs.pk]

    def test_other_assistant_of_the_same_user_sees_only_its_shares(self, conn, user):
        fact = shared_fact(conn, label="Tea", value="Oolong")
        other = make_connection(user, application=make_application("Other"))
        assert self.ids(other, "oolong") == []
        assert self.ids(conn, "oolong") == [fact.pk]

    def test_evidence_never_matches(self, conn):
        shared_fact(conn, label="Tea", value="Oolong", evidence="mentioned at the zanzibar dinner")
        assert self.ids(conn, "zanzibar") == []
        assert self.ids(conn, "za") == []

    @pytest.mark.parametrize(
        "hide",
        [
            lambda fact, conn: fact_archive(fact=fact),
            lambda fact, conn: fact_update(fact=fact, sensitive=True),
            lambda fact, conn: fact_update(fact=fact, certainty="guess"),
            lambda fact, conn: fact_update(fact=fact, label="Tea habit"),  # changed since shared (C-2)
            lambda fact, conn: share(conn),  # unshared
            lambda fact, conn: connection_narrow(connection=conn, categories=set()),
        ],
        ids=["archived", "sensitive", "guess", "changed-since-shared", "unshared", "category-removed"],
    )
    def test_invisible_facts_are_never_returned(self, conn, hide):
        fact = shared_fact(conn, label="Tea", value="Oolong")
        hide(fact, conn)
        conn.refresh_from_db()
        assert self.ids(conn, "oolong") == []
        assert self.ids(conn, "oo") == []

    def test_pending_proposals_never_match(self, conn, frozen_clock):
        from apps.consent.services import proposal_submit

        proposal_submit(connection=conn, arguments={"op": "add", "category": "preferences", "label": "Zebra",
                                                    "value": "Likes zebras"})
        assert Proposal.objects.count() == 1
        assert self.ids(conn, "zebra") == []

    def test_revoked_connection_finds_nothing(self, conn):
        from apps.consent.services import connection_revoke

        shared_fact(conn, label="Tea", value="Oolong")
        connection_revoke(connection=conn)
        conn.refresh_from_db()
        assert self.ids(conn, "oolong") == []

    # --- SPEC R-6: the projection is written with the record ---------------------------------------

    def test_rolled_back_write_leaves_no_projection_row(self, user, conn):
        with pytest.raises(RuntimeError), transaction.atomic():
            make_fact(user, label="Zebra", value="Striped")
            assert SearchProjection.objects.filter(text="zebra").exists()  # written inside the transaction
            raise RuntimeError("the write fails after the fact was saved")
        assert not SearchProjection.objects.exists()
        # The database's own index has nothing left either: a visible lookalike is the only hit.
        fact = shared_fact(conn, label="Zebra", value="Striped")
        assert self.ids(conn, "zebra") == [fact.pk]
        assert SearchProjection.objects.count() == 2

    def test_an_edit_reindexes_in_the_same_transaction(self, conn):
        fact = shared_fact(conn, label="Tea", value="Green tea")
        with transaction.atomic():
            fact = fact_update(fact=fact, value="Oolong")
            row = SearchProjection.objects.get(record_id=fact.pk, field="/value")
            assert row.text == "oolong"
        share(conn, fact)  # the person confirms the new version for this assistant (C-2)
        assert self.ids(conn, "oolong") == [fact.pk]
        assert self.ids(conn, "green") == []

    def test_hard_delete_drops_the_rows(self, user):
        fact = make_fact(user, label="Tea", value="Oolong")
        fact.delete()
        assert not SearchProjection.objects.exists()

    def test_projection_rows_are_label_and_value_only(self, user):
        fact = make_fact(user, label="Tea", value="Green tea", evidence="said so")
        rows = dict(SearchProjection.objects.filter(record_id=fact.pk).values_list("field", "text"))
        assert rows == {"/label": "tea", "/value": "green tea"}

    def test_rebuild_fixes_drift(self, conn, user):
        kept = shared_fact(conn, label="Tea", value="Oolong")
        moved = shared_fact(conn, label="Coffee", value="Espresso")
        SearchProjection.objects.filter(record_id=kept.pk, field="/value").delete()  # missing
        SearchProjection.objects.filter(record_id=moved.pk, field="/value").update(text="decaf")  # stale
        SearchProjection.objects.create(resource_type="user_profile", record_id=10**9, owner=user, field="/label",
                                        text="ghost", updated_at=moved.updated_at)  # orphaned
        assert self.ids(conn, "oolong") == [] and self.ids(conn, "espresso") == []

        out = StringIO()
        call_command("rebuild_search_projection", "--dry-run", stdout=out)
        assert "1 missing, 1 stale, 1 orphaned" in out.getvalue()
        assert self.ids(conn, "oolong") == []  # a dry run changes nothing

        out = StringIO()
        call_command("rebuild_search_projection", stdout=out)
        assert "1 missing, 1 stale, 1 orphaned" in out.getvalue()
        assert self.ids(conn, "oolong") == [kept.pk]
        assert self.ids(conn, "espresso") == [moved.pk]
        assert self.ids(conn, "decaf") == []

        out = StringIO()
        call_command("rebuild_search_projection", stdout=out)  # idempotent
        assert "drift: 0 (in step)" in out.getvalue()

    # --- SPEC S-1, S-2: paging and the 10,000 window ---------------------------------------------

    def test_paging_walks_every_match_once(self, conn):
        facts = [make_fact(conn.user, label=f"Tea {n}", value="jasmine") for n in range(23)]
        share(conn, *facts)
        seen, offset = [], 0
        while offset is not None:
            page = search(conn, query="jasmine", offset=offset, limit=10)
            assert page.offset == offset and not page.window_exhausted
            seen += page.ids
            assert page.has_more == (page.next_offset is not None)
            offset = page.next_offset
        assert seen == sorted(f.pk for f in facts)

    def test_window_exhausted_when_more_matches_than_the_window(self, conn, monkeypatch):
        monkeypatch.setattr(selectors, "OFFSET_MAX", 6)
        share(conn, *[make_fact(conn.user, label=f"Tea {n}", value="jasmine") for n in range(8)])
        page = search(conn, query="jasmine", offset=0, limit=4)
        assert (len(page.ids), page.next_offset, page.window_exhausted) == (4, 4, False)
        page = search(conn, query="jasmine", offset=4, limit=4)
        assert len(page.ids) == 2  # the window ends at 6
        assert (page.has_more, page.next_offset, page.window_exhausted) == (True, None, True)

    def test_window_not_exhausted_when_the_matches_fit(self, conn, monkeypatch):
        monkeypatch.setattr(selectors, "OFFSET_MAX", 6)
        share(conn, *[make_fact(conn.user, label=f"Tea {n}", value="jasmine") for n in range(6)])
        page = search(conn, query="jasmine", offset=4, limit=4)
        assert (len(page.ids), page.has_more, page.next_offset, page.window_exhausted) == (2, False, None, False)

    @pytest.mark.parametrize(
        "query,offset,limit,field",
        [("x" * 201, 0, 10, "query"), ("   ", 0, 10, "query"), ("tea", -1, 10, "offset"),
         ("tea", 10_001, 10, "offset"), ("tea", 0, 0, "limit"), ("tea", 0, 11, "limit"), ("tea", True, 10, "offset")],
    )
    def test_arguments_are_checked(self, conn, query, offset, limit, field):
        with pytest.raises(SearchError) as caught:
            search(conn, query=query, offset=offset, limit=limit)
        assert (caught.value.code, caught.value.field) == ("invalid_argument", field)

    def test_limits_at_their_edges_are_accepted(self, conn):
        shared_fact(conn, label="Tea", value="Oolong")
        search(conn, query="x" * 200, offset=10_000, limit=10)
        search(conn, query="tea", offset=0, limit=1)

    def test_constant_number_of_queries(self, conn):
        def count(n):
            share(conn, *[make_fact(conn.user, label=f"Tea {i}", value="jasmine") for i in range(n)])
            with CaptureQueriesContext(db_connection) as queries:
                search(conn, query="jasmine", offset=0, limit=10)
                search(conn, query="ja", offset=0, limit=10)
            return [q["sql"].split()[0] for q in queries]

        # Per search: the one search statement inside its savepoint, then the matched facts loaded at once for
        # the engine's ranking and proof (SPEC S-4, R-6) — however many facts match.
        assert count(3) == count(30) == ["SAVEPOINT", "SELECT", "RELEASE", "SELECT"] * 2


class TestSQLiteBackend(BackendTests):
    backend_class = SQLiteSearchBackend

    def test_short_query_scans_only_the_owners_rows(self, conn):
        sql, params = self.backend.search_sql(
            owner_id=conn.user_id, query="咖啡", offset=0, limit=10,
            scopes=[SearchScope("user_profile", ("/label", "/value"), visible_facts(connection=conn))],
        )
        with db_connection.cursor() as cursor:
            cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
            plan = " ".join(str(row[-1]) for row in cursor.fetchall())
        # The projection is reached through an index keyed by this person (their visible
        # records or their owner id), never scanned whole.
        assert "SEARCH p USING" in plan
        assert "SCAN p " not in plan + " "

    def test_full_text_table_follows_the_projection(self, conn):
        from apps.retrieval.backends.sqlite import FTS_TABLE

        fact = shared_fact(conn, label="Tea", value="Oolong")
        with db_connection.cursor() as cursor:
            cursor.execute(f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s", ['"oolong"'])
            assert [row[0] for row in cursor.fetchall()] == list(
                SearchProjection.objects.filter(record_id=fact.pk, field="/value").values_list("id", flat=True)
            )
        assert self.backend.index_problems() == []

    def test_rebuild_repairs_the_full_text_table(self, conn):
        from apps.retrieval.backends.sqlite import FTS_TABLE

        fact = shared_fact(conn, label="Tea", value="Oolong")
        with db_connection.cursor() as cursor:  # rolled back with the test's transaction
            cursor.execute("DROP TRIGGER retrieval_searchprojection_ad")
        SearchProjection.objects.filter(record_id=fact.pk, field="/value").delete()  # FTS keeps a dead entry
        assert self.backend.index_problems() == [f"the full-text table {FTS_TABLE} is out of step with the projection"]
        out = StringIO()
        call_command("rebuild_search_projection", stdout=out)
        assert "1 missing" in out.getvalue() and "out of step" in out.getvalue()
        assert self.backend.index_problems() == []
        assert self.ids(conn, "oolong") == [fact.pk]


@pytest.mark.postgres_only
class TestPostgresBackend(BackendTests):
    backend_class = PostgresSearchBackend

    def test_index_is_installed(self):
        assert self.backend.index_problems() == []

    # SPEC: the repair command restores what ranking reads, and nothing else is rebuilt.
    def test_rebuild_restores_the_ranking_column(self, conn):
        from apps.retrieval.backends.postgres import TRIGRAM_INDEX, VECTOR_COLUMN

        fact = shared_fact(conn, label="Tea", value="Oolong")
        ranked = self.ids(conn, "oolong")
        with db_connection.cursor() as cursor:  # rolled back with the test's transaction
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # ALTER TABLE refuses to run with deferred checks pending
            cursor.execute(f"ALTER TABLE {SearchProjection._meta.db_table} DROP COLUMN {VECTOR_COLUMN}")
            cursor.execute("SELECT oid FROM pg_class WHERE relname = %s", [TRIGRAM_INDEX])
            index_before = cursor.fetchone()
        assert self.backend.index_problems() == [f"the ranking column {VECTOR_COLUMN} is missing"]
        with pytest.raises(DatabaseError), transaction.atomic():  # /mcp answers it as `unavailable`
            self.ids(conn, "oolong")
        out = StringIO()
        call_command("rebuild_search_projection", stdout=out)
        assert f"the ranking column {VECTOR_COLUMN} is missing" in out.getvalue()
        assert self.backend.index_problems() == []
        assert self.ids(conn, "oolong") == ranked == [fact.pk]
        with db_connection.cursor() as cursor:
            cursor.execute("SELECT oid FROM pg_class WHERE relname = %s", [TRIGRAM_INDEX])
            assert cursor.fetchone() == index_before  # the index was not rebuilt

    # SPEC S-3, R-7: as for the CJK pairs a two-character Chinese term is found by.
    def test_rebuild_restores_the_cjk_pairs(self, conn):
        from apps.retrieval.backends.postgres import PAIRS_COLUMN, PAIRS_INDEX

        fact = shared_fact(conn, label="Work", value="每周五写周报")
        assert self.ids(conn, "周报") == [fact.pk]
        with db_connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"ALTER TABLE {SearchProjection._meta.db_table} DROP COLUMN {PAIRS_COLUMN}")
        assert self.backend.index_problems() == [f"the CJK pairs column {PAIRS_COLUMN} is missing",
                                                 f"the CJK pairs index {PAIRS_INDEX} is missing"]
        with pytest.raises(DatabaseError), transaction.atomic():
            self.ids(conn, "周报")
        call_command("rebuild_search_projection", stdout=StringIO())
        assert self.backend.index_problems() == []
        assert self.ids(conn, "周报") == [fact.pk]
