"""Questions by meaning, in both languages, over a person's shared facts (SPEC S-3, S-4).

Design notes: docs/design.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.memory.models import Fact

# (key, category, label, value). Written once, never tuned to the questions.
FACTS = (
    ("pet", "basic", "Pet", "Golden retriever named Mochi"),
    ("alcohol", "preferences", "偏好", "不喝酒"),
    ("visa", "goals", "签证", "申请德国工作签证，材料周五前交"),
    ("city", "basic", "City", "Lives in Berlin since 2019"),
    ("allergy", "basic", "过敏", "青霉素过敏"),
    ("okr", "work_study", "本周待办", "准备 OKR 复盘 PPT"),
    ("food", "preferences", "Food", "Loves spicy Sichuan dishes, can't stand cilantro"),
    ("coffee", "preferences", "咖啡", "燕麦拿铁，少糖"),
    ("kitchen", "goals", "Home project", "Renovating the kitchen this autumn"),
    ("running", "habits", "Exercise", "Runs 5 km every morning before work"),
    ("birthday", "basic", "生日", "3 月 14 日"),
    ("job", "work_study", "Job", "Product manager at a fintech startup"),
    ("music", "preferences", "音乐", "喜欢听爵士乐和古典钢琴"),
    ("japanese", "goals", "语言", "正在学日语，目标是明年考 N2"),
    ("seat", "preferences", "Travel", "Prefers window seats and night trains"),
    ("daughter", "basic", "家人", "有一个女儿，今年六岁"),
    ("sleep", "habits", "Sleep", "Usually goes to bed around 11 pm"),
    ("books", "preferences", "Reading", "Reads science fiction; favourite author Liu Cixin"),
    ("meetings", "work_study", "开会", "不喜欢早上开会"),
    ("phone", "basic", "手机", "用的是iPhone手机，蓝色的壳"),
)


@dataclass(frozen=True)
class FactQuestion:
    kind: str  # "keyword" | "paraphrase"
    direction: str  # "en→en", "zh→zh", "en→zh", "zh→en", "zh-hant→zh"
    query: str
    expected: str  # a key of FACTS


QUESTIONS = (
    # Sharing a word with the fact: what keyword search answers today, and must keep answering.
    FactQuestion("keyword", "en→en", "Mochi", "pet"),
    FactQuestion("keyword", "zh→zh", "签证", "visa"),
    FactQuestion("keyword", "en→en", "Berlin", "city"),
    FactQuestion("keyword", "zh→zh", "爵士乐", "music"),
    FactQuestion("keyword", "en→en", "Liu Cixin", "books"),
    FactQuestion("keyword", "zh→zh", "iPhone 蓝色", "phone"),
    FactQuestion("keyword", "zh→zh", "咖啡", "coffee"),
    FactQuestion("keyword", "en→en", "fintech", "job"),
    # Traditional spelling of a Simplified fact, and Latin next to Chinese without a space.
    FactQuestion("keyword", "zh-hant→zh", "簽證", "visa"),
    FactQuestion("keyword", "zh-hant→zh", "爵士樂", "music"),
    FactQuestion("keyword", "zh→zh", "OKR复盘", "okr"),
    FactQuestion("keyword", "zh→zh", "iPhone手机", "phone"),
    # Other words, same language.
    FactQuestion("paraphrase", "en→en", "does the user have a dog", "pet"),
    FactQuestion("paraphrase", "en→en", "kitchen remodel", "kitchen"),
    FactQuestion("paraphrase", "en→en", "what do I like to eat?", "food"),
    FactQuestion("paraphrase", "en→en", "how often does the user work out", "running"),
    FactQuestion("paraphrase", "en→en", "what time does the user sleep", "sleep"),
    FactQuestion("paraphrase", "zh→zh", "用户喝酒吗", "alcohol"),
    FactQuestion("paraphrase", "zh→zh", "过敏药", "allergy"),
    FactQuestion("paraphrase", "zh→zh", "用户有孩子吗", "daughter"),
    FactQuestion("paraphrase", "zh→zh", "在学什么外语", "japanese"),
    # Across languages, both ways.
    FactQuestion("paraphrase", "zh→en", "柏林", "city"),
    FactQuestion("paraphrase", "zh→en", "用户养狗吗", "pet"),
    FactQuestion("paraphrase", "zh→en", "用户做什么工作", "job"),
    FactQuestion("paraphrase", "zh→en", "喜欢吃什么", "food"),
    FactQuestion("paraphrase", "zh→en", "科幻小说", "books"),
    FactQuestion("paraphrase", "zh→en", "每天跑步", "running"),
    FactQuestion("paraphrase", "en→zh", "Does the user drink alcohol?", "alcohol"),
    FactQuestion("paraphrase", "en→zh", "visa application", "visa"),
    FactQuestion("paraphrase", "en→zh", "penicillin allergy", "allergy"),
    FactQuestion("paraphrase", "en→zh", "favourite kind of music", "music"),
    FactQuestion("paraphrase", "en→zh", "learning Japanese", "japanese"),
    FactQuestion("paraphrase", "en→zh", "when is the user's birthday", "birthday"),
    FactQuestion("paraphrase", "en→zh", "morning meetings", "meetings"),
)


@dataclass
class FactReport:
    facts: int = 0
    asked: dict[str, int] = field(default_factory=dict)  # kind → questions
    found: dict[str, int] = field(default_factory=dict)  # kind → expected fact in the top five
    failures: list[str] = field(default_factory=list)

    def recall(self, kind: str) -> float:
        return self.found.get(kind, 0) / self.asked[kind] if self.asked.get(kind) else 1.0


def build_facts(owner: User) -> dict[str, Fact]:
    """The facts of ``FACTS`` for ``owner``, by key; the person decided none of them is sensitive."""
    from apps.memory.services import fact_create

    return {key: fact_create(owner=owner, category=category, label=label, value=value, sensitive=False)
            for key, category, label, value in FACTS}


def evaluate_facts(owner: User, *, top: int = 5) -> FactReport:
    """Share the facts with a new connection of ``owner`` and ask every question through it."""
    from oauth2_provider.models import get_application_model

    from apps.consent.selectors.visibility import visible_facts
    from apps.consent.services import connection_authorize, shares_set
    from apps.memory.models import Category
    from apps.retrieval.selectors import search_visible_matches

    facts = build_facts(owner)
    application = get_application_model().objects.create(
        name="meaning evaluation", client_type="public", authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9999/callback")
    connection = connection_authorize(user=owner, application=application,
                                      scopes={"profile:read", "context:search"}, categories=set(Category.shareable()))
    shares_set(connection=connection, fact_ids={fact.pk for fact in facts.values()})
    names = {fact.pk: key for key, fact in facts.items()}
    report = FactReport(facts=len(facts))
    for q in QUESTIONS:
        report.asked[q.kind] = report.asked.get(q.kind, 0) + 1
        ids = search_visible_matches(owner_id=owner.pk, visible=visible_facts(connection=connection), query=q.query,
                                     offset=0, limit=top).ids
        if facts[q.expected].pk in ids:
            report.found[q.kind] = report.found.get(q.kind, 0) + 1
        else:
            report.failures.append(f"facts {q.direction} {q.query!r}: expected {q.expected}, "
                                   f"got {[names.get(pk, pk) for pk in ids]}")
    return report
