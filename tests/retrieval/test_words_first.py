"""Words before meaning alone, in both orders (SPEC S-4, R-8).

A record holding the query's words comes before every record only meaning found, however close that one's
meaning: searching "JLPT" must not put a wardrobe-tidying fact ahead of the language-exam goal.
"""

from datetime import UTC, datetime

from apps.retrieval.backends import SearchHit
from apps.retrieval.hybrid import MeaningHit, fuse
from apps.retrieval.layer.ranking import Candidate, rank

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def _keyword(record_id: int, score: float) -> SearchHit:
    return SearchHit(resource_type="user_profile", record_id=record_id, score=score)


def _meaning(record_id: int, similarity: float) -> MeaningHit:
    return MeaningHit(row_id=record_id * 10, resource_type="user_profile", record_id=record_id, field="/value",
                      similarity=similarity)


# SPEC S-4: search_user_context's order.
def test_a_keyword_match_comes_before_every_meaning_only_match():
    keyword = [_keyword(1, 1.2), _keyword(2, 1.1)]  # the exam goal, a second word match
    meaning = [_meaning(3, 0.9), _meaning(4, 0.8)]  # the wardrobe, …: close in meaning, no word
    order = [hit.record_id for hit in fuse(keyword, meaning)]
    assert order == [1, 2, 3, 4]


def test_meaning_agreeing_with_the_words_lifts_a_keyword_match():
    keyword = [_keyword(1, 1.2), _keyword(2, 1.1)]
    meaning = [_meaning(2, 0.8)]
    assert [hit.record_id for hit in fuse(keyword, meaning)] == [2, 1]


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
