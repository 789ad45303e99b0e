"""What a similarity means for one query (SPEC S-4; docs/search.md "Calibrated relevance").

A cosine similarity does not mean the same for every query: a string of random letters is 0.4–0.57 similar to a
person's short labels, while a real question in the other language is 0.3 similar to the fact that answers it.
So a field matches by meaning when

* it stands out from the query's *background*: the same query's similarities to every row it was compared
  with (the caller's readable fields of visible records, nothing else: SPEC R-5) and to a fixed cohort of
  everyday texts in both languages, which steadies the figures of a person with few rows;
* it is at least as close to the query as the nearest of a fixed set of nonsense strings (random letters,
  random characters, made-up words): a query of nonsense is as close to other nonsense as to anything a person wrote;
* unless the query is about someone (``about_someone``), it is nearly as close to the query as the nearest of
  a fixed set of general-knowledge topics (science, history, sport, the arts, in both languages) written in
  the field's script: a question an encyclopedia answers ("how do bees make honey") is closer to one of them
  than to the person's record that merely shares its theme, and a question is closer to a topic in its own
  language than to one in the other, as it is to a record (每天跑步 is nearer 跑步的正确姿势 than "Runs 5 km
  every morning"). A query in the form of such a question (``asks_about_the_world``: "why does it rain",
  "the history of the bicycle", 茶叶的起源, "golden retriever lifespan") must be clearly closer to the record
  than to every topic: what it shares with a person's "Bike" or 小雨 is the subject, not the question. A question
  of amount (``asks_an_amount``: "全马多少公里", "上班路上要多久") asks either, and must be at least as close.
"""

from __future__ import annotations

import logging
import random
import re
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from apps.retrieval.indexing import CJK, LETTERS, normalize, script, spelling
from apps.retrieval.vectors import products

log = logging.getLogger(__name__)

# Everyday words, phrases and sentences on no one's topic, in English and Chinese, short and long: the
# background a query's similarities are measured against. Fixed: changing it moves every threshold.
COHORT = (
    "weather", "the train is late again", "a quiet street after the rain", "Notes", "Schedule", "Misc",
    "how to boil an egg", "the history of the printing press", "a red bicycle leaning on a wall", "tax law",
    "Meeting", "Project update", "summer holiday photos", "the price of rice went up", "an old map of the city",
    "football results from the weekend", "a recipe for banana bread", "the moon is bright tonight",
    "customer support ticket", "Reminder", "the museum opens at nine", "learning to draw portraits",
    "a broken umbrella", "stock market news", "the garden needs weeding", "a long email thread about budgets",
    "birds migrating south", "Status", "Other", "a podcast about economics", "the elevator is out of order",
    "winter coat on sale", "a documentary about oceans", "the wifi password", "thank you for your help",
    "General", "an apartment with two rooms", "the kids are at school", "a cup of tea", "Info",
    "the bus leaves from platform four", "election results", "a song stuck in my head", "Contact",
    "a new phone case", "the report is due next week", "fixing the kitchen light", "Item",
    "天气", "火车又晚点了", "雨后安静的街道", "笔记", "日程", "其他", "怎么煮鸡蛋", "印刷术的历史",
    "靠在墙上的红色自行车", "税法", "会议", "项目进展", "暑假照片", "米价涨了", "一张老城地图",
    "周末的足球比分", "香蕉面包的做法", "今晚月亮很亮", "客服工单", "提醒", "博物馆九点开门",
    "学画肖像", "一把坏掉的伞", "股市新闻", "花园需要除草", "关于预算的长邮件", "候鸟南飞", "状态",
    "备注", "一档讲经济的播客", "电梯坏了", "冬季大衣打折", "一部海洋纪录片", "无线网密码",
    "谢谢你的帮助", "一般", "两室的公寓", "孩子们在上学", "一杯茶", "信息", "公交车从四号站台出发",
    "选举结果", "一首歌在脑子里循环", "联系人", "新手机壳", "报告下周交", "修厨房的灯", "条目",
)


# General-knowledge topics in English and Chinese — science, history, inventions, nature, sport, the arts,
# animals, the body, how food and machines work — what a question the person's memory does not answer is
# usually about (``general_topics.txt``, one a line).
GENERAL = tuple(line for line in Path(__file__).with_name("general_topics.txt").read_text("utf-8").splitlines()
                if line and not line.startswith("#"))


def _nonsense(seed: int = 7) -> tuple[str, ...]:
    """144 strings of random Latin letters, CJK characters and pronounceable syllables ("wavi nosu": a made-up
    word is as close to a person's names as random letters are to their labels), the same in every process
    (``random()`` only: its sequence for a seed is what Python keeps stable across versions)."""
    rng = random.Random(seed)

    def pick(items: str, low: int, high: int) -> str:
        return "".join(items[int(rng.random() * len(items))] for _ in range(low + int(rng.random() * (high - low + 1))))

    def word() -> str:  # pronounceable: consonant, vowel and now and then a closing consonant, two or three times
        return "".join(pick(consonants, 1, 1) + pick(vowels, 1, 1) + pick(consonants, 0, 1)
                       for _ in range(2 + int(rng.random() * 2)))

    letters, han = "abcdefghijklmnopqrstuvwxyz", "".join(chr(c) for c in range(0x4E00, 0x9FA6))
    consonants, vowels = "bcdfghjklmnprstvwz", "aeiou"
    words = [" ".join(pick(letters, 3, 9) for _ in range(1 + int(rng.random() * 3))) for _ in range(48)]
    characters = [pick(han, 2, 4) for _ in range(24)]
    mixed = [f"{pick(letters, 3, 6)} {pick(han, 1, 3)}" for _ in range(24)]
    # Drawn last, so that the strings above stay as they were.
    spoken = [" ".join(word() for _ in range(1 + int(rng.random() * 2))) for _ in range(48)]
    return (*words, *characters, *mixed, *spoken)


NONSENSE = _nonsense()


@dataclass(frozen=True)
class Background:
    """One query's similarities to the fixed texts: the everyday cohort's, the closest nonsense string's and
    the closest general-knowledge topic's."""

    everyday: np.ndarray
    nonsense: float
    # By a field's ``indexing.script`` flags, the closest topic in its script (in either, for both or neither).
    # None: the query is about someone (``about_someone``), not general knowledge.
    general: np.ndarray | None
    world: bool  # the query is phrased as a question about the world (``asks_about_the_world``)
    amount: bool  # … or asks an amount (``asks_an_amount``)


_lock = threading.Lock()
_fixed: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # id(embedder) → (cohort, nonsense, general)
_IN_CJK = np.array([script(topic) & CJK != 0 for topic in GENERAL])  # each topic's language (no folding needed)


def background(embedder, query: np.ndarray, text: str) -> Background | None:
    """The background of ``query``, the vector of ``text``, under ``embedder`` (the fixed texts embedded once
    per process; None while the embedder cannot answer)."""
    from apps.retrieval.embeddings import EmbeddingUnavailable

    fixed = _fixed.get(id(embedder))
    if fixed is None:
        try:
            vectors = np.ascontiguousarray(
                embedder.embed([normalize(t) for t in (*COHORT, *NONSENSE, *GENERAL)]), dtype=np.float32)
        except EmbeddingUnavailable as exc:
            log.warning("no background for calibrating meaning: %s", exc)
            return None
        vectors.flags.writeable = False
        with _lock:
            cut = len(COHORT) + len(NONSENSE)
            fixed = _fixed.setdefault(id(embedder), (vectors[:len(COHORT)], vectors[len(COHORT):cut], vectors[cut:]))
    query = query.astype(np.float32)
    general = None
    if not about_someone(text):
        topics = products(fixed[2], None, query)  # 256 rows at a time: OpenBLAS stays on one thread
        general = np.empty(4)
        general[LETTERS], general[CJK] = topics[~_IN_CJK].max(), topics[_IN_CJK].max()
        general[[0, LETTERS | CJK]] = min(general[LETTERS], general[CJK])  # both scripts or neither: the lower bar
    return Background(everyday=fixed[0] @ query, nonsense=float((fixed[1] @ query).max()), general=general,
                      world=asks_about_the_world(text), amount=asks_an_amount(text))


# The forms of a question an encyclopedia answers: why, how things are or work (in the present: "why did the
# database go down" asks what happened), the history, origin, rules or inventor of something. Not "how to" or
# 怎么 alone: "饺子怎么包" asks for the person's own recipe.
_FORMS = (r"\bwhy\b(?! (?:did|didn't|was|wasn't|were|weren't|had)\b)|\bhow (?:do|does|is|are)\b|"
          r"\bwhat (?:causes|makes)\b|"
          r"\b(?:history|origins?|invention|causes|rules|science|chemistry|physics) of\b|"
          r"\bwho (?:invented|discovered|built|founded|wrote|painted)\b|"
          r"为什么|为何|起源|由来|历史|原理|发明|是怎么|是如何|怎么形成|如何形成|的规则|的生平")
# The aspects it lists of a thing: how long it lives, what it does to the body, how it compares with another, its
# kinds, records, rankings and famous examples ("golden retriever lifespan", "IELTS vs TOEFL", 普洱茶的产地,
# 雅思和托福哪个难, 成都必吃美食排行). Not an amount ("how long", 多久: "上班路上要多久" asks about the person's
# commute), nor words a person's life uses as often ("oldest son", "best friend in college", "typical week", 一般).
_ASPECTS = (r"\b(?:lifespan|life expectancy|world records?|health benefits|benefits of|side effects|nutrition(?:al)?|"
            r"calories|internals|anatomy|temperament|habitat|elevation|population|definition|meaning of|famous|"
            r"greatest|best[- ]selling|tallest|fastest|vs|versus|difference between|compared to|types of|"
            r"varieties of|species of|half-life|dimensions|top speed|explained|for beginners|of all time|"
            r"ever recorded|average cost)\b|"
            r"寿命|副作用|营养|功效|好处|种类|分类|品种|构造|产地|花语|代表人物|代表作|著名|最有名|有名的|世界纪录|习性|"
            r"定义|含义|海拔|人口|面积|区别|和.{1,6}哪个|入门|必听|必吃|必看|必去|排行|十大|最佳|历届|流派|适合什么人|属于什么")
_WORLD = re.compile(f"{_FORMS}|{_ASPECTS}")


# In a question an encyclopedia answers, "we" is everyone ("why do we dream", 我们为什么会做梦).
_WE = re.compile(r"\b(?:we|us|our|ours|ourselves)\b|我们|咱们")


# A question of amount (how many, how long, 多少, 几点) asks the world as often as a person's own life:
# "全马多少公里", "多肉多久浇一次水", and "上班路上要多久".
_AMOUNT = re.compile(r"\bhow (?:many|much|long|often|far|tall|big|old)\b|"
                     r"多少|多久|多长|多高|多大|多远|几点|几个|几级|几年")


def asks_an_amount(text: str) -> bool:
    """Whether ``text`` (a query) asks an amount, English or Chinese."""
    return _AMOUNT.search(_plain(text)) is not None


def asks_about_the_world(text: str) -> bool:
    """Whether ``text`` (a query) has the form of a general-knowledge question, English or Chinese, and is not
    asked with "we": "why are we moving house" is a family's question (still held to the general topics)."""
    plain = _plain(text)
    return _WORLD.search(plain) is not None and _WE.search(plain) is None


# Words that point at a person: a question holding one asks about someone's life ("does she like jazz",
# 她喜欢哪个画家). English words whole; Chinese as written. Not "you" (你, 您): a question put to one's own memory
# asks about "my" life or "her" life; "you" there is anyone ("why do onions make you cry").
_SOMEONE = re.compile(r"\b(?:i|me|my|mine|myself|we|our|us|she|her|hers|he|him|his|they|their|them|users?)\b|"
                      r"[我她他咱]|用户|自己")
# "Mozart and his operas", 李白和他的诗: the pronoun is the one just named.
_NAMED_JUST_BEFORE = re.compile(r"\band (?:his|her|their)\b|和[他她]的?")
# A word of taste asks about someone when the one who likes is unsaid ("favourite colour", 喜欢吃什么) or a
# person; not when it is a thing named before it ("why do cats like boxes", "what do pandas like to eat").
# In Chinese, which often leaves the person out, unless the question has an encyclopedia's form (为什么猫喜欢纸箱).
_TASTE = re.compile(r"\b(?:likes?|loves?|hates?|prefers?|favou?rite)\b")
_TASTE_ZH = re.compile(r"喜欢|讨厌|最爱|爱吃|爱喝")
_BETWEEN = frozenset({"do", "does", "did", "don't", "doesn't", "not", "really", "also", "still", "most", "the", "a",
                      "to"})  # words that stand between the one who likes and the word of taste
_ASKING = frozenset({"what", "which", "who", "how", "and", "or"})  # words after which the one who likes is unsaid


def about_someone(text: str) -> bool:
    """Whether ``text`` (a query) is about someone: a pronoun, "user", or a word of taste whose subject is a
    person or unsaid, English or Chinese."""
    plain = _NAMED_JUST_BEFORE.sub(" ", _plain(text))
    world = _WORLD.search(plain) is not None
    if world:
        plain = _WE.sub(" ", plain)
    if _SOMEONE.search(plain):
        return True
    for taste in _TASTE.finditer(plain):
        before = [word for word in re.findall(r"[\w']+", plain[:taste.start()]) if word not in _BETWEEN]
        if not before or before[-1] in _ASKING:
            return True
    return not world and _TASTE_ZH.search(plain) is not None


def spelt_alike(query: str, name: str) -> bool:
    """Whether ``query`` spells ``name`` (both normalized; ``indexing.spelling``): it holds all the name's spelling
    ("grace liu's phone number"), or the two share half of it (Dice ≥ ½: "grcae liu", 周雷 for 周磊). "glorp"
    spells no name, and 隔壁老王吧啦 does not spell 老张."""
    mine, theirs = spelling(query), spelling(name)
    shared = len(mine & theirs)
    return bool(theirs) and (shared == len(theirs) or 4 * shared >= len(mine) + len(theirs))


def _plain(text: str) -> str:
    return normalize(text).replace("\u2019", "'")  # "didn’t" as "didn't"


def standardized(similarities: np.ndarray, everyday: np.ndarray | None) -> np.ndarray:
    """Each similarity in standard deviations above the mean of the query's background (float64).

    The background is ``similarities`` themselves and ``everyday`` (the query's similarities to the cohort).
    """
    values = similarities.astype(np.float64)
    background = values if everyday is None else np.concatenate([values, everyday.astype(np.float64)])
    if background.shape[0] < 2:
        return np.zeros_like(values)
    spread = float(background.std())
    return (values - float(background.mean())) / spread if spread > 0 else np.zeros_like(values)
