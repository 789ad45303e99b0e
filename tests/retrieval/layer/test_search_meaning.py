"""search by meaning keeps field-first (SPEC S-4, R-5, R-6, R-8).

The R-5 tests of ``test_search.py`` asked again with the shipped model on:
text only an unreadable field holds — its words *or its meaning* — decides
nothing: no hit, no score, no snippet, no count.
"""

from datetime import timedelta

import pytest

from apps.memory import services
from apps.retrieval.indexing import CJK, LETTERS
from apps.retrieval.models import SearchProjection
from tests.retrieval.layer.builders import OPS, access, call, meeting

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("meaning")]

SECRET = "Penicillin allergy, carries an EpiPen at all times"


def refs(answer) -> list[str]:
    return [hit["ref"] for hit in answer["hits"]]


QUERIES = ("drug allergies", "对青霉素过敏", "emergency medication", "EpiPen")


def test_a_meaning_only_in_an_unreadable_field_matches_nothing(user):  # SPEC S-4, R-5
    todo = services.todo_create(owner=user, title="Renew the car insurance", notes="")
    services.todo_create(owner=user, title="Water the plants")
    titles_only = access(user, {"todo": {"operations": OPS, "fields": ["/title", "/status"]}})
    without = {query: call(titles_only, "search", query=query) for query in QUERIES}
    services.todo_update(todo=todo, notes=SECRET)
    # No existence oracle: what the notes say, in words or in meaning, changes no hit, score, snippet or count.
    for query in QUERIES:
        answer = call(titles_only, "search", query=query)
        assert answer == without[query]
        assert SECRET not in str(answer)
    with_notes = access(user, {"todo": {"operations": OPS, "fields": ["/title", "/notes"]}})
    found = call(with_notes, "search", query="对青霉素过敏")  # the other language, other words
    assert refs(found)[0] == f"todo:{todo.pk}"
    assert found["hits"][0]["snippet"] == {"path": "/notes", "text": SECRET}


def test_an_unreadable_field_moves_no_score_and_no_snippet(user, frozen_clock):  # SPEC S-4, R-5, R-8
    a = services.todo_create(owner=user, title="Dentist appointment", notes="nothing here")
    b = services.todo_create(owner=user, title="Dentist appointment", notes="nothing here")
    titles_only = access(user, {"todo": {"operations": OPS, "fields": ["/title"]}})
    # A question the titles answer by meaning only, and a word they hold (on PostgreSQL the best records
    # are then scored again with the database's relevance, which must read their readable fields only).
    queries = ("tooth doctor visit", "dentist")
    before = {query: call(titles_only, "search", query=query) for query in queries}
    assert all(sorted(refs(answer)) == sorted([f"todo:{a.pk}", f"todo:{b.pk}"]) for answer in before.values())
    # Notes that are the query itself, word for word and in meaning, in only one of the two.
    services.todo_update(todo=b, notes="tooth doctor visit: a dental check-up at the dentist")
    for query in queries:
        after = call(titles_only, "search", query=query)
        assert after == before[query]
        assert len({hit["score"] for hit in after["hits"]}) == 1
        assert all(hit["snippet"]["path"] == "/title" for hit in after["hits"])


def test_nested_meaning_is_matched_only_where_granted(user):  # SPEC S-4, R-5
    episode = meeting(user)["episode"]  # the summary: local push only for the beta, decided
    names_only = access(user, {"episode": {"operations": OPS, "fields": ["/participants/*/display_name"]}})
    assert call(names_only, "search", query="push notification decision", resource="episode")["hits"] == []
    everything = access(user)
    assert f"episode:{episode.pk}" in refs(call(everything, "search", query="push notification decision"))


def test_a_stale_vector_is_never_answered(user):  # SPEC S-4, R-6
    memo = services.voice_memo_create(owner=user, title="Grocery list", text="oat milk, eggs, spinach",
                                      recorded_at=user.date_joined)
    assert refs(call(access(user), "search", query="shopping for food")) == [f"voice_memo:{memo.pk}"]
    # The source changes behind the projection's back: its rows and vectors still say groceries.
    type(memo).objects.filter(pk=memo.pk).update(title="Tax return", text="forms and receipts")
    assert call(access(user), "search", query="shopping for food")["hits"] == []


def test_the_contact_whose_field_is_the_term_outranks_todos_naming_it(user, frozen_clock):  # SPEC R-8, S-4
    contact = services.contact_create(owner=user, display_name="Priya Raman", relation="colleague")
    frozen_clock.advance(timedelta(days=60))
    for status in ("done", "done", "open"):
        services.todo_create(owner=user, title="Send Priya Raman the offsite agenda", status=status)
    for query in ("Priya Raman", "Priya"):
        assert refs(call(access(user), "search", query=query))[0] == f"contact:{contact.pk}"


def test_a_short_title_does_not_win_every_two_character_query(user):  # SPEC R-8, S-3
    short = services.todo_create(owner=user, title="买咖啡")
    memo = services.voice_memo_create(owner=user, title="咖啡", text="咖啡豆的产地和烘焙程度都会影响风味",
                                      recorded_at=user.date_joined)
    episode = services.episode_create(owner=user, title="咖啡馆选址讨论", occurred_at=user.date_joined,
                                      summary="比较了三家咖啡馆的租金和人流")
    ranked = refs(call(access(user), "search", query="咖啡"))
    # The record whose title *is* the word first; a longer title holding it is not sunk below a shorter one.
    assert ranked[0] == f"voice_memo:{memo.pk}"
    assert set(ranked) == {f"voice_memo:{memo.pk}", f"todo:{short.pk}", f"episode:{episode.pk}"}


def test_vectors_follow_the_text(user):  # SPEC S-4, R-6
    todo = services.todo_create(owner=user, title="Renew passport")
    row = SearchProjection.objects.get(resource_type="todo", record_id=todo.pk, field="/title")
    assert row.vector_model == "use-multilingual-v3" and len(bytes(row.vector)) == 516
    services.todo_update(todo=todo, title="Renew driving licence")
    changed = SearchProjection.objects.get(pk=row.pk)
    assert bytes(changed.vector) != bytes(row.vector)


# SPEC S-4, R-5: below the layer's own checks, the comparison itself never sees a vector outside the scope —
# neither a field the caller may not read nor a record it may not see.
def test_the_comparison_reads_only_vectors_in_scope(user, other_user):
    from apps.memory.models import Todo
    from apps.retrieval import hybrid
    from apps.retrieval.backends import SearchScope, get_search_backend

    seen = services.todo_create(owner=user, title="Renew the car insurance", notes=SECRET)
    hidden = services.todo_create(owner=user, title="Penicillin allergy card", notes=SECRET)
    services.todo_create(owner=other_user, title="Penicillin allergy", notes=SECRET)
    backend = get_search_backend()

    def compared(fields, records):
        return hybrid.meaning_hits(backend, owner_id=user.pk, query="penicillin allergy",
                                   scopes=[SearchScope("todo", fields, records)])

    titles = compared(("/title",), Todo.objects.filter(pk=seen.pk))
    assert all((hit.record_id, hit.field) == (seen.pk, "/title") for hit in titles), (titles, seen.pk, hidden.pk)
    everything = compared(("/title", "/notes"), Todo.objects.filter(owner=user))
    assert {hit.record_id for hit in everything} == {seen.pk, hidden.pk}  # never the other person's
    assert next(hit for hit in everything if hit.record_id == seen.pk).field == "/notes"




# SPEC S-4: a name has no meaning to paraphrase, and a made-up word is as close to a short name in meaning as a
# question to its answer ("glorp" to "Grace"). A name's meaning finds it only spelt alike; its words find it whole.
# Places are names too.
def test_a_names_meaning_finds_only_its_misspellings(user):
    people = [services.contact_create(owner=user, display_name=name, aliases=aliases, relation=relation, notes=notes)
              for name, aliases, relation, notes in (
                  ("Grace Liu", ["Grace"], "manager", "VP Engineering"),
                  ("Mia Chen", ["Mia"], "friend", "Runs the reading club"),
                  ("Tom Baker", ["Tom"], "friend", "University roommate"),
                  ("Helen Ho", ["Helen"], "tax advisor", "Handles the annual tax return"),
                  ("王老师", [], "班主任", "儿子的班主任"),
                  ("张建国", ["老张"], "大学同学", "在成都开火锅店"))]
    episode = meeting(user)["episode"]  # participants 林若溪 and Alex Zhang
    drinks = services.calendar_event_create(owner=user, title="Drinks with the old team", starts_at=user.date_joined,
                                            ends_at=user.date_joined, location="The Camel bar")
    everything = access(user)
    for made_up in ("glorp", "wham bam", "hocus pocus", "la 啦 la", "汪汪汪", "隔壁老王吧啦", "巴拉巴拉"):
        assert call(everything, "search", query=made_up)["hits"] == [], made_up
    assert refs(call(everything, "search", query="Mia Chen")) == [f"contact:{people[1].pk}"]
    assert refs(call(everything, "search", query="Alex Zhang")) == [f"episode:{episode.pk}"]
    for misspelt, person in (("Grcae Liu", 0), ("Tom Bakr", 2), ("Helen Hoo", 3), ("王老帅", 4), ("张健国", 5)):
        assert refs(call(everything, "search", query=misspelt))[0] == f"contact:{people[person].pk}", misspelt
    # A name whole among other words the record does not hold: its meaning still finds it.
    assert refs(call(everything, "search", query="Camle bar"))[0] == f"calendar:{drinks.pk}"  # a place is a name
    asked = "what did Grace Liu say about the hiring plans for next quarter"
    assert refs(call(everything, "search", query=asked))[0] == f"contact:{people[0].pk}"
    assert refs(call(everything, "search", query="who does my taxes"))[0] == f"contact:{people[3].pk}"



def _compared(rows, background=None):
    """A comparison of (type, record, field, similarity, script) rows above 40 weak ones they stand out from."""
    import numpy as np

    from apps.retrieval import vectors

    code = vectors._code
    rows = [*rows, *(("todo", 100 + n, "/title", n / 400, LETTERS) for n in range(40))]
    return vectors.Scored(np.arange(len(rows)), np.array([code(row[0]) for row in rows]),
                          np.array([row[1] for row in rows]), np.array([code(row[2]) for row in rows]),
                          np.array([row[3] for row in rows], dtype=np.float32),
                          np.array([row[4] for row in rows], dtype=np.int8), background)


# SPEC S-4: a record whose name is closest in meaning is still found by its other fields if they pass, should its
# name not be spelt like the query; a record only its name matched stands by its name.
def test_a_name_stands_for_its_record_only_where_no_other_field_passes():
    from apps.retrieval import hybrid

    scored = _compared([("contact", 7, "/display_name", 0.9, LETTERS), ("contact", 7, "/relation", 0.6, LETTERS),
                        ("contact", 8, "/display_name", 0.8, LETTERS)])
    assert [(hit.record_id, hit.field) for hit in hybrid._best(scored, 10)] == [(8, "/display_name"), (7, "/relation")]


# SPEC S-4: a field is held to the general-knowledge topics of its own script, as a question is closer to a topic in
# its language than in the other: a Chinese value as close as an English one may fall to a Chinese topic alone.
def test_a_field_is_held_to_the_topics_of_its_script():
    import numpy as np

    from apps.retrieval import hybrid
    from apps.retrieval.calibration import Background

    general = np.array([0.4, 0.4, 0.6, 0.4])  # the closest topic: in letters 0.4, in CJK 0.6
    background = Background(everyday=np.zeros(8), nonsense=0.0, general=general, world=False, amount=False)
    rows = [("user_profile", 1, "/value", 0.5, LETTERS), ("user_profile", 2, "/value", 0.5, CJK),
            ("user_profile", 3, "/value", 0.5, LETTERS | CJK), ("user_profile", 4, "/value", 0.58, CJK)]
    assert sorted(hit.record_id for hit in hybrid._best(_compared(rows, background), 10)) == [1, 3, 4]
