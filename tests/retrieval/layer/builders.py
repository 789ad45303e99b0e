"""Builders for layer tests: an ``Access`` for a grant, calls through the strict parser, records."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta

from apps.memory import services
from apps.retrieval.layer import Access, Grant, handle
from apps.retrieval.layer.parsing import loads
from apps.retrieval.layer.registry import registry

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
OPS = ["list", "read", "search"]


def everything() -> dict:
    return {r.type: {"operations": OPS, "fields": [""]} for r in registry.all()}


def access(user, grants: dict | None = None, *, audience: str = "internal", caller: str = "agent:test/run:1") -> Access:
    return Access(user_id=user.pk, caller=caller, audience=audience,
                  grant=Grant.from_json(everything() if grants is None else grants))


def call(acc: Access, operation: str, **body) -> dict:
    """One operation, its body going through the same strict JSON parsing as the API."""
    return handle(acc, operation, loads(json.dumps(body)))


def read_all(acc: Access, ref: str, *, on_page=None) -> tuple[dict, list[dict]]:
    """Read ``ref`` through every cursor and reassemble it from its fragments."""
    pages = [call(acc, "read", ref=ref)]
    while pages[-1]["next_cursor"]:
        if on_page:
            on_page(len(pages))
        pages.append(call(acc, "read", ref=ref, cursor=pages[-1]["next_cursor"]))
    if "data" in pages[0]:
        return pages[0]["data"], pages
    return reassemble([f for page in pages for f in page["fragments"]]), pages


def reassemble(fragments: list[dict]) -> dict:
    """The client side of ``documents``: apply fragments in order."""
    doc: dict = {}
    for fragment in fragments:
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in fragment["path"][1:].split("/")]
        parent = doc
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        last = tokens[-1]
        if "value" in fragment:
            value = copy.deepcopy(fragment["value"])  # the page keeps its own []/{}
        else:
            before = "" if fragment["start"] == 0 else _get(parent, last)
            assert len(before) == fragment["start"], "fragments arrive in order"
            value = before + fragment["text"]
        if isinstance(parent, list):
            if int(last) == len(parent):
                parent.append(value)
            else:
                parent[int(last)] = value
        else:
            parent[last] = value
    return doc


def _get(parent, token):
    return parent[int(token)] if isinstance(parent, list) else parent[token]


def meeting(owner, *, at: datetime = T0, title="移动端提醒方案评审 Mobile reminders review"):
    """An episode with its event, two todos (one open, one done) and a transcript."""
    event = services.calendar_event_create(owner=owner, title="提醒方案评审", starts_at=at,
                                           ends_at=at + timedelta(hours=1), notes="Room 5, bring the mockups")
    open_todo = services.todo_create(owner=owner, title="补发提醒的重试策略", notes="contact ops: 13800000000")
    done_todo = services.todo_create(owner=owner, title="Share the reminder mockups", status="done")
    transcript = services.transcript_create(
        owner=owner, title="评审录音", recorded_at=at,
        segments=[
            {"speaker": "林若溪", "start_ms": 0, "end_ms": 4000, "text": "我们先只做本地推送，云端补发放到下个版本。"},
            {"speaker": "Alex", "start_ms": 4000, "end_ms": 9000, "text": "Agreed: local push first, retry later."},
        ],
    )
    episode = services.episode_create(
        owner=owner, title=title, occurred_at=at, summary="决定先做本地推送；云端补发延后。Decided: local push first.",
        topics=["提醒", "reminders"], transcript=transcript, calendar_event=event, todos=[open_todo, done_todo],
        participants=[{"display_name": "林若溪", "role": "host", "email": "ruoxi@example.com"},
                      {"display_name": "Alex Zhang", "role": "data"}],
    )
    return {"episode": episode, "event": event, "open_todo": open_todo, "done_todo": done_todo,
            "transcript": transcript}
