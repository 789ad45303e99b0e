"""The demo person's other records (SPEC D-6): one week of meetings, todos, memos and a digest.

Design notes: docs/design.md.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar
from zoneinfo import ZoneInfo

from django.db import transaction

from apps.memory.models import CalendarEvent, Contact, Digest, Episode, Intent, Todo, Transcript, VoiceMemo
from apps.memory.models.resources import OwnedResource
from apps.memory.services import (
    calendar_event_create,
    contact_create,
    digest_create,
    episode_create,
    intent_create,
    todo_create,
    todo_update,
    transcript_create,
    voice_memo_create,
)

SHANGHAI = ZoneInfo("Asia/Shanghai")
WEEK_START = date(2026, 5, 25)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """A moment in the demo week: ``day`` 0 is Monday 25 May 2026, Shanghai time."""
    moment = datetime.combine(WEEK_START + timedelta(days=day), datetime.min.time(), tzinfo=SHANGHAI)
    return moment.replace(hour=hour, minute=minute)


if TYPE_CHECKING:
    from apps.accounts.models import User

R = TypeVar("R", bound=OwnedResource)


def _existing(model: type[R], owner: User, **key: Any) -> R | None:
    return model._default_manager.filter(owner=owner, deleted_at__isnull=True, **key).order_by("id").first()


MEETING_SEGMENTS = [
    ("林若溪", "好，我们开始吧。今天主要两件事：公开测试版的定价，还有六月底的发布计划。"),
    ("王小明", "设计这边，定价页的三个方案都画好了，我等下投屏。"),
    ("Alex Zhang", "Before we look at the designs, can I share the numbers from the pricing survey?"),
    ("林若溪", "Sure, go ahead."),
    ("Alex Zhang", "We had 412 responses. Most people are fine with a free tier plus a paid plan around 30 yuan "
                   "a month. Teams want a separate plan with shared spaces."),
    ("王小明", "那团队版是不是先不做？测试版范围已经很大了。"),
    ("林若溪", "同意，团队版放到第三季度。测试版只做免费版和个人付费版。"),
    ("Alex Zhang", "One more thing: Acme asked for a written pricing proposal by Friday."),
    ("林若溪", "这个我来写，周五之前发给他们。小明帮我把定价页的截图放进附件。"),
    ("王小明", "没问题。另外隐私说明那一页，法务还没确认文案。"),
    ("林若溪", "我周三下午去找法务。发布计划还是六月二十九号，不变。"),
    ("Alex Zhang", "I'll update the launch checklist and share it in the channel today."),
    ("林若溪", "好，纪要我今天下午整理出来发给大家。散会。"),
]


def _meeting_segments() -> list[dict]:
    segments, offset = [], 0
    for speaker, text in MEETING_SEGMENTS:
        length = 2000 + 90 * len(text)  # roughly speaking speed
        segments.append({"speaker": speaker, "start_ms": offset, "end_ms": offset + length, "text": text})
        offset += length + 400
    return segments


def _contacts(owner: User) -> dict[str, Contact]:
    people = [
        ("王小明", ["小明", "Xiaoming Wang"], "同事", "产品设计师，负责记忆助手的交互设计。喜欢喝燕麦拿铁。"),
        ("Emily Chen", ["Em", "陈艾米"], "college friend", "Roommate at Fudan; now a data scientist in Singapore."),
        ("妈妈", ["Mom", "林妈妈"], "母亲", "退休中学语文老师，住在杭州，每周日晚上视频。"),
        ("Sarah Müller", ["Sarah"], "former manager", "Mentor; design agency in Berlin. Quarterly video calls."),
    ]
    found = {}
    for name, aliases, relation, notes in people:
        found[name] = _existing(Contact, owner, display_name=name) or contact_create(
            owner=owner, display_name=name, aliases=aliases, relation=relation, notes=notes,
        )
    return found


def _todo(owner: User, title: str, **fields: Any) -> Todo:
    return _existing(Todo, owner, title=title) or todo_create(owner=owner, title=title, **fields)


def _calendar(owner: User, title: str, **fields: Any) -> CalendarEvent:
    return _existing(CalendarEvent, owner, title=title) or calendar_event_create(owner=owner, title=title, **fields)


def _weekly_meeting(owner: User, contacts: dict[str, Contact]) -> Episode:
    title = "产品周会：定价与发布计划"
    episode = _existing(Episode, owner, title=title)
    if episode:
        return episode
    transcript = _existing(Transcript, owner, title=f"{title}（录音转写）") or transcript_create(
        owner=owner, title=f"{title}（录音转写）", segments=_meeting_segments(), recorded_at=at(0, 10),
    )
    event = _calendar(
        owner, title, starts_at=at(0, 10), ends_at=at(0, 11), location="张江园区 3 号楼 501 会议室",
        notes="议程：1. 测试版定价 2. 六月底发布计划", reminders=[15, 60],
    )
    notes_todo = _todo(owner, "整理周会纪要并发给团队", due_at=at(0, 18), notes="附上定价页截图")
    if notes_todo.status != Todo.Status.DONE:
        notes_todo = todo_update(todo=notes_todo, status=Todo.Status.DONE)
    todos = [
        notes_todo,
        _todo(owner, "Send the pricing proposal to Acme", due_at=at(4, 18),
              notes="Free tier + personal plan at 30 CNY/month; team plan in Q3. Attach pricing page screenshots."),
        _todo(owner, "和法务确认隐私说明文案", due_at=at(2, 16), notes="重点：保存多久、如何删除、助手能看到什么"),
    ]
    return episode_create(
        owner=owner, title=title, occurred_at=at(0, 10), transcript=transcript, calendar_event=event, todos=todos,
        summary="决定测试版只做免费版和个人付费版（约 30 元/月），团队版放到第三季度；发布日期仍为 6 月 29 日。"
                "Acme 需要在周五前收到书面报价，由若溪负责。隐私说明文案待法务确认。",
        topics=["定价", "发布计划", "pricing", "privacy"],
        participants=[
            {"display_name": "林若溪", "role": "host"},
            {"display_name": "王小明", "role": "design", "contact": f"contact:{contacts['王小明'].pk}"},
            {"display_name": "Alex Zhang", "role": "data"},
        ],
    )


def _coffee_chat(owner: User, contacts: dict[str, Contact]) -> Episode:
    title = "Coffee chat with Emily"
    episode = _existing(Episode, owner, title=title)
    if episode:
        return episode
    event = _calendar(owner, "Coffee with Emily", starts_at=at(5, 15), ends_at=at(5, 16, 30),
                      location="Seesaw Coffee, Yongkang Road", reminders=[30])
    return episode_create(
        owner=owner, title=title, occurred_at=at(5, 15), calendar_event=event,
        summary="Emily is visiting Shanghai for a conference. Talked about her move to a new team in Singapore, "
                "running the Shanghai marathon together in November, and a trip to Yunnan with parents.",
        topics=["friends", "marathon", "travel"],
        participants=[
            {"display_name": "Emily Chen", "role": "friend", "contact": f"contact:{contacts['Emily Chen'].pk}"},
        ],
    )


@transaction.atomic
def seed_records(*, owner: User) -> None:
    """Create the demo week's records that do not exist yet, through the memory services."""
    contacts = _contacts(owner)
    meeting = _weekly_meeting(owner, contacts)
    coffee = _coffee_chat(owner, contacts)
    _todo(owner, "预约牙医复诊", due_at=at(3, 12), notes="上次补牙的那颗，约周六上午")
    _todo(owner, "Buy new running shoes before the long run", due_at=at(4, 20))
    _calendar(owner, "瑜伽课", starts_at=at(6, 19), ends_at=at(6, 20), location="小区会所", reminders=[30])
    _calendar(owner, "Dentist (tentative)", starts_at=at(5, 10), ends_at=at(5, 11), status="tentative")
    if not _existing(VoiceMemo, owner, title="路上想到的产品点子"):
        voice_memo_create(
            owner=owner, title="路上想到的产品点子", recorded_at=at(1, 8, 40), duration_seconds=74,
            text="地铁上想到一个点子：搜索结果里如果能直接显示这条记忆是从哪次会议来的，用户会更信任结果。"
                 "另外，助手提议的记忆，确认按钮旁边应该能直接改内容，不要跳到另一个页面。回去和小明聊一下。",
        )
    if not _existing(VoiceMemo, owner, title="Saturday grocery list"):
        voice_memo_create(
            owner=owner, title="Saturday grocery list", recorded_at=at(4, 21, 5), duration_seconds=31,
            text="Eggs, oat milk, tofu, spinach, two pounds of shrimp, ginger, scallions, and coffee beans from "
                 "the roaster on Anfu Road. Also cat food for Niangao.",
        )
    if not _existing(Digest, owner, period=Digest.Period.WEEK, period_start=WEEK_START):
        digest_create(
            owner=owner, period=Digest.Period.WEEK, period_start=WEEK_START, period_end=WEEK_START + timedelta(days=6),
            episodes=[meeting, coffee],
            summary="本周重点：定下测试版定价（免费版 + 个人付费版），团队版推迟到第三季度；给 Acme 的报价周五截止。"
                    "Saturday: coffee with Emily, agreed to run the Shanghai marathon together. "
                    "待办：牙医复诊、买跑鞋。",
        )
    proposal = _existing(Todo, owner, title="Send the pricing proposal to Acme")
    action = "把“Send the pricing proposal to Acme”的截止时间提前到周四下午"
    if proposal and not _existing(Intent, owner, action=action):
        intent_create(owner=owner, action=action, target_ref=f"todo:{proposal.pk}",
                      payload={"field": "due_at", "to": at(3, 17).isoformat(), "reason": "Acme 周五放假"})
    action = "Add Emily's birthday (12 August) to the calendar"
    if not _existing(Intent, owner, action=action):
        intent_create(owner=owner, action=action, target_ref=f"contact:{contacts['Emily Chen'].pk}",
                      payload={"calendar_title": "Emily's birthday", "date": "2026-08-12"}, status="accepted")
