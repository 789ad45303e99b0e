"""What a similarity means for one query: the parts of ``calibration`` that read the query's words (SPEC S-4)."""

from __future__ import annotations

import pytest

from apps.retrieval.calibration import COHORT, GENERAL, NONSENSE, about_someone


# SPEC S-4: a question naming a person or a taste asks about someone's life; a question about the world does not.
@pytest.mark.parametrize("query,someone", [
    ("does she like jazz", True), ("which painter does the user love", True), ("my flight to Chengdu", True),
    ("Her favourite colour", True), ("她喜欢哪个画家", True), ("喜欢吃什么", True), ("用户几点睡觉", True),
    ("how jazz was born in New Orleans", False), ("the rules of cricket", False), ("蜜蜂是怎么酿蜜的", False),
    ("usher syndrome", False), ("shepherd dogs", False), ("the history of the bicycle", False),
    # "you" asked of one's own memory is anyone: the person is "my" or "her".
    ("why do onions make you cry", False), ("你知道潮汐是怎么形成的吗", False), ("how do you boil an egg", False),
])
def test_about_someone(query, someone):
    assert about_someone(query) is someone


def test_the_fixed_texts_are_distinct():
    texts = (*COHORT, *NONSENSE, *GENERAL)
    assert len(set(texts)) == len(texts)
