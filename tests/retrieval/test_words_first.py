"""Words before meaning alone, in both orders (SPEC S-4, R-8).

A record holding the query's words comes before every record only meaning found, however close that one's
meaning: searching "JLPT" must not put a wardrobe-tidying fact ahead of the language-exam goal.
"""

from datetime import UTC, datetime

from apps.retrieval.layer.ranking import Candidate, rank

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def _fact(record_id: int, *, lexical: float = 0.0, similarity: float | None = None) -> Candidate:
    """A fact as search_user_context ranks it: no status, like times (SPEC S-4: the layer's one order)."""
    return Candidate(ref=f"user_profile:{record_id}", resource_type="user_profile", record_id=record_id,
                     lexical=lexical, similarity=similarity, changed_at=NOW, type_weight=0.05)


def _order(*candidates: Candidate) -> list[int]:
    return [c.record_id for c in rank(list(candidates), now=NOW)]


# SPEC S-4: search_user_context's order.
def test_a_keyword_match_comes_before_every_meaning_only_match():
    # the exam goal and a second word match; the wardrobe, …: close in meaning, no word
    assert _order(_fact(3, similarity=0.9), _fact(1, lexical=1.2), _fact(4, similarity=0.8),
                  _fact(2, lexical=1.1)) == [1, 2, 3, 4]


def test_meaning_agreeing_with_the_words_lifts_a_keyword_match():
    assert _order(_fact(1, lexical=1.2), _fact(2, lexical=1.1, similarity=0.8)) == [2, 1]


# SPEC S-4, R-8: the layer's order; status still orders like records within the words' tier.
def test_the_layer_ranks_word_matches_above_meaning_alone_and_open_above_done():
    found = [
        Candidate(ref="todo:1", resource_type="todo", record_id=1, lexical=0.5, status_boost=-0.1,
                  changed_at=NOW, type_weight=0.08, similarity=0.4),
        Candidate(ref="todo:2", resource_type="todo", record_id=2, lexical=0.5, status_boost=0.3,
                  changed_at=NOW, type_weight=0.08, similarity=0.4),
        Candidate(ref="user_profile:3", resource_type="user_profile", record_id=3, lexical=0.0, status_boost=0.0,
                  changed_at=NOW, type_weight=0.1, similarity=0.95),
    ]
    assert [c.ref for c in rank(found, now=NOW)] == ["todo:2", "todo:1", "user_profile:3"]
