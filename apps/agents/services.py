"""Runs and policies: every write, and the one place a run's access is computed (SPEC D-7, R-4)."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable
from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Model

from apps.agents import selectors
from apps.agents.models import AgentGrant, AgentPolicy, RunSnapshot
from apps.common import clock
from apps.retrieval.layer import Access, Grant, GrantInvalid, LayerError
from apps.retrieval.layer.access import SnapshotInvalid, effective_grant
from apps.retrieval.layer.audiences import INTERNAL

RunT = TypeVar("RunT", RunSnapshot, selectors.RunState)
RunId = uuid.UUID | str


def policy_grant(policy: AgentPolicy | None) -> Grant:
    """The policy's grant as it is now; ``policy_unavailable`` when it cannot be used."""
    if policy is None or not policy.enabled:
        raise LayerError("policy_unavailable", "the agent's policy is missing or disabled")
    try:
        return Grant.from_json({
            g.resource: {"operations": g.operations, "fields": g.field_patterns}
            for g in AgentGrant.objects.filter(policy=policy)
        })
    except GrantInvalid as exc:
        raise LayerError("policy_unavailable", f"the agent's policy cannot be read: {exc}") from None


@transaction.atomic
def policy_create(
    *, agent_id: str, name: str, application: Model, grants: dict[str, dict[str, Any]] | None = None,
) -> AgentPolicy:
    """``grants``: resource type → ``{"operations": [...], "fields": [...]}``."""
    policy = AgentPolicy.objects.create(agent_id=agent_id, name=name, application=application,
                                        updated_at=clock.now())
    for resource, grant in (grants or {}).items():
        policy_grant_set(policy=policy, resource=resource, **grant)
    return policy


@transaction.atomic
def policy_grant_set(
    *, policy: AgentPolicy, resource: str, operations: Collection[str], fields: Collection[str],
) -> AgentGrant | None:
    """Set (or, with no operations or no fields, remove) one type's grant. Takes effect on the next call."""
    AgentGrant.objects.filter(policy=policy, resource=resource).delete()
    AgentPolicy.objects.filter(pk=policy.pk).update(updated_at=clock.now())
    if not operations or not fields:
        return None
    grant = AgentGrant(
        policy=policy, resource=resource, can_list="list" in operations, can_search="search" in operations,
        can_read="read" in operations, fields="\n".join("*" if f == "" else f for f in fields),
    )
    grant.full_clean()
    grant.save()
    return grant


@transaction.atomic
def run_start(*, policy: AgentPolicy, user_id: int, thread_id: str) -> RunSnapshot:
    """Freeze the policy's grant for a new run of ``policy``'s agent on ``user_id``'s data."""
    grant = policy_grant(policy)
    if not grant.types:
        raise LayerError("policy_unavailable", "the agent's policy grants nothing")
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        raise LayerError("invalid_value", "there is no such active user", pointer="/user")
    return RunSnapshot.objects.create(
        thread_id=thread_id, agent_key=policy.agent_id, agent=policy, user=user, audience=INTERNAL,
        grant=grant.to_json(), started_at=clock.now(),
    )


def _check(run: RunT | None, *, policy: AgentPolicy, thread_id: str) -> RunT:
    """The refusals of a run that is not the caller's live run (SPEC R-4): never an empty answer."""
    if run is None:
        raise LayerError("run_missing", "there is no such run; start one first")
    if run.agent_key != policy.agent_id or run.agent_id != policy.pk:
        raise LayerError("run_mismatch", "this run belongs to another agent")
    if run.thread_id != thread_id:
        raise LayerError("run_mismatch", "this run belongs to another thread", pointer="/thread_id")
    if run.ended_at is not None:
        raise LayerError("run_ended", "this run has ended; start a new one")
    return run


def _run(*, policy: AgentPolicy, run_id: RunId, thread_id: str, lock: bool = False) -> RunSnapshot:
    """The caller's live run, or the refusal."""
    runs = RunSnapshot.objects.select_related("agent")
    run = (runs.select_for_update(of=("self",)) if lock else runs).filter(run_id=run_id).first()
    return _check(run, policy=policy, thread_id=thread_id)


def run_access(*, policy: AgentPolicy, run_id: RunId, thread_id: str) -> Access:
    """What this call of the run may do: snapshot ∩ current policy (∩ the internal cap, in the layer).

    Read afresh on every call, so an ended run, a disabled policy or a narrowed grant counts at once.
    """
    run = _check(selectors.run_state(run_id), policy=policy, thread_id=thread_id)
    if not run.user_active:
        # A run reads for one person; once their account is deactivated it reads nothing more of it,
        # as their assistants' tokens stop on the next request (docs/mcp.md).
        raise LayerError("run_ended", "the person this run reads for is no longer active")
    if not run.policy_enabled:
        raise LayerError("policy_unavailable", "the agent's policy is missing or disabled")
    try:
        grant = effective_grant(run.grant, run.policy_grants)
    except SnapshotInvalid as exc:
        raise LayerError("policy_unavailable", f"the run's snapshot cannot be read: {exc}") from None
    except GrantInvalid as exc:
        raise LayerError("policy_unavailable", f"the agent's policy cannot be read: {exc}") from None
    return Access(user_id=run.user_id, caller=f"agent:{run.agent_key}/run:{run.run_id}", audience=run.audience,
                  grant=grant)


@transaction.atomic
def run_end(*, policy: AgentPolicy, run_id: RunId, thread_id: str) -> RunSnapshot:
    run = _run(policy=policy, run_id=run_id, thread_id=thread_id, lock=True)
    run.ended_at = clock.now()
    run.save(update_fields=["ended_at"])
    return run


@transaction.atomic
def runs_end(*, runs: Iterable[RunSnapshot]) -> int:
    """End runs from admin, whoever started them."""
    return RunSnapshot.objects.filter(pk__in=[r.pk for r in runs], ended_at=None).update(ended_at=clock.now())
