"""Run snapshots and policies (SPEC D-7, R-4): snapshot ∩ current policy ∩ audience cap, or a refusal."""

import uuid

import pytest

from apps.agents.models import AgentGrant, RunSnapshot
from apps.agents.services import policy_grant_set, run_access, run_end, run_start
from apps.memory import services
from apps.retrieval.layer import LayerError
from tests.agents.builders import OPS, make_agent
from tests.retrieval.layer.builders import call

pytestmark = pytest.mark.django_db


def _refusal(code, **kwargs):
    with pytest.raises(LayerError) as refused:
        run_access(**kwargs)
    assert refused.value.code == code


def test_starting_a_run_freezes_the_grant(user, frozen_clock):  # SPEC D-7
    agent = make_agent(grants={"todo": {"operations": ["read", "search"], "fields": ["/title", "/status"]}})
    run = run_start(policy=agent, user_id=user.pk, thread_id="thread-1")
    stored = RunSnapshot.objects.get(run_id=run.run_id)
    assert (stored.agent_key, stored.user_id, stored.thread_id, stored.audience) == (
        "planner", user.pk, "thread-1", "internal")
    assert stored.grant == {"todo": {"operations": ["read", "search"], "fields": ["/status", "/title"]}}
    assert stored.started_at == frozen_clock.now() and stored.ended_at is None


def test_a_grant_added_to_the_policy_mid_run_does_not_reach_the_run(user):  # SPEC R-4
    agent = make_agent(grants={"todo": {"operations": ["read"], "fields": ["/title"]}})
    todo = services.todo_create(owner=user, title="t", notes="private")
    run = run_start(policy=agent, user_id=user.pk, thread_id="t")
    policy_grant_set(policy=agent, resource="todo", operations=OPS, fields=["*"])
    policy_grant_set(policy=agent, resource="contact", operations=OPS, fields=["*"])
    acc = run_access(policy=agent, run_id=run.run_id, thread_id="t")
    assert call(acc, "read", ref=f"todo:{todo.pk}")["data"] == {"title": "t"}
    assert [e["type"] for e in call(acc, "list")["resources"]] == ["todo"]
    # A new run gets the new grant.
    fresh = run_start(policy=agent, user_id=user.pk, thread_id="t")
    acc = run_access(policy=agent, run_id=fresh.run_id, thread_id="t")
    assert call(acc, "read", ref=f"todo:{todo.pk}")["data"]["notes"] == "private"


def test_a_grant_withdrawn_mid_run_is_gone_on_the_next_call(user):  # SPEC R-4
    agent = make_agent(grants={"todo": {"operations": OPS, "fields": ["*"]},
                               "contact": {"operations": OPS, "fields": ["*"]}})
    todo = services.todo_create(owner=user, title="t", notes="private")
    run = run_start(policy=agent, user_id=user.pk, thread_id="t")
    policy_grant_set(policy=agent, resource="todo", operations=["read"], fields=["/title"])
    policy_grant_set(policy=agent, resource="contact", operations=[], fields=[])
    acc = run_access(policy=agent, run_id=run.run_id, thread_id="t")
    assert call(acc, "read", ref=f"todo:{todo.pk}")["data"] == {"title": "t"}
    assert [e["type"] for e in call(acc, "list")["resources"]] == ["todo"]
    with pytest.raises(LayerError) as refused:
        call(acc, "search", query="t", resource="todo")
    assert refused.value.code == "operation_not_permitted"


def test_missing_ended_and_mismatched_runs_are_refused(user):  # SPEC R-4
    agent = make_agent()
    other_agent = make_agent("summarizer")
    run = run_start(policy=agent, user_id=user.pk, thread_id="t")
    _refusal("run_missing", policy=agent, run_id=uuid.uuid4(), thread_id="t")
    _refusal("run_mismatch", policy=agent, run_id=run.run_id, thread_id="another-thread")
    _refusal("run_mismatch", policy=other_agent, run_id=run.run_id, thread_id="t")
    run_end(policy=agent, run_id=run.run_id, thread_id="t")
    _refusal("run_ended", policy=agent, run_id=run.run_id, thread_id="t")
    with pytest.raises(LayerError) as refused:
        run_end(policy=agent, run_id=run.run_id, thread_id="t")
    assert refused.value.code == "run_ended"


def test_an_unavailable_policy_is_a_refusal_not_an_empty_answer(user):  # SPEC R-4
    agent = make_agent()
    run = run_start(policy=agent, user_id=user.pk, thread_id="t")
    AgentGrant.objects.filter(policy=agent, resource="todo").update(fields="/no/such/field")
    _refusal("policy_unavailable", policy=agent, run_id=run.run_id, thread_id="t")
    AgentGrant.objects.filter(policy=agent, resource="todo").update(fields="/title")
    assert run_access(policy=agent, run_id=run.run_id, thread_id="t").grant.types["todo"].fields == ("/title",)
    agent.enabled = False
    agent.save(update_fields=["enabled"])
    _refusal("policy_unavailable", policy=agent, run_id=run.run_id, thread_id="t")
    with pytest.raises(LayerError) as refused:
        run_start(policy=agent, user_id=user.pk, thread_id="t")
    assert refused.value.code == "policy_unavailable"


def test_a_policy_that_grants_nothing_starts_no_run(user):  # SPEC R-4
    agent = make_agent(grants={})
    with pytest.raises(LayerError) as refused:
        run_start(policy=agent, user_id=user.pk, thread_id="t")
    assert refused.value.code == "policy_unavailable"


def test_a_run_reads_only_its_users_records(user, other_user):  # SPEC
    agent = make_agent()
    theirs = services.todo_create(owner=other_user, title="bob's")
    run = run_start(policy=agent, user_id=user.pk, thread_id="t")
    acc = run_access(policy=agent, run_id=run.run_id, thread_id="t")
    with pytest.raises(LayerError) as refused:
        call(acc, "read", ref=f"todo:{theirs.pk}")
    assert refused.value.code == "not_found"
    assert call(acc, "search", query="bob")["hits"] == []


def test_run_access_is_one_statement_and_every_change_counts_on_the_very_next_call(user):  # SPEC R-4
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    agent = make_agent(grants={"todo": {"operations": OPS, "fields": ["*"]},
                               "contact": {"operations": OPS, "fields": ["*"]}})
    todo = services.todo_create(owner=user, title="t", notes="private")
    run = run_start(policy=agent, user_id=user.pk, thread_id="t")

    def now():
        with CaptureQueriesContext(connection) as captured:
            acc = run_access(policy=agent, run_id=run.run_id, thread_id="t")
        assert len(captured) == 1
        return acc

    for _ in range(2):  # the same stored grants, twice: nothing is carried from one call to the next
        assert call(now(), "read", ref=f"todo:{todo.pk}")["data"]["notes"] == "private"
    policy_grant_set(policy=agent, resource="todo", operations=["read"], fields=["/title"])
    assert call(now(), "read", ref=f"todo:{todo.pk}")["data"] == {"title": "t"}
    policy_grant_set(policy=agent, resource="todo", operations=OPS, fields=["*"])
    assert call(now(), "read", ref=f"todo:{todo.pk}")["data"]["notes"] == "private"
    AgentGrant.objects.filter(policy=agent).delete()
    acc = now()
    assert acc.grant.types == {} and call(acc, "list")["resources"] == []
    policy_grant_set(policy=agent, resource="todo", operations=OPS, fields=["*"])
    now()
    agent.enabled = False
    agent.save(update_fields=["enabled"])
    _refusal("policy_unavailable", policy=agent, run_id=run.run_id, thread_id="t")
    agent.enabled = True
    agent.save(update_fields=["enabled"])
    now()
    RunSnapshot.objects.filter(pk=run.pk).update(grant={"todo": {"operations": ["read"], "fields": ["/nope"]}})
    _refusal("policy_unavailable", policy=agent, run_id=run.run_id, thread_id="t")
    RunSnapshot.objects.filter(pk=run.pk).update(grant={"todo": {"operations": ["read"], "fields": ["/title"]}})
    assert call(now(), "read", ref=f"todo:{todo.pk}")["data"] == {"title": "t"}
    run_end(policy=agent, run_id=run.run_id, thread_id="t")
    _refusal("run_ended", policy=agent, run_id=run.run_id, thread_id="t")
    _refusal("run_missing", policy=agent, run_id="not-a-uuid", thread_id="t")


def test_a_run_whose_policy_was_deleted_is_refused(user):  # SPEC R-4
    agent = make_agent()
    run = run_start(policy=agent, user_id=user.pk, thread_id="t")
    agent.delete()  # the run stays, without a policy
    _refusal("policy_unavailable", policy=agent, run_id=run.run_id, thread_id="t")


def test_a_run_for_an_inactive_user_is_refused_at_start_and_on_the_next_call(user):  # SPEC R-4
    agent = make_agent()
    todo = services.todo_create(owner=user, title="t", notes="private")
    run = run_start(policy=agent, user_id=user.pk, thread_id="t")
    assert call(run_access(policy=agent, run_id=run.run_id, thread_id="t"), "read", ref=f"todo:{todo.pk}")
    # The person's account is deactivated mid-run: the run reads nothing more of it, from the next call on.
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    _refusal("run_ended", policy=agent, run_id=run.run_id, thread_id="t")
    with pytest.raises(LayerError) as refused:
        run_start(policy=agent, user_id=user.pk, thread_id="t")
    assert (refused.value.code, refused.value.pointer) == ("invalid_value", "/user")
    assert run_end(policy=agent, run_id=run.run_id, thread_id="t").ended_at is not None  # it can still be ended
