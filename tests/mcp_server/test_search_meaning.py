"""search_user_context by meaning, in both languages (SPEC S-3, S-4, R-5).

The questions of ``apps.agents.evaluation.meaning`` are asked through /mcp,
as an assistant asks them, over the facts shared with its connection.
"""

from __future__ import annotations

import pytest

from apps.agents.evaluation.meaning import QUESTIONS, build_facts
from tests.mcp_server.conftest import share
from tests.mcp_server.rpc import call, post, tool_result

SEARCH_SCOPES = ("profile:read", "context:search")
pytestmark = pytest.mark.usefixtures("meaning")


@pytest.fixture
def shared_facts(user, connect, issue_token):
    connection = connect(scopes=SEARCH_SCOPES)
    facts = build_facts(user)
    share(connection, facts.values())
    return facts, issue_token(" ".join(SEARCH_SCOPES))


def _ids(token, query, limit=5):
    result = tool_result(post(call("search_user_context", {"query": query, "limit": limit}), token))
    return [fact["id"] for fact in result["facts"]]


# SPEC S-4: paraphrases and questions in the other language find the fact; words still do (S-3).
def test_questions_by_meaning_and_by_word_in_both_languages(shared_facts):
    facts, token = shared_facts
    found = {"keyword": 0, "paraphrase": 0}
    missed = []
    for q in QUESTIONS:
        if str(facts[q.expected].id) in _ids(token, q.query):
            found[q.kind] += 1
        else:
            missed.append((q.direction, q.query, q.expected))
    asked = {kind: sum(q.kind == kind for q in QUESTIONS) for kind in found}
    assert found["keyword"] == asked["keyword"], missed
    assert found["paraphrase"] / asked["paraphrase"] >= 0.8, missed


# SPEC S-4: the issue's own examples, first.
@pytest.mark.parametrize("query,expected", [
    ("does the user have a dog", "pet"), ("用户喝酒吗", "alcohol"), ("簽證", "visa"), ("柏林", "city"),
    ("OKR复盘", "okr"), ("kitchen remodel", "kitchen"),
])
def test_the_examples_of_the_rule_come_first(shared_facts, query, expected):
    facts, token = shared_facts
    assert _ids(token, query)[:1] == [str(facts[expected].id)]


# SPEC S-4, R-5: a fact not shared with the connection is found by meaning by no question.
def test_meaning_never_reaches_an_unshared_fact(user, connect, issue_token):
    connection = connect(scopes=SEARCH_SCOPES)
    facts = build_facts(user)
    share(connection, [fact for key, fact in facts.items() if key != "pet"])
    token = issue_token(" ".join(SEARCH_SCOPES))
    hidden = str(facts["pet"].id)
    for query in ("does the user have a dog", "用户养狗吗", "Mochi", "golden retriever"):
        assert hidden not in _ids(token, query, limit=10)


# SPEC S-4: a question an encyclopedia answers finds nothing, though a shared fact shares its theme (a dog
# breed, jazz, running, Japanese); nor does a string of nonsense. Calibration: docs/search.md.
@pytest.mark.parametrize("query", [
    "the history of dog breeding", "how jazz was born in New Orleans", "the ancient Olympic marathon",
    "古典音乐的历史", "日本战国时代的历史",
    "stock exchanges of the world", "qwzx plmk", "zzkq 鬮鬯",
])
def test_what_nothing_answers_finds_nothing(shared_facts, query):
    _, token = shared_facts
    assert _ids(token, query, limit=10) == []


# SPEC S-4: a field is held to the general-knowledge topics of its own script: 每天跑步 is closer to the topic
# 跑步的正确姿势 than to "Runs 5 km every morning before work", as any Chinese text is to Chinese.
@pytest.mark.parametrize("query,expected", [("每天跑步", "running"), ("柏林", "city")])
def test_a_question_finds_a_fact_in_the_other_language_though_a_topic_in_its_own_is_closer(shared_facts, query,
                                                                                         expected):
    facts, token = shared_facts
    assert str(facts[expected].id) in _ids(token, query)


# SPEC S-4: a question about the person is held to no general-knowledge topic, however close it comes to one
# ("jazz improvisation", "impressionist painting"): their taste in it is what the fact answers.
@pytest.mark.parametrize("query,expected", [
    ("does the user enjoy jazz", "music"), ("她喜欢什么音乐", "music"), ("what breed is her dog", "pet"),
])
def test_a_question_about_the_person_on_a_general_subject_finds_the_fact(shared_facts, query, expected):
    facts, token = shared_facts
    assert str(facts[expected].id) in _ids(token, query)


# SPEC S-4: a question in the form an encyclopedia answers ("why", "the history of", 的起源) on a shared fact's
# subject finds nothing: what it shares with the short label 咖啡, "Pet" or 签证 is the subject, not the question.
# Nor does a word of taste or a pronoun that points at no one of the memory make it about the person: a thing
# that likes ("why do cats like boxes"), "we" as everyone ("why do we dream").
@pytest.mark.parametrize("query", [
    "how is coffee roasted", "咖啡的起源", "the history of the telephone", "why do dogs bark",
    "the origin of spicy food", "签证的历史", "why is jazz improvised",
    "why do cats like boxes", "what do pandas like to eat", "why do dogs love bones", "why do we dream",
    "how do we digest food", "我们为什么会做梦", "为什么狗喜欢啃骨头",
    "Berlin population", "青霉素的副作用", "燕麦奶的营养成分",
])
def test_a_question_about_the_world_on_a_facts_subject_finds_nothing(shared_facts, query):
    _, token = shared_facts
    assert _ids(token, query, limit=10) == []


# SPEC S-4: a question of amount is held to the general-knowledge topics more strictly than another question that
# names no one, as it asks the world as often as the person: "how many calories does running burn" finds nothing,
# "how long is the morning run" the run.
@pytest.mark.parametrize("query,expected", [
    ("how many calories does running burn", None), ("iPhone电池健康多少该换", None),
    ("how long is the morning run", "running"), ("生日是几月几号", "birthday"),
])
def test_a_question_of_amount_finds_only_what_answers_it(shared_facts, query, expected):
    facts, token = shared_facts
    found = _ids(token, query, limit=10)
    assert (str(facts[expected].id) in found) if expected else found == []
