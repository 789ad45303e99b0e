"""The fixed evaluation set: synthetic bilingual people, their records, questions and the refs that answer them.

Design notes: docs/design.md.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, TypeVar

from django.contrib.auth import get_user_model
from django.db.models import Model

from apps.memory import services

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.memory.models import Episode

NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
REMINDER_QUOTE = "我们先只做本地推送，云端补发等七月再说。"
PRICING_QUOTE = "Let's keep the team plan out of the beta, full stop."
PASSPORT = "E12345678"


def at(days_ago: float, hour: int = 10) -> datetime:
    return (NOW - timedelta(days=days_ago)).replace(hour=hour, minute=0)


M = TypeVar("M", bound=Model)


@dataclass
class Question:
    """One question. ``kind`` says how it is asked and judged (see ``runner``)."""

    id: str
    # "search" (shares words with the answer) | "paraphrase" (other words, often the other language)
    # | "decision" | "open_todos" | "quote" | "forbidden" | "withdrawn"
    kind: str
    text: str  # the question, as a person would ask it
    query: str = ""
    resource: str | None = None
    expected: set[str] = field(default_factory=set)  # refs its search must find in the top five
    evidence: str = ""  # text the read evidence must hold (decision, quote), or the withdrawn field
    answer_refs: set[str] = field(default_factory=set)  # open_todos: the todos still open


@dataclass
class Dataset:
    user: User
    other_user: User
    questions: list[Question]
    records: int
    transcripts: list = field(default_factory=list)


def _long_segments(quote: str, speakers: list[str], filler: str, count: int, quote_at: int) -> list[dict]:
    segments = []
    for i in range(count):
        text = quote if i == quote_at else f"{filler} #{i}"
        segments.append({"speaker": speakers[i % len(speakers)], "start_ms": i * 6000, "end_ms": i * 6000 + 5500,
                         "text": text})
    return segments


def build() -> Dataset:
    User = get_user_model()
    suffix = uuid.uuid4().hex[:8]
    lin = User.objects.create_user(username=f"eval-lin-{suffix}", password=None)
    sam = User.objects.create_user(username=f"eval-sam-{suffix}", password=None)
    made = 0

    def count(obj: M) -> M:
        nonlocal made
        made += 1
        return obj

    # --- 林若溪: the mobile reminders review (Chinese, with English mixed in) ---------------
    xiaoming = count(services.contact_create(
        owner=lin, display_name="王小明", aliases=["小明", "Xiaoming"], relation="同事",
        notes="负责设计；不喜欢早上开会。私人电话只用于紧急情况。"))
    review_event = count(services.calendar_event_create(
        owner=lin, title="移动端提醒方案评审", starts_at=at(7), ends_at=at(7, 11), location="5 号会议室",
        reminders=[15]))
    review_transcript = count(services.transcript_create(
        owner=lin, title="提醒方案评审录音", recorded_at=at(7), language="zh-hans",
        segments=_long_segments(REMINDER_QUOTE, ["林若溪", "王小明", "Alex Zhang"],
                                "关于提醒时机、权限弹窗和文案语气的讨论继续进行，大家补充了各自的观察和数据" * 3,
                                count=1500, quote_at=1100)))
    copy_todo = count(services.todo_create(owner=lin, title="写提醒文案初稿", due_at=at(-2),
                                           notes="语气：温和，不催促"))
    prompt_todo = count(services.todo_create(owner=lin, title="确认推送权限弹窗的时机", due_at=at(-4)))
    screenshots = count(services.todo_create(owner=lin, title="整理竞品提醒截图", status="done"))
    review = count(services.episode_create(
        owner=lin, title="移动端提醒方案评审", occurred_at=at(7),
        summary="决定：测试版只做本地推送，云端补发放到七月版本；提醒文案由王小明负责初稿。"
                "Decided: local push only for the beta.",
        topics=["提醒", "推送", "mobile reminders"], transcript=review_transcript, calendar_event=review_event,
        todos=[copy_todo, prompt_todo, screenshots],
        participants=[{"display_name": "林若溪", "role": "host"},
                      {"display_name": "王小明", "role": "design", "contact": f"contact:{xiaoming.pk}"},
                      {"display_name": "Alex Zhang", "role": "data"}]))

    # --- the pricing sync (English) ----------------------------------------------------------
    pricing_transcript = count(services.transcript_create(
        owner=lin, title="Pricing sync recording", recorded_at=at(3), language="en",
        segments=_long_segments(PRICING_QUOTE, ["Lin", "Sam"], "We went through the numbers for each tier again",
                                count=40, quote_at=17)))
    quote_todo = count(services.todo_create(owner=lin, title="Send Acme the written quote", due_at=at(-1)))
    copy_update = count(services.todo_create(owner=lin, title="Update the pricing page copy", status="done"))
    pricing = count(services.episode_create(
        owner=lin, title="Q3 pricing sync", occurred_at=at(3),
        summary="Decided: a free tier plus a personal plan at 30 CNY/month; the team plan moves to Q3. "
                "Acme needs a written quote by Friday.",
        topics=["pricing", "定价"], transcript=pricing_transcript, todos=[quote_todo, copy_update],
        participants=[{"display_name": "Sam Lee", "role": "finance"}]))

    # --- everything else ----------------------------------------------------------------------
    marathon = count(services.voice_memo_create(
        owner=lin, title="跑步计划", text="十一月上海马拉松：每周三次，其中一次长距离 25 公里。", recorded_at=at(2)))
    dentist = count(services.calendar_event_create(owner=lin, title="牙医复诊", starts_at=at(-3),
                                                   ends_at=at(-3, 11), status="cancelled"))
    count(services.digest_create(owner=lin, period="week", period_start=date(2026, 5, 25),
                                 period_end=date(2026, 5, 31), episodes=[review, pricing],
                                 summary="本周：提醒方案定稿（只做本地推送），定价方案确定，Acme 报价待发。"))
    quote_intent = count(services.intent_create(owner=lin, action="创建待办：周五前给 Acme 发报价",
                                                target_ref=f"episode:{pricing.pk}"))
    coffee = count(services.fact_create(owner=lin, category="preferences", label="咖啡", value="燕麦拿铁，少糖",
                                        evidence="聊天里说的"))
    flights = count(services.todo_create(owner=lin, title="订去成都的机票", notes=f"护照号 {PASSPORT}"))

    # --- another person with a look-alike meeting: never an answer for 林若溪 -----------------
    count(services.episode_create(owner=sam, title="移动端提醒方案评审", occurred_at=at(1),
                                  summary="决定：云端补发优先。", topics=["提醒", "mobile reminders"]))
    count(services.todo_create(owner=sam, title="写提醒文案初稿"))

    def episode(e: Episode) -> str:
        return f"episode:{e.pk}"

    questions = [
        Question("q1", "search", "上周移动端提醒那场会？", query="移动端提醒", resource="episode",
                 expected={episode(review)}),
        Question("q2", "search", "The meeting about mobile reminders", query="mobile reminders",
                 expected={episode(review)}),
        Question("q3", "search", "What did we decide on pricing with Acme?", query="pricing Acme",
                 expected={episode(pricing)}),
        Question("q4", "search", "提醒文案谁在写？", query="提醒文案", expected={f"todo:{copy_todo.pk}"}),
        Question("q5", "search", "Who is Xiaoming?", query="Xiaoming", expected={f"contact:{xiaoming.pk}"}),
        Question("q6", "search", "我的马拉松训练计划", query="马拉松", expected={f"voice_memo:{marathon.pk}"}),
        Question("q7", "search", "Is the Acme quote still to do?", query="Acme quote",
                 expected={f"todo:{quote_todo.pk}"}),
        Question("q8", "decision", "提醒方案最后决定了什么？", query="提醒方案 决定", resource="episode",
                 expected={episode(review)}, evidence="只做本地推送"),
        Question("q9", "decision", "What was decided about the team plan?", query="team plan", resource="episode",
                 expected={episode(pricing)}, evidence="the team plan moves to Q3"),
        Question("q10", "open_todos", "那场提醒评审之后还有哪些待办没做完？", query="移动端提醒方案评审",
                 resource="episode", expected={episode(review)},
                 answer_refs={f"todo:{copy_todo.pk}", f"todo:{prompt_todo.pk}"}),
        Question("q11", "open_todos", "What is still open after the pricing sync?", query="pricing sync",
                 resource="episode", expected={episode(pricing)}, answer_refs={f"todo:{quote_todo.pk}"}),
        Question("q12", "quote", "把当时说云端补发的原话找出来", query="云端补发等七月再说", resource="transcript",
                 expected={f"transcript:{review_transcript.pk}"}, evidence=REMINDER_QUOTE),
        Question("q13", "quote", "The exact words about the team plan in the beta", query="team plan out of the beta",
                 resource="transcript", expected={f"transcript:{pricing_transcript.pk}"}, evidence=PRICING_QUOTE),
        Question("q14", "forbidden", "A passport number written only in a todo's notes the agent may not read",
                 query=PASSPORT, expected=set()),
        Question("q15", "withdrawn", "小明的备注（权限撤回后再读）", query="Xiaoming",
                 expected={f"contact:{xiaoming.pk}"}, evidence="/notes"),
        # SPEC S-4: other words than the record's, often the other language (written before the code).
        Question("q16", "paraphrase", "When do I see the dentist?", query="dentist appointment",
                 expected={f"calendar:{dentist.pk}"}),
        Question("q17", "paraphrase", "Did I book the flight to Chengdu?", query="flight to Chengdu",
                 expected={f"todo:{flights.pk}"}),
        Question("q18", "paraphrase", "What is my marathon training plan?", query="marathon training plan",
                 expected={f"voice_memo:{marathon.pk}"}),
        Question("q19", "paraphrase", "定价那次讨论", query="定价讨论", resource="episode",
                 expected={episode(pricing)}),
        Question("q20", "paraphrase", "Who is responsible for design?", query="who is responsible for design",
                 resource="contact", expected={f"contact:{xiaoming.pk}"}),
        Question("q21", "paraphrase", "How do I take my coffee?", query="coffee order",
                 expected={f"user_profile:{coffee.pk}"}),
        Question("q22", "paraphrase", "What did we decide about push notifications?",
                 query="push notification decision", resource="episode", expected={episode(review)}),
        Question("q23", "search", "機票訂了嗎 (Traditional)", query="機票", expected={f"todo:{flights.pk}"}),
        Question("q24", "search", "Acme报价 (Latin next to Chinese, no space)", query="Acme报价",
                 expected={f"intent:{quote_intent.pk}"}),
    ]
    assert flights.pk  # the record q14 must never reveal
    return Dataset(user=lin, other_user=sam, questions=questions, records=made,
                   transcripts=[review_transcript, pricing_transcript])
