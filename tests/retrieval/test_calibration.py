"""What a similarity means for one query: the parts of ``calibration`` that read the query's words (SPEC S-4)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from apps.retrieval import calibration
from apps.retrieval.calibration import (
    COHORT,
    GENERAL,
    NONSENSE,
    about_someone,
    asks_about_the_world,
    asks_an_amount,
    spelt_alike,
)
from apps.retrieval.indexing import CJK, LETTERS, normalize, script


# SPEC S-4: a question naming a person or a taste asks about someone's life; a question about the world does not.
@pytest.mark.parametrize("query,someone", [
    ("does she like jazz", True), ("which painter does the user love", True), ("my flight to Chengdu", True),
    ("Her favourite colour", True), ("她喜欢哪个画家", True), ("喜欢吃什么", True), ("用户几点睡觉", True),
    ("用戶喝酒嗎", True), ("妳喜歡什麼", True),  # Traditional, folded first
    ("how jazz was born in New Orleans", False), ("the rules of cricket", False), ("蜜蜂是怎么酿蜜的", False),
    ("usher syndrome", False), ("shepherd dogs", False), ("the history of the bicycle", False),
    # "you" asked of one's own memory is anyone: the person is "my" or "her".
    ("why do onions make you cry", False), ("你知道潮汐是怎么形成的吗", False), ("how do you boil an egg", False),
    # A word of taste whose subject is a thing; a pronoun that is the one just named; "we" as everyone.
    ("why do cats like boxes", False), ("what do pandas like to eat", False), ("为什么猫喜欢纸箱", False),
    ("Mozart and his operas", False), ("李白和他的诗", False), ("why do we dream", False), ("我们为什么会做梦", False),
    ("what does she like", True), ("what do I love to cook", True), ("favourite colour", True),
    ("Tom and his wife's anniversary", False),  # held to the general topics, which it is nowhere near
    ("what did we decide about pricing", True), ("are we moving house", True), ("出去旅游喜欢怎么安排", True),
])
def test_about_someone(query, someone):
    assert about_someone(query) is someone


# SPEC S-4: a question in the form an encyclopedia answers (why, how things are, the history or origin of
# something) asks about the world; a person's own questions ("how to", 怎么 alone, a subject named) do not.
@pytest.mark.parametrize("query,world", [
    ("why does it rain", True), ("the history of the bicycle", True), ("How are coffee beans roasted", True),
    ("who invented the telephone", True), ("what causes the common cold", True), ("the rules of cricket", True),
    ("茶叶的起源", True), ("为什么会下雨", True), ("為什麼會下雨", True), ("潮汐是怎么形成的", True),
    ("火锅的由来", True),
    ("饺子怎么包", False), ("how to renew a passport", False), ("kitchen renovation budget", False),
    ("Kyoto", False), ("what happened in the database incident", False), ("日语每天怎么复习", False),
    ("云服务合同谈得怎么样", False), ("who coaches the kids' football team", False),
    ("why did the database go down", False), ("how did the football club meeting go", False),
    ("why didn't the vet call back", False), ("Why wasn’t the invoice paid", False),
    ("why are we moving house", False), ("我们为什么要搬家", False),  # a family's question, not the world's
    # The aspects an encyclopedia lists of a thing; not an amount, which a person's own question asks as often.
    ("golden retriever lifespan", True), ("IELTS vs TOEFL", True), ("jasmine tea health benefits", True),
    ("the most famous temple in Kyoto", True), ("普洱茶的产地", True), ("雅思和托福哪个难", True),
    ("美式和拿铁的区别", True), ("成都必吃美食排行", True), ("the tallest building in Shanghai", True),
    ("oldest son's school", False), ("best friend in college", False), ("一般几点睡觉", False),
    ("上班路上要多久", False), ("how long is the commute", False), ("房租每月多少钱", False),
    ("kitchen renovation ideas", False), ("window or aisle seat", False),
])
def test_asks_about_the_world(query, world):
    assert asks_about_the_world(query) is world


# SPEC S-4: a question of amount, which asks the world as often as a person's own life.
@pytest.mark.parametrize("query,amount", [
    ("how many calories does running burn", True), ("全马多少公里", True), ("多肉多久浇一次水", True),
    ("上班路上要多久", True), ("how often to water a snake plant", True), ("大熊猫基地几点开门", True),
    ("marathon training plan", False), ("钢琴老师的电话", False), ("how to renew a passport", False),
])
def test_asks_an_amount(query, amount):
    assert asks_an_amount(query) is amount


# SPEC S-4: of 640 questions put to a person's memory (both languages, written by someone who had not seen the
# project), none that names no one has the form of the world's question: it would be held to the stricter bar.
def test_a_persons_own_questions_do_not_ask_about_the_world():
    questions = _persons_questions()
    assert len(questions) == 640
    assert [q for q in questions if not about_someone(q) and asks_about_the_world(q)] == []


def _persons_questions() -> list[str]:
    return (Path(__file__).parent / "data" / "personal_questions.txt").read_text("utf-8").splitlines()


# SPEC S-4: a misspelt name shares most of the name's letter pairs (a Chinese name, its characters); a made-up
# word, however close in meaning, shares next to none.
@pytest.mark.parametrize("query,name,alike", [
    ("Grcae Liu", "Grace Liu", True), ("Kai Zhnag", "Kai Zhang", True), ("Tom Bakr", "Tom Baker", True),
    ("Mrs Kimm", "Mrs. Kim", True), ("周雷", "周磊", True), ("张健国", "张建国", True), ("李医师", "李医生", True),
    ("Kai Zhang", "Kai Zhang", True), ("Grace Liu's phone number", "Grace Liu", True),
    ("when did I last meet 周磊", "周磊", True),
    ("glorp", "Grace", False), ("wham bam", "Tom Baker", False), ("hocus pocus", "Helen Ho", False),
    ("la 啦 la", "Mia", False), ("汪汪汪", "王老师", False), ("隔壁老王吧啦", "老张", False), ("", "Grace", False),
])
def test_spelt_alike(query, name, alike):
    assert spelt_alike(normalize(query), normalize(name)) is alike


def test_the_fixed_texts_are_distinct():
    texts = (*COHORT, *NONSENSE, *GENERAL)
    assert len(set(texts)) == len(texts)


# SPEC S-4: the script a field is written in picks the general-knowledge topics it is held to.
@pytest.mark.parametrize("text,flags", [
    ("runs 5 km every morning", LETTERS), ("住在上海徐汇区", CJK), ("用的是iphone手机", LETTERS | CJK),
    ("3 月 14 日", CJK), ("10:15", 0), ("café", LETTERS), ("ひらがな", CJK),
])
def test_script(text, flags):
    assert script(text) == flags


def _everyday_topics() -> list[str]:
    """The topics under the general-knowledge file's "everyday life" headings."""
    topics, everyday = [], False
    for line in (Path(calibration.__file__).with_name("general_topics.txt")).read_text("utf-8").splitlines():
        if line.startswith(("# English", "# Chinese")):  # a heading; its further comment lines leave it be
            everyday = line.startswith(("# English: everyday life", "# Chinese: everyday life"))
        elif line and not line.startswith("#") and everyday:
            topics.append(line)
    return topics


# SPEC S-4: the everyday topics (where a person's own subjects lie) name subjects, never a question's form, and
# none is within 0.5 of a question a person puts to their memory: such a topic would hold the person's own
# question ("上班路上要多久", "what kind of tea") to the general bar.
@pytest.mark.usefixtures("meaning")
def test_the_everyday_topics_are_subjects_that_no_persons_question_is_near():
    from apps.retrieval.embeddings import get_embedder

    topics = _everyday_topics()
    assert len(topics) == 364
    asking = re.compile(r"\b(?:how|what|why|when|which|who|where|is|are|do|does|can|should)\b|"
                        r"多少|多久|多长|几|什么|怎么|为什么|吗|哪|如何|是否", re.IGNORECASE)
    assert [topic for topic in topics if asking.search(topic)] == []
    embedder = get_embedder()
    closest = (embedder.embed([normalize(t) for t in topics]) @ embedder.embed([normalize(q) for q in
                                                                               _persons_questions()]).T).max(axis=1)
    assert [topic for topic, near in zip(topics, closest.tolist(), strict=True) if near >= 0.5] == []

