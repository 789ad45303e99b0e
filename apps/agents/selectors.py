"""Reads of runs and policies: one call's run, its person, its agent's policy and grants in one statement (SPEC R-4)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from apps.agents.models import RunSnapshot, grant_field_patterns, grant_operations
from apps.common import statements

_RUN = ("run_id", "thread_id", "agent_key", "agent_id", "user_id", "audience", "grant", "ended_at")
_USER = ("user__is_active",)
_POLICY = ("agent__enabled",)
_GRANT = ("agent__grants__resource", "agent__grants__can_list", "agent__grants__can_read",
          "agent__grants__can_search", "agent__grants__fields")


@dataclass(frozen=True)
class RunState:
    """A run as one call finds it, with its agent's policy as it is now (``policy_*``: None without one)."""

    run_id: uuid.UUID
    thread_id: str
    agent_key: str
    agent_id: int | None
    user_id: int
    audience: str
    grant: Any
    ended_at: datetime | None
    user_active: bool  # the person's account, as it is now
    policy_enabled: bool | None
    # resource → {"operations": [...], "fields": [...]}, as ``services.policy_grant`` reads it
    policy_grants: dict[str, dict[str, list[str]]]


def _run_with_policy(run_id: uuid.UUID) -> QuerySet[RunSnapshot, tuple[Any, ...]]:
    return RunSnapshot.objects.filter(run_id=run_id).order_by().values_list(*_RUN, *_USER, *_POLICY, *_GRANT)


def run_state(run_id: object) -> RunState | None:
    """The run ``run_id``, whether its person is active, its agent's current policy and grants (one SQL statement)."""
    try:
        run_id = run_id if isinstance(run_id, uuid.UUID) else uuid.UUID(str(run_id))
    except ValueError:
        return None
    rows = statements.rows(RunSnapshot, _run_with_policy, ("uuid",), run_id, by_key=True)
    if rows is None:  # the compiled form is not usable on this database: the queryset itself
        rows = list(_run_with_policy(run_id))
    if not rows:
        return None
    first = rows[0]
    grants: dict[str, dict[str, list[str]]] = {}
    for row in rows:
        resource, can_list, can_read, can_search, fields = row[len(_RUN) + len(_USER) + len(_POLICY):]
        if resource is None:
            continue
        grants[resource] = {
            "operations": grant_operations(can_list=can_list, can_read=can_read, can_search=can_search),
            "fields": grant_field_patterns(fields),
        }
    # The slice is exactly the leading fields of _RUN, in RunState's order.
    return RunState(*first[:len(_RUN)], user_active=first[len(_RUN)], policy_enabled=first[len(_RUN) + 1],
                    policy_grants=grants)  # type: ignore[misc]
