"""The search evaluation set (SPEC S-4, R-8): one person's facts, another person's records, ~300 questions.

The set (``data/search_set.json``) was written before any tuning and is split once, by a fixed seed, into a
tuning half and a held-out half (``data/search_split.json``); ``split()`` recomputes it, and a test holds the
stored split to it. Design notes: docs/search.md "Evaluation".
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model

from apps.agents.evaluation.dataset import NOW
from apps.common import clock

if TYPE_CHECKING:
    from apps.accounts.models import User

DATA = Path(__file__).with_name("data")
HALVES = ("tuning", "held_out")
DEV = "dev"  # questions written to calibrate meaning (``data/search_dev.json``): in neither half


@cache
def load() -> dict[str, Any]:
    """The set as written: facts, records, twins and questions."""
    return json.loads((DATA / "search_set.json").read_text(encoding="utf-8"))


@cache
def stored_split() -> dict[str, Any]:
    return json.loads((DATA / "search_split.json").read_text(encoding="utf-8"))


def split(questions: list[dict[str, Any]], seed: int) -> dict[str, list[str]]:
    """Per (corpus, kind): the sorted ids shuffled by ``random.Random(seed)``, the first half for tuning."""
    rng = random.Random(seed)
    groups: dict[tuple[str, str], list[str]] = {}
    for q in questions:
        groups.setdefault((q["corpus"], q["kind"]), []).append(q["id"])
    halves: dict[str, list[str]] = {"tuning": [], "held_out": []}
    for key in sorted(groups):
        ids = sorted(groups[key])
        rng.shuffle(ids)
        halves["tuning"] += ids[: len(ids) // 2]
        halves["held_out"] += ids[len(ids) // 2:]
    return {name: sorted(ids) for name, ids in halves.items()}


@cache
def development() -> list[dict[str, Any]]:
    return json.loads((DATA / "search_dev.json").read_text(encoding="utf-8"))["questions"]


def questions(half: str | None = None) -> list[dict[str, Any]]:
    """The questions of one half (``tuning``, ``held_out``), the development questions (``DEV``), or all of
    the set's."""
    if half == DEV:
        return list(development())
    every = load()["questions"]
    if half is None:
        return list(every)
    wanted = set(stored_split()[half])
    return [q for q in every if q["id"] in wanted]


@dataclass
class Built:
    """The set written for two new people: keys of the set → refs (``<type>:<id>``)."""

    facts_owner: User
    records_owner: User
    refs: dict[str, str] = field(default_factory=dict)
    fact_ids: dict[int, str] = field(default_factory=dict)  # fact id → key

    def key_of(self, ref: str) -> str:
        return self._keys().get(ref, ref)

    def _keys(self) -> dict[str, str]:
        return {ref: key for key, ref in self.refs.items()}


def _at(days_ago: float):
    return clock.frozen_at(NOW - timedelta(days=days_ago))


def build() -> Built:
    """Write the set through the product's services, each record at its own time (recency counts)."""
    from apps.memory import services

    User = get_user_model()
    suffix = uuid.uuid4().hex[:8]
    built = Built(facts_owner=User.objects.create_user(username=f"eval-facts-{suffix}", password=None),
                  records_owner=User.objects.create_user(username=f"eval-records-{suffix}", password=None))
    data = load()
    with _at(30):
        for f in data["facts"]:
            fact = services.fact_create(owner=built.facts_owner, category=f["category"], label=f["label"],
                                        value=f["value"], evidence=f.get("evidence", ""), sensitive=False)
            built.refs[f["key"]] = f"user_profile:{fact.pk}"
            built.fact_ids[fact.pk] = f["key"]
    owner = built.records_owner
    for r in data["records"]:
        with _at(r["days_ago"]):
            now = clock.now()
            if r["type"] == "todo":
                due = NOW + timedelta(days=r["due_in_days"]) if "due_in_days" in r else None
                made: Any = services.todo_create(owner=owner, title=r["title"], notes=r["notes"], status=r["status"],
                                                 due_at=due)
            elif r["type"] == "episode":
                made = services.episode_create(owner=owner, title=r["title"], occurred_at=now, summary=r["summary"],
                                               topics=r["topics"],
                                               participants=[{"display_name": p} for p in r["participants"]])
            elif r["type"] == "calendar":
                starts = NOW + timedelta(days=r["starts_in_days"])
                made = services.calendar_event_create(owner=owner, title=r["title"], starts_at=starts,
                                                      ends_at=starts + timedelta(hours=1), location=r["location"],
                                                      notes=r["notes"], status=r["status"])
            elif r["type"] == "contact":
                made = services.contact_create(owner=owner, display_name=r["display_name"], aliases=r["aliases"],
                                               relation=r["relation"], notes=r["notes"])
            elif r["type"] == "voice_memo":
                made = services.voice_memo_create(owner=owner, title=r["title"], text=r["text"], recorded_at=now)
            else:
                raise ValueError(r["type"])
            built.refs[r["key"]] = f"{r['type']}:{made.pk}"
    return built
