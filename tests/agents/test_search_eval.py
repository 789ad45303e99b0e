"""The search evaluation set and its held-out targets (SPEC S-4, S-1, S-3, R-5, R-8).

The set was written before the ranking was tuned; only its tuning half was looked at while tuning. This
file holds the held-out half to the targets through both surfaces: ``search_user_context`` through the MCP
tool's own handler, over facts shared with a connection, and the layer's ``search`` in an agent run.
"""

from __future__ import annotations

import pytest

from apps.agents.evaluation import run_search_evaluation, search_runner, search_set
from apps.mcp_server.catalog import tool
from apps.oauth.bearer import BearerGrant
from apps.retrieval.indexing import normalize, query_terms

# The record fields the evaluation's agent may read and search (search_runner.WITHHELD: todo notes).
READABLE = {"todo": ("title",), "episode": ("title", "summary", "topics", "participants"),
            "calendar": ("title", "location", "notes"), "contact": ("display_name", "aliases", "relation", "notes"),
            "voice_memo": ("title", "text")}


def ask_through_the_tool(connection, query, offset, limit):
    """``search_user_context`` as /mcp runs it for this connection, after admission."""
    spec = tool("search_user_context")
    grant = BearerGrant(connection=connection, scopes=frozenset({"profile:read", "context:search"}), token_id=0)
    answer = spec.handler(grant, {"query": query, "offset": offset, "limit": limit})
    return [int(fact["id"]) for fact in answer.payload["facts"]]


def _texts(item: dict, corpus: str) -> list[str]:
    if corpus == "facts":
        return [normalize(item["label"]), normalize(item["value"])]
    values = [item[name] for name in READABLE[item["type"]]]
    return [normalize(v) for value in values for v in (value if isinstance(value, list) else [value])]


def _holders(query: str, corpus: str) -> list[str]:
    """The keys of the set whose readable fields hold every term of ``query`` (what words alone match)."""
    items = search_set.load()["facts" if corpus == "facts" else "records"]
    terms = query_terms(query)
    return [item["key"] for item in items if all(any(t in text for text in _texts(item, corpus)) for t in terms)]


def test_the_split_was_made_once_by_its_seed():
    stored = search_set.stored_split()
    ids = [q["id"] for q in search_set.load()["questions"]]
    assert search_set.split(search_set.load()["questions"], stored["seed"]) == {
        "tuning": stored["tuning"], "held_out": stored["held_out"]}
    assert sorted(stored["tuning"] + stored["held_out"]) == sorted(ids) and len(set(ids)) == len(ids)


def test_the_set_is_what_it_says():
    data = search_set.load()
    assert len(data["questions"]) >= 200 and len(data["facts"]) + len(data["records"]) >= 300
    assert {r["type"] for r in data["records"]} == set(READABLE)
    directions = {q["direction"] for q in data["questions"]}
    assert {"en→en", "zh→zh", "en→zh", "zh→en", "zh-hant→zh"} <= directions
    kinds = {q["kind"] for q in data["questions"]}
    assert {"keyword", "paraphrase", "typo", "unanswerable", "order"} <= kinds
    for q in data["questions"]:
        corpora = ("facts", "records") if q["corpus"] == "none" else (q["corpus"],)
        for corpus in corpora:
            held = _holders(q["query"], corpus)
            if q["kind"] == "unanswerable":
                assert held == [], (q, held)  # nothing holds its words: only meaning could answer it
            elif q["kind"] == "keyword":
                assert set(q["expected"]) <= set(held), (q, held)
                if q.get("rare"):
                    assert held == q["expected"], (q, held)  # the word is in that one record only


# SPEC S-4: the development questions (calibration's own) are in neither half; what they say nothing answers
# holds none of their words, and what they say a fact or a record answers names one of the set.
def test_the_development_questions_are_apart_from_both_halves():
    development = search_set.questions(search_set.DEV)
    assert {q["kind"] for q in development} == {"unanswerable", "paraphrase", "typo"} and len(development) >= 604
    assert not {q["id"] for q in development} & {q["id"] for q in search_set.load()["questions"]}
    keys = {"facts": {f["key"] for f in search_set.load()["facts"]},
            "records": {r["key"] for r in search_set.load()["records"]}}
    for q in development:
        if q["kind"] == "unanswerable":
            assert _holders(q["query"], "facts") == _holders(q["query"], "records") == [], q
        else:
            assert set(q["expected"]) <= keys[q["corpus"]], q


# Met on the held-out half by this commit; docs/search.md "Calibrated relevance" gives the figures.
MET = ("answerable_recall_at_5", "keyword_recall_at_5", "rare_word_first_rate", "field_violations",
       "order_violations")


def _check(report: dict, half: str, names: tuple[str, ...]) -> list[str]:
    problems = []
    for surface in search_runner.SURFACES:
        problems += [f"{half} {surface}: {miss}" for miss in search_runner.misses(report[half][surface])
                     if miss.split()[0] in names]
    return problems


_asked: dict[str, dict] = {}


@pytest.fixture
def held_out(db, meaning):
    """The held-out half asked once per test process, with meaning on (everything it writes is rolled back);
    the tests below read the same figures."""
    if "report" not in _asked:
        _asked["report"] = run_search_evaluation(ask_facts=ask_through_the_tool, halves=("held_out",))
    return _asked["report"]


# SPEC S-4, R-5, R-8: on the held-out half, through both surfaces: a question a readable record answers finds
# it in either language (Recall@5 ≥ 0.9), every keyword question's records are in the first five, the record
# holding a rare word comes first, twins answer alike and an open todo is above its done twin.
def test_the_held_out_half_meets_the_targets(held_out):
    assert not _check(held_out, "held_out", MET), (_check(held_out, "held_out", MET), held_out["held_out"]["failures"])


# SPEC S-4: most queries nothing answers return nothing: at least what the calibration reaches today (0.875 /
# 0.875; fixed floors answered 0.31 / 0.41 of them empty), so losing it fails here.
def test_the_held_out_half_mostly_answers_nothing_to_what_nothing_answers(held_out):
    for surface in search_runner.SURFACES:
        assert held_out["held_out"][surface]["unanswerable_empty_rate"] >= 0.85, held_out["held_out"]["failures"]


# SPEC S-4: a query nothing answers returns nothing (≥ 0.9 of them). Not met yet: 0.875 through both surfaces on
# the held-out half (14 of 16, 28 of 32); 1.0 / 1.0 on the tuning half and 0.91 / 0.91 on the development
# questions, of whose 159 written blind 0.81 / 0.69. What still passes shares a subject with what a person
# wrote (docs/search.md "Calibrated relevance").
@pytest.mark.xfail(strict=True, reason="unanswerable answered empty 0.875 / 0.875 on the held-out half (target 0.9)")
def test_the_held_out_half_answers_nothing_to_what_nothing_answers(held_out):
    assert not _check(held_out, "held_out", ("unanswerable_empty_rate",)), held_out["held_out"]["failures"]


# SPEC S-4: the development questions keep what the calibration reaches on them (docs/search.md "Calibrated
# relevance": R@5 0.903 / 0.892, empty 0.911 / 0.912): answering more of what nothing answers (made-up words,
# a question in an encyclopedia's form, on a thing's aspects or of amount, a made-up word near a name or a place,
# a cat that likes, "we" as everyone) or fewer of the answerable (a misspelt name, a question in the other
# language) fails here. Without the aspects ("golden retriever lifespan", 雅思和托福哪个难, 成都必吃美食排行): empty
# 0.798 / 0.815; without the amounts' bar (全马多少公里): 0.868 / 0.869; without the everyday topics: 0.883 /
# 0.884.
@pytest.mark.django_db
@pytest.mark.usefixtures("meaning")
def test_the_development_questions_keep_their_figures():
    report = run_search_evaluation(ask_facts=ask_through_the_tool, halves=(search_set.DEV,))
    least = {search_runner.TOOL: (0.90, 0.905), search_runner.LAYER: (0.89, 0.905)}
    for surface, (recall, empty) in least.items():
        figures = report[search_set.DEV][surface]
        assert figures["answerable_recall_at_5"] >= recall, report[search_set.DEV]["failures"]
        assert figures["unanswerable_empty_rate"] >= empty, report[search_set.DEV]["failures"]


# SPEC S-3, R-5, R-8: with meaning off, words still find every keyword question's records, the rare word's
# record first, twins alike and the open todo above its done twin.
@pytest.mark.django_db
@pytest.mark.usefixtures("meaning")
def test_words_alone_keep_the_keyword_field_and_order_rules():
    report = run_search_evaluation(ask_facts=ask_through_the_tool, halves=("held_out",), words_only=True)
    for surface in search_runner.SURFACES:
        figures = report["held_out"][surface]
        assert figures["keyword_recall_at_5"] == 1.0, report["held_out"]["failures"]
        assert figures["rare_word_first_rate"] == 1.0, report["held_out"]["failures"]
        assert figures["field_violations"] == 0 and figures["order_violations"] == 0, report["held_out"]["failures"]


# The command prints each half's figures per surface, and leaves nothing behind.
@pytest.mark.django_db
def test_the_command_prints_both_surfaces(django_user_model):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("retrieval_eval", "--search", "held_out", "--words-only", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("half / surface") and "answerable_recall" in lines[0]
    assert [line.split()[2] for line in lines[1:3]] == list(search_runner.SURFACES)
    assert not django_user_model.objects.filter(username__startswith="eval-").exists()
